"""A measurement for the MUTAG cells outside 2 sigma: how far the struc2vec embedding's own randomness moves the
baselines and RepSet. Builds MUTAG's node embeddings again with another struc2vec seed (the record's store: seed 0),
the same folds (split seed 0), into data/sets of the folder it runs in (a separate worktree: it replaces that
folder's MUTAG store), and checks the folds against the record's store:
    python reproduction/embed_seed.py SEED [RECORD_STORE]
then trains the models on folds 0-29 there with
    python -m repset.pipeline.pack config.yaml --paths-from <their record paths>
to be paired with reproduction/runs.csv's records of the same folds. Records: reproduction/embed_seed/seed<SEED>/."""
import sys, yaml
import numpy as np
sys.path.insert(0, ".")
from repset.datasets.store import load_collection
from repset.pipeline.data import graph_embedding, graph_store
from repset.protocol.plan import store_path, struc2vec_options

config = yaml.safe_load(open("config.yaml"))
options = struc2vec_options("MUTAG", config)
mirror = config.get("data_mirror")
seed = int(sys.argv[1])
graph_embedding("MUTAG", "data/raw", "data/embed/MUTAG.struc2vec.npy", options, seed=seed, mirror=mirror)
graph_store("MUTAG", "data/raw", "data/embed/MUTAG.struc2vec.npy", store_path("MUTAG", config), seed=config["seed"],
            val_fraction=config["data"]["val_fraction"], options=options, mirror=mirror)
ours, _ = load_collection(store_path("MUTAG", config))
if len(sys.argv) > 2:   # the record's store: same folds, other values
    theirs, _ = load_collection(sys.argv[2])
    assert all(np.array_equal(a[p], b[p]) for a, b in zip(ours.splits, theirs.splits) for p in ("train", "val", "test"))
    print("same folds as", sys.argv[2], "; values differ:", not np.array_equal(ours.values, theirs.values))
