"""The batched maximum-weight bipartite matching protocol.

A solver takes a batch of nonnegative weight matrices ``weights`` of shape ``(*batch, N, K)`` (any
strides: the RepSet layer hands over a transposed view of its matmul output, never a copy) and
optional per-problem lengths, and returns one :class:`MatchingResult` for all problems at once.

Problem ``p`` is the top-left ``row_lengths[p] x col_lengths[p]`` block of ``weights[p]``; entries
outside it (padding) are never read for the value and never matched. Rectangular problems are
solved as they are: a maximum-weight matching of a nonnegative ``n x k`` matrix matches
``min(n, k)`` pairs. An empty problem (``n == 0`` or ``k == 0``) has value 0 and no pairs.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

__all__ = ["MatchingResult", "MatchingSolver", "prepare_problem", "prepare_indexed"]


@dataclass(frozen=True)
class MatchingResult:
    """Values and assignments of a batch of matching problems.

    Attributes:
        value: float64, shape ``batch``: weight of the maximum matching of each problem.
        assignment: int32, shape ``(*batch, S)`` with ``S = min(N, K)`` of the padded shape. The
            smaller padded side is indexed: when ``along == "rows"`` (``N <= K``) entry ``i`` is the
            column matched to row ``i``; when ``along == "cols"`` entry ``j`` is the row matched to
            column ``j``. ``-1`` marks an unmatched (or padding) element.
        along: ``"rows"`` or ``"cols"``, which side ``assignment`` is indexed by.
    """

    value: np.ndarray
    assignment: np.ndarray
    along: str

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Matched ``(rows, cols)``, each int32 of shape ``(*batch, S)``, -1 where unmatched."""
        index = np.broadcast_to(np.arange(self.assignment.shape[-1], dtype=np.int32), self.assignment.shape)
        index = np.where(self.assignment >= 0, index, -1).astype(np.int32)
        if self.along == "rows":
            return index, self.assignment
        return self.assignment, index


def _lengths(lengths, name: str, batch_shape: tuple[int, ...], limit: int) -> np.ndarray:
    """Broadcast ``lengths`` to ``batch_shape`` as int64 and check ``0 <= length <= limit``."""
    if lengths is None:
        return np.full(batch_shape, limit, dtype=np.int64)
    arr = np.asarray(lengths)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{name} must hold integers, got dtype {arr.dtype}")
    try:
        arr = np.broadcast_to(arr, batch_shape).astype(np.int64)
    except ValueError:
        raise ValueError(f"{name} of shape {np.shape(lengths)} does not broadcast to the batch shape {batch_shape}") from None
    if arr.size and (arr.min() < 0 or arr.max() > limit):
        raise ValueError(f"{name} must lie in [0, {limit}], got values in [{arr.min()}, {arr.max()}]")
    return arr


def prepare_problem(weights, row_lengths=None, col_lengths=None, check_values: bool = True):
    """Validate a batch of problems; return ``(weights, row_lengths, col_lengths)``.

    ``weights`` is returned as a float32/float64 ndarray sharing memory with the input whenever the
    input already is one; lengths are int64 arrays of the batch shape.
    Raises ValueError naming the offending argument (and, for bad weights, the first bad problem).
    """
    w = np.asarray(weights)
    if w.ndim < 2:
        raise ValueError(f"weights must have shape (*batch, N, K), got shape {w.shape}")
    if w.dtype not in (np.float32, np.float64):
        if w.dtype.kind not in "iuf":
            raise ValueError(f"weights must be a real floating array, got dtype {w.dtype}")
        w = w.astype(np.float64)
    batch_shape, (n, k) = w.shape[:-2], w.shape[-2:]
    rows = _lengths(row_lengths, "row_lengths", batch_shape, n)
    cols = _lengths(col_lengths, "col_lengths", batch_shape, k)
    if check_values and w.size:
        low, high = np.min(w), np.max(w)
        if not (np.isfinite(low) and np.isfinite(high)):  # locate the problem only on error
            raise ValueError(_non_finite(_first(~np.isfinite(w).all(axis=(-2, -1)))))
        if low < 0:
            raise ValueError(_negative(_first((w < 0).any(axis=(-2, -1))), f" (got minimum {low})"))
    return w, rows, cols


