"""repset: RepSet and ApproxRepSet layers, training, and the pieces of the paper's reproduction.

Import it before or after torch: Numba's thread pool is started with a passive OpenMP wait policy
by the layers themselves (:func:`repset.threads.passive_numba_pool`), so it never spins against torch's.
"""

__version__ = "0.1.0"
