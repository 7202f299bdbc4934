"""The Word Mover's Distance baseline (Kusner et al., 2015): distances between bag-of-words documents
(:mod:`.distance`: WMD, RWMD and WCD lower bounds, via POT) and the RWMD-pruned exact WMD kNN classifier
with k chosen on validation (:mod:`.knn`)."""
from .distance import docs_from_ragged, normalize_doc, rwmd, synthetic_docs, wcd, wmd
from .knn import knn_predict, wmd_knn

__all__ = ["docs_from_ragged", "normalize_doc", "rwmd", "synthetic_docs", "wcd", "wmd", "knn_predict", "wmd_knn"]
