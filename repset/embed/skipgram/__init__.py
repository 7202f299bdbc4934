"""The skip-gram every struc2vec build trains (gensim ``Word2Vec`` over walk corpora of node ids): the model
(:mod:`.model`), the code that trains it over a corpus file (:mod:`.engine`: gensim's, or :mod:`.kernel`'s numba
epochs that repeat it bit for bit) and its progress while gensim trains (:mod:`.progress`)."""
from .engine import ENGINES, EngineUnsupported, check_numba, train
from .model import new_model, node_vectors
from .progress import SkipgramProgress, read_fraction

__all__ = ["ENGINES", "EngineUnsupported", "check_numba", "train", "new_model", "node_vectors", "SkipgramProgress",
           "read_fraction"]
