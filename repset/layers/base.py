"""Base class of the permutation-invariant set layers: one forward contract."""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from contextlib import nullcontext

import numpy as np
import torch
from torch import nn

from ..sets import length_mask
from .matched_sum import GRAD_MODES, matched_sum
from .ops import check_batch, check_cast, check_products, check_values, checked_batch, scratch, tracing

NORMALIZATIONS = ("none", "input_size")
#: hidden-set initialisations: the authors' two (their ApproxRepSet code: uniform [-1, 1]; their exact
#: RepSet code: standard normal), uniform [-0.1, 0.1] (a 10x smaller start lets the elements
#: move: reproduction/init_study/) and two that read the training elements (see ``init_from_elements``)
INITS = ("uniform", "normal", "small", "elements", "scaled")
DATA_INITS = ("elements", "scaled")


class HiddenSetLayer(nn.Module):
    """Compares input sets with ``m`` trainable hidden sets; ``forward(V, lengths) -> (B, m)``.

    Args:
        in_dim: element dimension d.
        n_hidden_sets: m.
        hidden_set_size: |Y| for all hidden sets, or a sequence of m sizes (hidden sets may differ).
        normalize: ``"none"`` (the paper) or ``"input_size"`` (divide by |X|, the official code).
        grad_mode: ``"sparse"`` (gradient from the selected pair indices) or ``"dense"`` (autograd
            through the full edge-weight tensor); same values, see :mod:`.matched_sum`.
        init: ``"uniform"`` in [-1, 1] (default; the authors' ApproxRepSet code), ``"normal"`` (standard
            normal, the authors' exact RepSet code), ``"small"`` (uniform in [-0.1, 0.1]), or, from the training elements (the trainer calls
            :meth:`init_from_elements`), ``"elements"`` (each hidden element a random training element
            plus noise of 0.1 of the per-dimension std) or ``"scaled"`` (normal with the elements'
            per-dimension mean and std).
    The hidden sets are the columns of ``weight`` of shape ``(d, m, K)``, ``K = max |Y_k|``;
    columns ``>= |Y_k|`` of set k are padding, masked out and never trained.
    """

    def __init__(self, in_dim: int, n_hidden_sets: int, hidden_set_size: int | Sequence[int],
                 normalize: str = "none", grad_mode: str = "sparse", init: str = "uniform") -> None:
        super().__init__()
        if init not in INITS:
            raise ValueError(f"unknown init={init!r}; valid: {', '.join(INITS)}")
        self.init = init
        if not (_is_int(in_dim) and _is_int(n_hidden_sets)) or in_dim < 1 or n_hidden_sets < 1:
            raise ValueError(f"in_dim and n_hidden_sets must be integers >= 1, got {in_dim!r}, {n_hidden_sets!r}")
        in_dim, n_hidden_sets = int(in_dim), int(n_hidden_sets)
        if _is_int(hidden_set_size):
            sizes = [int(hidden_set_size)] * n_hidden_sets
        elif isinstance(hidden_set_size, (Sequence, np.ndarray, torch.Tensor)) and all(
                _is_int(s) for s in np.asarray(hidden_set_size).ravel().tolist()):
            sizes = [int(s) for s in np.asarray(hidden_set_size).ravel().tolist()]
        else:
            sizes = []
        if len(sizes) != n_hidden_sets or min(sizes) < 1:
            raise ValueError(f"hidden_set_size must be a positive int or {n_hidden_sets} positive ints, got {hidden_set_size!r}")
        if normalize not in NORMALIZATIONS:
            raise ValueError(f"unknown normalize={normalize!r}; valid: {', '.join(NORMALIZATIONS)}")
        if grad_mode not in GRAD_MODES:
            raise ValueError(f"unknown grad_mode={grad_mode!r}; valid: {', '.join(GRAD_MODES)}")
        self.in_dim, self.n_hidden_sets, self.normalize, self.grad_mode = in_dim, n_hidden_sets, normalize, grad_mode
        K = max(sizes)
        self._sizes = tuple(sizes)                 # the constructor's: buffers and kernels read these
        self._equal_sizes = len(set(sizes)) == 1   # no padding columns to mask
        self.register_buffer("hidden_sizes", torch.tensor(sizes, dtype=torch.long), persistent=True)
        self.register_buffer("hidden_mask", torch.arange(K)[None, :] < self.hidden_sizes[:, None], persistent=False)
        self.weight = nn.Parameter(torch.empty(in_dim, n_hidden_sets, K))
        self.reset_parameters()

    def _rebuild_buffers(self) -> None:
        """``hidden_sizes`` and ``hidden_mask`` anew from the constructor's sizes, on the weight's device:
        after ``to_empty()`` (uninitialised memory), a build on the meta device, or a state dict loaded
        with ``assign=True`` (which leaves the non-persistent mask where it was)."""
        device = self.weight.device
        sizes = torch.tensor(self._sizes, dtype=torch.long, device=device)
        self.hidden_sizes = sizes
        self.hidden_mask = torch.arange(self.weight.shape[2], device=device)[None, :] < sizes[:, None]

    def _apply(self, fn, recurse: bool = True):
        """Module moves and casts (``to``, ``to_empty``, ``cuda``, ...) as torch's, then the structure
        buffers rebuilt (:meth:`_rebuild_buffers`): ``to_empty()`` leaves them uninitialised."""
        out = super()._apply(fn, recurse)
        if self.weight.device.type != "meta":
            self._rebuild_buffers()
        return out

    def reset_parameters(self) -> None:
        """Standard normal for ``init="normal"``, uniform in [-0.1, 0.1] for ``"small"``, else uniform in
        [-1, 1] (the data-aware inits start there until :meth:`init_from_elements`); padding columns are zero.
        The structure buffers are rebuilt too, so ``to_empty()`` + ``reset_parameters()`` gives a working layer."""
        if self.weight.device.type != "meta":
            self._rebuild_buffers()
        with torch.no_grad():
            if self.init == "normal":
                self.weight.normal_()
            elif self.init == "small":
                self.weight.uniform_(-0.1, 0.1)
            else:
                self.weight.uniform_(-1.0, 1.0)
            self.weight.mul_(self.hidden_mask.to(self.weight.dtype))

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str], error_msgs: list[str]) -> None:
        """Refuse (nothing of this layer loaded, an error for ``load_state_dict``, strict or not) a state
        whose ``hidden_sizes`` differ from this layer's: the padding mask and the equal-size flag are the
        constructor's, so a layer's hidden-set sizes are fixed when it is built. Compared with the
        constructor's sizes, so a layer after ``to_empty()`` or built on the meta device loads too
        (``assign=True`` included: the buffers are rebuilt on the loaded weight's device)."""
        key = prefix + "hidden_sizes"
        theirs = state_dict.get(key)
        if isinstance(theirs, torch.Tensor) and not theirs.is_meta and theirs.tolist() != list(self._sizes):
            error_msgs.append(f"{key}: the state's hidden-set sizes {theirs.tolist()} differ from this layer's "
                              f"{list(self._sizes)}; build the layer with hidden_set_size={theirs.tolist()} to load it")
            return
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys,
                                      unexpected_keys, error_msgs)
        if self.weight.device.type != "meta":
            self._rebuild_buffers()

    @property
    def needs_data_init(self) -> bool:
        """True when the hidden sets are drawn from the training elements (``init`` in :data:`DATA_INITS`)."""
        return self.init in DATA_INITS

    def init_from_elements(self, elements: torch.Tensor) -> None:
        """Draw the hidden sets from training elements ``(n, d)`` (torch's global generator): ``"elements"``
        picks random elements (without replacement where there are enough) plus Gaussian noise of 0.1
        of their per-dimension std; ``"scaled"`` draws a normal with their per-dimension mean and std."""
        if self.init not in DATA_INITS:
            raise ValueError(f"init={self.init!r} does not read training elements")
        if elements.ndim != 2 or elements.shape[1] != self.in_dim or len(elements) == 0:
            raise ValueError(f"elements must have shape (n >= 1, {self.in_dim}), got {tuple(elements.shape)}")
        elements = elements.to(self.weight.dtype)
        mean, std = elements.mean(0), elements.std(0, unbiased=False).clamp_min(1e-12)
        d, m, K = self.weight.shape
        with torch.no_grad():
            if self.init == "elements":
                pick = torch.randperm(len(elements))[: m * K] if len(elements) >= m * K else \
                    torch.randint(len(elements), (m * K,))
                W = elements[pick] + 0.1 * std * torch.randn(m * K, d, dtype=self.weight.dtype)
            else:
                W = mean + std * torch.randn(m * K, d, dtype=self.weight.dtype)
            self.weight.copy_(W.T.reshape(d, m, K).to(self.weight.device))
            self.weight.mul_(self.hidden_mask.to(self.weight.dtype))

    def _weight_or(self, weight: torch.Tensor | None) -> torch.Tensor:
        """``weight`` (a copy of this layer's, e.g. taken before training) or the current one, detached."""
        W = (self.weight if weight is None else weight).detach().to(self.weight.device)
        if W.shape != self.weight.shape:
            raise ValueError(f"weight must have shape {tuple(self.weight.shape)}, got {tuple(W.shape)}")
        return W

    def hidden_elements(self, weight: torch.Tensor | None = None) -> torch.Tensor:
        """The real (non-padding) hidden elements of ``weight`` (default: the current one) as rows
        ``(sum_k |Y_k|, d)``, detached, in set order."""
        W = self._weight_or(weight)
        return W.permute(1, 2, 0)[self.hidden_mask.to(W.device)]

    def movement(self, initial: torch.Tensor) -> dict[str, float]:
        """How far training moved the hidden elements from ``initial`` (a copy of ``weight`` taken before
        training): mean over elements of the cosine between trained and initial element, of the
        displacement norm, and of the initial and trained element norms (units of the input space)."""
        start, end = self.hidden_elements(initial).double(), self.hidden_elements().double()
        cos = torch.nn.functional.cosine_similarity(start, end, dim=1, eps=1e-12)
        return {"cosine_to_initial": float(cos.mean()), "displacement_norm": float((end - start).norm(dim=1).mean()),
                "initial_norm": float(start.norm(dim=1).mean()), "trained_norm": float(end.norm(dim=1).mean())}

    def hidden_sets(self, weight: torch.Tensor | None = None) -> list[torch.Tensor]:
        """The m hidden sets of ``weight`` (default: the current one) as ``(|Y_k|, d)`` tensors (detached)."""
        W = self._weight_or(weight)
        return [W[:, k, : int(s)].T for k, s in enumerate(self.hidden_sizes)]

    def edge_weights(self, V: torch.Tensor) -> torch.Tensor:
        """F = ReLU(V H) of shape ``(B, N, m, K)``; zero on padding rows/columns (V padded with zeros)."""
        B, N, d = V.shape
        return self._edge_rows(V.reshape(B * N, d)).view(B, N, *self.weight.shape[1:])

    def _products(self, E: torch.Tensor, reuse: bool = False) -> torch.Tensor:
        """The raw products ``E H`` (R, m, K) of element rows ``E`` (R, d) with the hidden elements.

        ``reuse`` (the forward pass): on CPU with autograd off, written into this layer's scratch, which
        grows to the largest call and is kept, and valid until the next such call. A fresh ``(R, m K)``
        tensor per call pays for its pages on first touch: 2.3x the matmul's own time for REDDIT-BINARY's
        calls at m = 100, |Y| = 50 (26,500 x 5,000 floats). The values are the same matmul's. One forward at
        a time per layer (concurrent calls from several threads would share the scratch)."""
        W = self._compute_weight().reshape(self.in_dim, -1)
        if not (reuse and E.device.type == "cpu" and W.device.type == "cpu" and E.dtype == W.dtype
                and not torch.is_grad_enabled()):
            return (E @ W).view(E.shape[0], *self.weight.shape[1:])
        need = len(E) * W.shape[1]
        buffer = self.__dict__["_scratch"] = scratch(need, W.dtype, self.__dict__.get("_scratch"))
        out = buffer[:need].view(len(E), W.shape[1])
        torch.mm(E, W, out=out)
        return out.view(len(E), *self.weight.shape[1:])

    def __getstate__(self) -> dict:
        """Pickling and ``copy.deepcopy`` leave the products' scratch behind (see :meth:`_products`)."""
        state = self.__dict__.copy()
        state.pop("_scratch", None)
        return state

    def _edge_rows(self, E: torch.Tensor, G: torch.Tensor | None = None) -> torch.Tensor:
        """F = ReLU(E H) (R, m, K) for element rows ``E`` (R, d) (from their products ``G`` when given),
        zero on the hidden sets' padding columns."""
        G = self._products(E) if G is None else G
        # in place when no graph is recorded: saves an (R, m K) allocation per step (not in a traced graph,
        # whose checks read G after the matching)
        F = G.clamp_min_(0) if not G.requires_grad and not tracing() else torch.relu(G)
        if self._equal_sizes:  # no padding columns: no masking copy
            return F
        return F * self.hidden_mask.to(F.dtype)

    #: forward accepts ``element_ids`` (sets as distinct elements + ids; see :meth:`forward`)
    takes_element_ids = True
    #: a traced forward with the sparse gradient on the CPU passes :meth:`set_values` no products (``G=None``):
    #: the layer's operator computes them (:func:`.ops.match_products`, :func:`.ops.approx_products`)
    products_in_operator = False

    def forward(self, V: torch.Tensor, lengths: torch.Tensor | None = None,
                element_ids: torch.Tensor | None = None) -> torch.Tensor:
        """Set representation ``x`` of shape ``(B, m)``, in the parameters' dtype.

        Sets come padded, ``V`` (B, N, d) with ``lengths`` (B,), or, with ``element_ids`` (B, N), as
        their distinct elements ``V`` (U, d): element i of set b is ``V[element_ids[b, i]]`` for
        ``i < lengths[b]``. The second form computes each distinct element's edge weights once per
        batch (sets drawn from one vocabulary share most of them); values and gradients are the same.
        Dtypes and autocast: :func:`compute_dtype`. Numba kernels run on torch's thread count
        (:mod:`repset.threads`). The steps outside torch are operators (:mod:`.ops`): torch.compile
        (fullgraph), torch.export and torch.func transforms take the forward whole.
        """
        if torch.jit.is_tracing():
            raise RuntimeError(f"{type(self).__name__} cannot be traced by torch.jit.trace: a trace would replay "
                               "what Python decided on this input (its checks, its pair slots) on every input "
                               "(silently wrong values). Use torch.compile or torch.export: their graphs keep "
                               "the layer's operators, run at each call.")
        dtype = self.weight.dtype
        compute = compute_dtype(dtype, type(self).__name__)
        device = V.device.type
        if torch.amp.is_autocast_available(device) and torch.is_autocast_enabled(device) and V.is_floating_point():
            V = V.to(dtype)   # autocast: the layer runs in its parameters' dtype, as torch's float32 ops do
        traced = tracing()   # checks that read values: operators in a graph, Python branches eagerly
        with _autocast_off(device):
            if traced:
                E, index, lengths = self._traced_batch(V, lengths, element_ids, compute)
            else:
                E, index, lengths = check_batch(V, lengths, element_ids, self.weight, self.in_dim, compute)
            E = E.to(compute)
            G = None   # traced, sparse gradient, CPU: the layer's operator makes the products itself
            if not (traced and self.products_in_operator and self.grad_mode == "sparse" and E.device.type == "cpu"):
                with torch.set_grad_enabled(torch.is_grad_enabled() and self.grad_mode == "dense"):
                    G = self._products(E, reuse=not traced)   # read within this call only: never kept for backward
            if not traced:
                check_products(G, E, self.weight)
            x = self.set_values(E, G, index, lengths)
            if self.normalize == "input_size":
                x = x / lengths[:, None].to(x.dtype)
        out = x if compute == dtype else x.to(dtype)
        if traced:   # the checks' operator, its zero added: an output nothing reads would leave the graph
            return out + check_values(out.detach(), x.detach(), None if G is None else G.detach(), E.detach(),
                                      self.weight.detach(),
                                      type(self).__name__)
        if compute != dtype:
            check_cast(out, x, type(self).__name__)
        return out

    def _traced_batch(self, V: torch.Tensor, lengths: torch.Tensor | None, element_ids: torch.Tensor | None,
                      compute: torch.dtype) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """:func:`.ops.check_batch` as an operator (:func:`.ops.checked_batch`), the padding zeroed by torch."""
        lengths = None if lengths is None else torch.as_tensor(lengths, device=V.device)
        index, lengths = checked_batch(V.detach(), lengths, element_ids, self.weight.detach(), self.in_dim, compute)
        if element_ids is not None:
            return V, index, lengths
        B, N, d = V.shape
        V = torch.where(length_mask(lengths, N)[:, :, None], V, torch.zeros((), dtype=V.dtype, device=V.device))
        return V.reshape(B * N, d), index, lengths

    def _compute_weight(self) -> torch.Tensor:
        """The hidden sets in the dtype the layer computes in (:func:`compute_dtype`), with their gradient."""
        compute = compute_dtype(self.weight.dtype, type(self).__name__)
        return self.weight if self.weight.dtype == compute else self.weight.to(compute)

    def set_values(self, E: torch.Tensor, G: torch.Tensor | None, index: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """``x`` (B, m) with its gradient, from element rows ``E`` (R, d), their products ``G = E H``
        (R, m, K; with the autograd graph in dense grad mode; None where :attr:`products_in_operator`) and
        the sets' ``index`` (B, N): ReLU, pairs from :meth:`select_pairs`, their sum."""
        F = self._edge_rows(E, G)
        with torch.no_grad():
            rows, cols = self.select_pairs(F.detach(), index, lengths)
        return matched_sum(E, self._compute_weight(), F, index, rows, cols, self.grad_mode)

    def select_pairs(self, F: torch.Tensor, index: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Pairs whose weights make up ``x``: ``(rows, cols)`` long (B, m, S), -1 = none; a row is a
        position in the set (``< lengths[b]``).

        ``F`` (R, m, K) is detached, nonnegative and zero on padding columns; set b's element i has
        the weights ``F[index[b, i]]``.
        """
        raise NotImplementedError

    def options_repr(self) -> str:
        """The constructor's arguments after ``in_dim`` and ``n_hidden_sets``, as ``name=value`` pairs."""
        sizes = self._sizes[0] if self._equal_sizes else list(self._sizes)
        return (f"hidden_set_size={sizes}, normalize={self.normalize!r}, grad_mode={self.grad_mode!r}, "
                f"init={self.init!r}")

    def extra_repr(self) -> str:
        return f"in_dim={self.in_dim}, n_hidden_sets={self.n_hidden_sets}, {self.options_repr()}"


def _is_int(value) -> bool:
    """An integer (Python or NumPy), not a bool."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


#: parameter dtypes the layers compute in as they are; float16 and bfloat16 layers compute in float32
NATIVE_DTYPES = (torch.float32, torch.float64)
HALF_DTYPES = (torch.float16, torch.bfloat16)


def compute_dtype(dtype: torch.dtype, layer: str = "the layer") -> torch.dtype:
    """The dtype a layer with parameters of ``dtype`` computes in: float32 and float64 as they are,
    float16 and bfloat16 in float32 (the matching and its sums; the result is cast back); any other
    dtype raises TypeError listing these. Under ``torch.autocast`` a layer casts its input to its
    parameters' dtype and computes there (autocast is off inside), as torch's float32 operators do."""
    if dtype in NATIVE_DTYPES:
        return dtype
    if dtype in HALF_DTYPES:
        return torch.float32
    raise TypeError(f"{layer} supports parameters of dtype float32 or float64, and float16 or bfloat16 "
                    f"(computed in float32); got {dtype}")


def _autocast_off(device: str):
    """Autocast disabled for ``device`` where torch has autocast for it."""
    return torch.autocast(device, enabled=False) if torch.amp.is_autocast_available(device) else nullcontext()
