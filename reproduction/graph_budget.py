"""The graph datasets' protocol budget from the records of reproduction/runs.csv, for the full protocol and for
REDDIT-BINARY's declared reduction, from one timing table. Run from the repository root with the graph raw files
in data/raw (python reproduction/graph_budget.py); writes results/budget/graphs.{csv,md} and prints both totals.
With --stores the epochs are timed on the datasets' own sets (data/sets/<dataset>.struc2vec.npz, built first) and
the outputs are results/budget/graphs_stores.{csv,md}."""
import copy, logging, sys, yaml
sys.path.insert(0, ".")
from repset.pipeline.budget import graph_shape, store_shape, write_budget
from repset.protocol.plan import store_path
from repset.pipeline.pack import merge_config
from repset.protocol.budget import summarize
from repset.threads import set_threads

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
set_threads(1)
config = yaml.safe_load(open("config.yaml"))
config["datasets"] = {"text": [], "graph": ["MUTAG", "IMDB-BINARY", "IMDB-MULTI", "PROTEINS", "REDDIT-BINARY"]}
stores = "--stores" in sys.argv[1:]
shapes = [store_shape(d, store_path(d, config)) if stores else
          graph_shape(d, "data/raw", config["struc2vec"]["dim"], config["data"]["val_fraction"], config["seed"])
          for d in config["datasets"]["graph"]]
out = "results/budget/graphs_stores" if stores else "results/budget/graphs"
table = write_budget(shapes, config, f"{out}.csv", f"{out}.md",
                     sample=config["bench"]["budget_sample"], records="reproduction/runs.csv")
reduced = copy.deepcopy(config)
merge_config(reduced, yaml.safe_load(open("reproduction/reddit_reduced.yaml")))
for name, cfg in (("full protocol", config), ("REDDIT-BINARY reduced", reduced)):
    per = summarize(table, cfg)
    print(f"== {name}: total {per.attrs['total_hours']:.1f} h, jobs {per.attrs['n_jobs']}")
    print(per.groupby("dataset").hours.sum().round(2).to_string())
