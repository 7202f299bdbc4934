"""repset: RepSet and ApproxRepSet layers, training, and the pieces of the paper's reproduction.

Torch (its bundled OpenMP) and Numba's parallel kernels (a second OpenMP runtime) alternate in every
training step. With the default active wait policy each runtime's idle threads spin and starve the
other's: measured on 2 cores, a small forward+backward took 87 ms instead of 3.5 ms. A passive wait
policy removes that; it must be set before the first OpenMP runtime loads, so import repset before
torch (or export OMP_WAIT_POLICY yourself; an explicit value is never overridden).
"""
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"
