from .layers.aggregation import ApproxRepSetAggregation as ApproxRepSetAggregation
from .layers.aggregation import HiddenSetAggregation as HiddenSetAggregation
from .layers.aggregation import RepSetAggregation as RepSetAggregation
from .layers.approx import ApproxRepSet as ApproxRepSet
from .layers.base import HiddenSetLayer as HiddenSetLayer
from .layers.repset import RepSet as RepSet
from .threads import set_threads as set_threads

__version__: str
__all__: list[str]