def prepare_indexed(table, row_index, row_lengths=None, col_lengths=None, check_values: bool = True):
    """Validate an indexed batch; return ``(table, row_index, row_lengths, col_lengths)``.

    ``table`` (U, Q, K) float32/float64 holds shared rows; ``row_index`` (P, N) integer, each entry in
    ``[0, U)``, names the table row that is row ``i`` of the problems ``(p, q)``. Lengths broadcast to
    ``(P, Q)``. ``check_values`` scans the whole table for NaN, inf and negatives (naming the table row).
    """
    t = np.asarray(table)
    if t.ndim != 3:
        raise ValueError(f"table must have shape (rows U, Q, K), got shape {t.shape}")
    if t.dtype not in (np.float32, np.float64):
        if t.dtype.kind not in "iuf":
            raise ValueError(f"table must be a real floating array, got dtype {t.dtype}")
        t = t.astype(np.float64)
    index = np.asarray(row_index)
    if index.ndim != 2 or index.dtype.kind not in "iu":
        raise ValueError(f"row_index must be integers of shape (P, N), got {index.dtype} {index.shape}")
    if index.size and (index.min() < 0 or index.max() >= t.shape[0]):
        raise ValueError(f"row_index must lie in [0, {t.shape[0]}) (rows of table), got values in "
                         f"[{index.min()}, {index.max()}]")
    index = index.astype(np.int64, copy=False)
    batch_shape = (index.shape[0], t.shape[1])
    rows = _lengths(row_lengths, "row_lengths", batch_shape, index.shape[1])
    cols = _lengths(col_lengths, "col_lengths", batch_shape, t.shape[2])
    if check_values and t.size:
        if not np.isfinite(t).all():
            raise ValueError(f"table row {_first(~np.isfinite(t).all(axis=(1, 2)))[0]} contains NaN or infinite entries")
        if t.min() < 0:
            raise ValueError(f"table row {_first((t < 0).any(axis=(1, 2)))[0]} must be nonnegative; apply ReLU or shift it")
    return t, index, rows, cols


def _first(mask: np.ndarray) -> tuple[int, ...]:
    """Batch index of the first True entry of ``mask`` (batch shape, at least one True)."""
    return tuple(int(i) for i in np.unravel_index(np.flatnonzero(mask)[0], mask.shape))


def _where(index: tuple[int, ...]) -> str:
    return f"problem {index} of the batch" if index else "the problem"


def _non_finite(index: tuple[int, ...]) -> str:
    return f"weights of {_where(index)} contain NaN or infinite entries"


def _negative(index: tuple[int, ...], detail: str = "") -> str:
    return f"weights of {_where(index)} must be nonnegative{detail}; apply ReLU or shift them"


def _as_grid(batch_shape: tuple[int, ...]) -> tuple[int, int]:
    """Two batch axes (P, Q) for any batch shape: (B, m) stays, (B,) -> (1, B), () -> (1, 1)."""
    if len(batch_shape) == 2:
        return batch_shape
    if len(batch_shape) < 2:
        return (1,) * (2 - len(batch_shape)) + tuple(batch_shape)
    return (int(np.prod(batch_shape[:-1])), batch_shape[-1])


def _raise_flagged(value: np.ndarray) -> None:
    """Raise ValueError naming the first problem that a kernel flagged in ``value`` (batch shape):
    NaN marks NaN or infinite weights, a negative value negative weights (a valid value is >= 0)."""
    bad = ~(value >= 0)
    if bad.any():
        index = _first(bad)
        raise ValueError(_non_finite(index) if np.isnan(value[index]) else _negative(index))


