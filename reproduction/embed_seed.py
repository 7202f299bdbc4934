"""A measurement for the graph cells outside 2 sigma: how far the struc2vec embedding's own randomness moves the
baselines and RepSet. Builds a graph dataset's node embeddings again with another struc2vec seed (the record's store:
seed 0), the same folds (split seed 0), into data/sets of the folder it runs in (a separate worktree: it replaces that
folder's store of the dataset), and checks the folds against the record's store:
    python reproduction/embed_seed.py SEED [RECORD_STORE] [--dataset MUTAG] --configfile reproduction/completed.yaml
(completed.yaml: the record's struc2vec variant, the paper's wording; seeds 1 and 2 were drawn so)
then trains the models on folds 0-29 there with
    python -m repset.pipeline.pack config.yaml --paths-from <their record paths>
to be paired with reproduction/runs.csv's records of the same folds. Records: reproduction/embed_seed/seed<SEED>/
(MUTAG's)."""
import argparse, os, sys
sys.path.insert(0, ".")
from repset.provenance import openblas_environment
# before numpy loads OpenBLAS: the record's stores' kernels (docs/record.md), or those named by --openblas (the
# reference-struc2vec stores: Haswell, which every AVX2 and AVX-512 CPU runs, so that any of them can rebuild the store)
_kernels = next((a.split("=", 1)[1] for a in sys.argv if a.startswith("--openblas=")), None)
os.environ.update({"OPENBLAS_CORETYPE": _kernels} if _kernels else openblas_environment())
import numpy as np
from repset.datasets.store import load_collection
from repset.pipeline.data import graph_embedding, graph_store
from repset.pipeline.pack import load_config
from repset.protocol.plan import store_path, struc2vec_options

parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
parser.add_argument("seed", type=int, help="struc2vec seed (the record's stores: 0)")
parser.add_argument("record_store", nargs="?", help="the record's store of the dataset, to check the folds against")
parser.add_argument("--dataset", default="MUTAG")
parser.add_argument("--configfile", action="append", default=[], help="overlay merged over config.yaml (repeatable)")
parser.add_argument("--openblas", help="OpenBLAS kernels for the skip-gram (--openblas=Haswell), over the record's choice")
args = parser.parse_args()
config = load_config("config.yaml", args.configfile)
name, mirror = args.dataset, config.get("data_mirror")
options = struc2vec_options(name, config)
# the record's kernels at the embedding's dim (an AVX2 CPU runs them below dim 32), known only now that the config is
# read and OpenBLAS loaded: start again with them set
_wanted = {} if _kernels else openblas_environment(dim=options.get("dim"))
if _wanted and os.environ.get("OPENBLAS_CORETYPE") != _wanted["OPENBLAS_CORETYPE"]:
    os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **_wanted})
graph_embedding(name, "data/raw", f"data/embed/{name}.struc2vec.npy", options, seed=args.seed, mirror=mirror)
graph_store(name, "data/raw", f"data/embed/{name}.struc2vec.npy", store_path(name, config), seed=config["seed"],
            val_fraction=config["data"]["val_fraction"], options=options, mirror=mirror)
ours, _ = load_collection(store_path(name, config))
if args.record_store:   # the record's store: same folds, other values
    theirs, _ = load_collection(args.record_store)
    assert all(np.array_equal(a[p], b[p]) for a, b in zip(ours.splits, theirs.splits) for p in ("train", "val", "test"))
    print("same folds as", args.record_store, "; values differ:", not np.array_equal(ours.values, theirs.values))
