"""Node embeddings for the graph-classification experiments."""
from .struc2vec import struc2vec

__all__ = ["struc2vec"]