class MatchingSolver(ABC):
    """Base class of every solver plugin: one ``solve`` call serves a whole batch."""

    #: registry name, set by subclasses
    name: ClassVar[str] = ""
    #: True when values are exact optima (False: approximate, e.g. auction with epsilon > 0)
    exact: ClassVar[bool] = True
    #: True when ``_solve`` validates every problem's weights itself: a problem with a NaN or
    #: infinite weight gets value NaN, one with a negative weight value -1 (see :func:`_raise_flagged`)
    checks_in_kernel: ClassVar[bool] = False

    def solve(self, weights, row_lengths=None, col_lengths=None, check_values: bool = True) -> MatchingResult:
        """Solve every problem of the batch.

        Args:
            weights: array of shape ``(*batch, N, K)``, nonnegative, finite, float32 or float64.
            row_lengths: ints broadcastable to ``batch``: valid rows per problem (default ``N``).
            col_lengths: ints broadcastable to ``batch``: valid columns per problem (default ``K``).
            check_values: scan the whole padded array for NaN, inf and negatives up front (two passes).
                Only solvers with ``checks_in_kernel`` (numba, auction) honour ``False``: their
                kernels reject such entries of every problem as they read them, at no extra cost.
                The others always scan. Either way a NaN, infinite or negative weight inside a
                problem raises ValueError; it can never crash or hang a solver.
        """
        scan = check_values or not self.checks_in_kernel
        w, rows, cols = prepare_problem(weights, row_lengths, col_lengths, scan)
        batch_shape, (n, k) = w.shape[:-2], w.shape[-2:]
        grid = _as_grid(batch_shape)
        # reshape keeps the caller's memory for ndim <= 4 (the layer's strided view included)
        return self._filled(batch_shape, n, k, lambda value, assignment, along: self._solve(
            w.reshape(grid + (n, k)), rows.reshape(grid), cols.reshape(grid), value.reshape(grid),
            assignment.reshape(grid + (min(n, k),)), along))

    def _filled(self, batch_shape: tuple[int, ...], n: int, k: int, fill) -> MatchingResult:
        """The result of a batch of padded shape ``(n, k)``: empty ``value`` and ``assignment`` arrays that
        ``fill(value, assignment, along)`` fills in place (a kernel call), then flagged problems raised."""
        along = "rows" if n <= k else "cols"
        value = np.zeros(batch_shape, dtype=np.float64)
        assignment = np.full(batch_shape + (min(n, k),), -1, dtype=np.int32)
        if value.size:
            fill(value, assignment, along)
            if self.checks_in_kernel:
                _raise_flagged(value)
        return MatchingResult(value=value, assignment=assignment, along=along)

    def solve_indexed(self, table, row_index, row_lengths=None, col_lengths=None,
                      check_values: bool = True) -> MatchingResult:
        """Solve problems whose rows come from a shared table: problem ``(p, q)`` is
        ``table[row_index[p, :n], q, :k]`` with ``n = row_lengths[p, q]``, ``k = col_lengths[p, q]``.

        The same problems as ``solve(table[row_index].transpose(0, 2, 1, 3), ...)`` (batch ``(P, Q)``,
        padded shape ``(N, K)``), without building that array where a solver reads the table directly
        (sets drawn from one vocabulary share rows); ``check_values`` as :meth:`solve`, where a scan
        names a bad entry by its table row.
        """
        t, index, rows, cols = prepare_indexed(table, row_index, row_lengths, col_lengths,
                                               check_values or not self.checks_in_kernel)
        return self._filled(rows.shape, index.shape[1], t.shape[2], lambda value, assignment, along:
                            self._solve_indexed(t, index, rows, cols, value, assignment, along))

    def _solve_indexed(self, table: np.ndarray, row_index: np.ndarray, rows: np.ndarray, cols: np.ndarray,
                       value: np.ndarray, assignment: np.ndarray, along: str) -> None:
        """Fill ``value`` (P, Q) and ``assignment`` (P, Q, S) in place for the problems of
        :meth:`solve_indexed`. This default gathers them, ``(P, Q, N, K)``, for :meth:`_solve`;
        solvers that read the table directly override it (bad weights flagged as in :meth:`_solve`)."""
        self._solve(np.take(table, row_index, axis=0).transpose(0, 2, 1, 3), rows, cols, value, assignment, along)

    @abstractmethod
    def _solve(self, weights: np.ndarray, rows: np.ndarray, cols: np.ndarray,
               value: np.ndarray, assignment: np.ndarray, along: str) -> None:
        """Fill ``value`` (P, Q) and ``assignment`` (P, Q, S) in place.

        ``weights`` has shape (P, Q, N, K) with arbitrary strides (a view of the caller's array);
        ``rows`` and ``cols`` are int64 (P, Q) lengths. Problem (p, q) is
        ``weights[p, q, :rows[p, q], :cols[p, q]]``.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class PerProblemSolver(MatchingSolver):
    """A solver that handles one problem at a time: subclasses give :meth:`solve_block`."""

    def _solve(self, weights, rows, cols, value, assignment, along):
        P, Q = rows.shape
        for p in range(P):
            for q in range(Q):
                n, k = int(rows[p, q]), int(cols[p, q])
                if n == 0 or k == 0:
                    continue
                block = weights[p, q, :n, :k]
                r, c = self.solve_block(block)
                value[p, q] = np.asarray(block, dtype=np.float64)[r, c].sum()
                if along == "rows":
                    assignment[p, q, r] = c
                else:
                    assignment[p, q, c] = r

    @abstractmethod
    def solve_block(self, block: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Matched ``(rows, cols)`` index arrays (``min(n, k)`` pairs) of one ``n x k`` block."""
