"""Shared test machinery: the variant table, the tolerance model and the checker.

* `VARIANTS` maps every spec in specs/ to its float64 reference step (tests/reference.py,
  written without looking at the generator), its dims in model-native names, and
  generators of realistic random parameters and per-token inputs. It is the one place
  that knows variants by name; a new spec needs a row here (test_every_spec_has_a_case
  fails until it has one).
* `tolerance` turns the precisions that apply to a value into a normwise relative
  error bound (the derivation and the measured numbers are in its docstring).
* `Harness` drives one pool of slots through a schedule of decode steps, explicit
  flushes and reloads, and after every operation checks the kernels against the
  reference: outputs, materialised states, cursors, padding rows, untouched slots,
  and a parallel pool stepped by the conventional kernel.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import torch

import formats_reference as FR
import reference as R

CUDA = torch.cuda.is_available()
TORCH_DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}


def scale() -> float:
    """How many more Hypothesis examples to run than the CPU default: REPLAYGEN_EXAMPLES
    (a factor) if set, else 4 on a GPU (where compiling each drawn configuration, not
    running it, is the cost), 1 in the interpreter."""
    env = os.environ.get("REPLAYGEN_EXAMPLES")
    if env:
        return float(env)
    return 4.0 if CUDA else 1.0


def examples(n: int) -> int:
    """max_examples for a test whose CPU budget is `n` examples."""
    return max(1, round(n * scale()))


# -- variants ------------------------------------------------------------------------
def _randn(gen, *shape, std=1.0):
    """N(0, std^2) draws in fp32 from `gen` (on the CPU, so runs repeat on any device)."""
    return torch.randn(*shape, generator=gen, dtype=torch.float32) * std


@dataclass(frozen=True)
class VariantCase:
    """How to drive one spec: names in the model's own vocabulary, realistic scales."""

    name: str
    step: Callable                       # reference step: (S [HV,V,K], **inputs, **params)
    dims: Callable[[int, int, int, int], dict]        # (H, HV, K, V) -> model-native dims
    params: Callable[..., dict]          # (gen, H, HV, K, V) -> fp32 tensors
    inputs: Callable[..., dict]          # (gen, rows, H, HV, K, V, optional) -> fp32 tensors
    optional_inputs: tuple[str, ...] = ()
    # a plausible implementation mistake in the decay, applied to what the reference sees:
    # (params, inputs) -> (params, inputs). Used to show the checker rejects it.
    wrong_decay: Callable[[dict, dict], tuple[dict, dict]] | None = None
    # per-channel decays of tens of nats per token, applied to what the kernel and the
    # reference both see: (params, inputs) -> (params, inputs). A few drafts then span
    # more log decay than a verify's split window product allows (plan.window_span).
    strong_decay: Callable[[dict, dict], tuple[dict, dict]] | None = None


def _bump_A_log(params, inputs):
    return {**params, "A_log": params["A_log"] + 0.1}, inputs


def _mamba2_inputs(gen, rows, H, HV, K, V, optional=()):
    out = dict(x=_randn(gen, rows, HV, V), dt=_randn(gen, rows, HV),
               B=_randn(gen, rows, H, K), C=_randn(gen, rows, H, K))
    if "z" in optional:
        out["z"] = _randn(gen, rows, HV, V)
    return out


def _gdn_inputs(gen, rows, H, HV, K, V, optional=()):
    return dict(q=_randn(gen, rows, H, K), k=_randn(gen, rows, H, K), v=_randn(gen, rows, HV, V),
                a=_randn(gen, rows, HV), b=_randn(gen, rows, HV))


def _kda_inputs(gen, rows, H, HV, K, V, optional=()):
    return dict(q=_randn(gen, rows, H, K), k=_randn(gen, rows, H, K), v=_randn(gen, rows, HV, V),
                f=_randn(gen, rows, HV, K), b=_randn(gen, rows, HV))


def _gla_inputs(gen, rows, H, HV, K, V, optional=()):
    return dict(q=_randn(gen, rows, H, K), k=_randn(gen, rows, H, K), v=_randn(gen, rows, HV, V),
                gk=_randn(gen, rows, HV, K))


VARIANTS: dict[str, VariantCase] = {c.name: c for c in (
    VariantCase(
        "mamba2", R.mamba2_step,
        dims=lambda H, HV, K, V: dict(ngroups=H, nheads=HV, dstate=K, headdim=V),
        params=lambda gen, H, HV, K, V: dict(A_log=_randn(gen, HV, std=0.5),
                                             dt_bias=_randn(gen, HV), D=_randn(gen, HV)),
        inputs=_mamba2_inputs, optional_inputs=("z",), wrong_decay=_bump_A_log),
    VariantCase(
        "gdn", R.gdn_step,
        dims=lambda H, HV, K, V: dict(H=H, HV=HV, K=K, V=V),
        params=lambda gen, H, HV, K, V: dict(A_log=_randn(gen, HV, std=0.5),
                                             dt_bias=_randn(gen, HV)),
        inputs=_gdn_inputs, wrong_decay=_bump_A_log),
    VariantCase(
        "kda", R.kda_step,
        dims=lambda H, HV, K, V: dict(H=H, HV=HV, K=K, V=V),
        params=lambda gen, H, HV, K, V: dict(A_log=_randn(gen, HV, std=0.5),
                                             dt_bias=_randn(gen, HV, K)),
        inputs=_kda_inputs, wrong_decay=_bump_A_log,
        # exp(A_log) x 12: about -1 to -40 per token and channel
        strong_decay=lambda params, inputs: (
            {**params, "A_log": params["A_log"] + 2.5} if params else params, inputs)),
    VariantCase(
        "gla", R.gla_step,
        dims=lambda H, HV, K, V: dict(H=H, HV=HV, K=K, V=V),
        params=lambda gen, H, HV, K, V: {},
        inputs=_gla_inputs,
        # GLA has no parameters: the same mistake shows as a shifted gate logit
        wrong_decay=lambda params, inputs: (params, {**inputs, "gk": inputs["gk"] + 0.5}),
        # logsigmoid(gk) / 16 at gk ~ -600: about -37 per token and channel
        strong_decay=lambda params, inputs: (
            params, {**inputs, "gk": inputs["gk"] - 600.0} if inputs else inputs)),
)}


def _deltanet_inputs(gen, rows, H, HV, K, V, optional=()):
    return dict(q=_randn(gen, rows, H, K), k=_randn(gen, rows, H, K), v=_randn(gen, rows, HV, V),
                b=_randn(gen, rows, HV))


# Fixture specs (tests/fixtures/*.toml): variants that no shipped spec uses, so that every
# generator branch is rendered and run (DeltaNet: decay = "none").
FIXTURE_DIR = Path(__file__).resolve().parent / "fixtures"
FIXTURES: dict[str, VariantCase] = {c.name: c for c in (
    VariantCase(
        "deltanet", R.deltanet_step,
        dims=lambda H, HV, K, V: dict(H=H, HV=HV, K=K, V=V),
        params=lambda gen, H, HV, K, V: {}, inputs=_deltanet_inputs),
)}
ALL_CASES = {**VARIANTS, **FIXTURES}


def load_case(variant: str, **options):
    """`replaygen.load` for a shipped spec or a fixture, by name."""
    import replaygen
    if variant in FIXTURES:
        return replaygen.load(FIXTURE_DIR / f"{variant}.toml", **options)
    return replaygen.load(variant, **options)


# -- tolerances ----------------------------------------------------------------------
# Unit roundoff of one stored element. bf16 uses 2^-7, not 2^-8: the Triton interpreter
# casts fp32 -> bf16 by truncation, whose error is below one ulp (2^-7 relative) rather
# than half of one. fp32 storage adds nothing beyond the arithmetic term below.
# Stochastic rounding ("sr") moves a value to either neighbour: its error is below one
# ulp (2^-10 for fp16, 2^-7 for bf16), not half of one; unbiased, so in practice errors
# grow like the square root of the roundings, but the bound here is the linear one.
UNIT_ROUNDOFF = {"fp32": 0.0, "bf16": 2.0 ** -7, "fp16": 2.0 ** -11,
                 "fp16sr": 2.0 ** -10, "bf16sr": 2.0 ** -7}
# Quantised copies (fp8 e4m3 with scales, NVFP4): normwise relative error of one
# quantisation of a state. fp8: every element within half an e4m3 ulp, 2^-4 of itself,
# or (below 2^-6 of its group's maximum, e4m3's subnormals) within 2^-10 of that maximum:
# normwise <= 2^-4. NVFP4: an element is within half an e2m1 step of itself, 1/4 of it
# above 1 (steps 0.5, 1, 2 over 1..6) but up to 1/2 near 0.5, times the e4m3 block
# scale's own error (2^-4); below a quarter of the block scale it rounds to zero. For
# the N(0, 1) states and records of these tests that is <= 1/8 normwise on average
# (measured 0.09 for the quantisation itself: tests/test_formats.py); 1/4 leaves room
# for one-row statistics. These are not multiplied by C_TOL: they are bounds already.
U_QUANT = {"fp8": 2.0 ** -4, "nvfp4": 2.0 ** -2}
# fp32 arithmetic of one decode (reductions over K and the ring, exp/log of gates):
# a few ulps of 2^-24 each, a few dozen operations deep.
ARITH = 2.0 ** -17
# Roundings in one replayed term w_j ((exp(G_t - G_j) k_j) . q): a stored written value
# (Mamba-2: delta and x, two), a stored key and a sum of stored log decays.
RECORD_ROUNDINGS = 3
# The safety factor: the worst error measured is 1/3 of the tolerance (see `tolerance`).
C_TOL = 4.0


def tolerance(*, out: str | None = None, records: str | None = None, state: str | None = None,
              roundings: int = 0, read: str | None = None) -> float:
    """Bound on the normwise relative error ||x - x_ref|| / max(||x_ref||, floor) of one
    row's output (all its value heads) or one slot's state (`Scale` gives the floor).

    Derivation. The reference is float64 and sees exactly the numbers the kernel sees:
    inputs are rounded to the input dtype *before* they are upcast for the reference,
    and initial states are rounded to the state dtype before the reference starts from
    them, so neither rounding is an error. What remains:

    * fp32 arithmetic in the kernels: ARITH = 2^-17 (~7.6e-6) per state generation;
    * the output is stored in the input dtype (`out`): u_out, once;
    * records are stored in the record dtype (`records`): each replayed term carries
      RECORD_ROUNDINGS = 3 roundings (value, key, gates), u_rec each, per generation;
    * the checkpoint is rounded to the state dtype at every flush (`state`): u_state per
      generation. `roundings` counts the roundings of the state being checked since the
      reference last agreed with it exactly (flushes; for the conventional pool in a
      low-precision state, its steps): what one generation gets wrong the next carries
      on, so the bound grows linearly with them.

        tol = c * (u_out + (ARITH + 3 u_rec + u_state) * (1 + roundings)),    c = 4

    with u = 0 for fp32, 2^-11 for fp16 and 2^-7 for bf16 (truncating casts in the
    interpreter; a GPU rounds to nearest, 2^-8, so there the bound is 2x looser).

    Measured (REPLAYGEN_ERRLOG=file logs every check; ratio = error / tol at c = 1):
    * Triton interpreter, 240 Hypothesis examples of test_replay_decode_matches_reference
      (all five variants, every dtype combination, 18,156 checks): worst ratio 0.80
      (outputs), 0.39 (states); with fp32 everywhere 0.05. Errors: fp32 everywhere
      <= 4.6e-7 (outputs) and 2e-7 (states); bf16 records <= 1.05e-2; bf16 checkpoints
      <= 9.4e-3; bf16 inputs and outputs <= 6.2e-3; fp16 checkpoints <= 4e-4.
    * Interpreter, single-element rows (HV = V = 1, where outputs cancel; ~20,000
      checks): worst ratio 1.36 (outputs), 0.56 (states).
    * H200, compiled (180 examples and the real geometries, 26,000 checks): worst ratio
      0.63; real geometries 0.24; bf16 records <= 4.4e-3 (round to nearest).
    So c = 4 puts the worst error seen at 1/3 of the tolerance (1/5 on typical draws),
    while the broken kernels of test_mutations.py exceed it by 400x to 18000x (fp32).

    Quantised formats (U_QUANT) add their bound directly: a quantised checkpoint
    (`state` fp8 / nvfp4) U_QUANT[state] per rounding (load-time quantisation is no
    error: the reference starts from the dequantised state); a read copy (`read`)
    U_QUANT[read] once: outputs of non-flush steps read it, and a delta rule's written
    value u is computed from it (then folded into the checkpoint, where later delta
    updates along the same keys overwrite it: the error does not accumulate).
    """
    u = UNIT_ROUNDOFF
    quant = U_QUANT.get(state, 0.0)
    per_gen = (ARITH + RECORD_ROUNDINGS * (u[records] if records else 0.0)
               + (u[state] if state and not quant else 0.0))
    return (C_TOL * ((u[out] if out else 0.0) + per_gen * (1 + roundings))
            + quant * roundings + (U_QUANT[read] if read else 0.0))


def rel_err(actual: torch.Tensor, ref: torch.Tensor, floor: float = 0.0) -> float:
    """||actual - ref|| / max(||ref||, floor) in float64; NaN or inf in `actual` gives inf."""
    a = actual.detach().to(device=ref.device, dtype=torch.float64)
    if not torch.isfinite(a).all():
        return float("inf")
    return (a - ref).norm().item() / max(ref.norm().item(), floor, 1e-30)


class Scale:
    """Running root-mean-square of a quantity's reference values (all rows or slots
    checked so far in one run): the floor of the normwise denominator. A row of one or
    two elements can cancel to nearly zero, where a relative error means nothing; its
    error is then measured against the typical size of that quantity instead."""

    def __init__(self):
        self.sumsq, self.count = 0.0, 0

    def add(self, ref: torch.Tensor):
        self.sumsq += float((ref.double() ** 2).sum())
        self.count += ref.numel()

    def floor(self, ref: torch.Tensor) -> float:
        return (self.sumsq / max(self.count, 1) * ref.numel()) ** 0.5


class ErrorLog:
    """Optional record of error/tolerance ratios (REPLAYGEN_ERRLOG=path, JSON lines):
    how the constants above were measured."""

    def __init__(self):
        self.path = os.environ.get("REPLAYGEN_ERRLOG")

    def write(self, **row):
        if self.path:
            with open(self.path, "a") as fh:
                fh.write(json.dumps(row) + "\n")


ERRLOG = ErrorLog()


def check(what: str, actual: torch.Tensor, ref: torch.Tensor, tol: float, floor: float = 0.0,
          log: dict | None = None) -> float:
    """Assert ||actual - ref|| <= tol * max(||ref||, floor): the one comparison every
    correctness test (and every mutation test) goes through."""
    err = rel_err(actual, ref, floor)
    if log is not None:
        ERRLOG.write(what=what, err=err, ratio=err * C_TOL / tol,
                     test=os.environ.get("PYTEST_CURRENT_TEST", ""), **log)
    assert err <= tol, f"{what}: normwise relative error {err:.3e} > tolerance {tol:.3e}"
    return err


def same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Bitwise equality (NaN == NaN with the same payload; +0 != -0)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.is_floating_point:
        int_type = {8: torch.int64, 4: torch.int32, 2: torch.int16, 1: torch.int8}[a.element_size()]
        return torch.equal(a.view(int_type), b.view(int_type))
    return torch.equal(a, b)


# -- driving a pool ------------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    """One kernel configuration under test, in the roles' names: H key heads, H * ratio
    value heads, key dim K, value dim V, ring length L, and the three precisions."""

    variant: str
    H: int
    ratio: int
    K: int
    V: int
    L: int
    state_dtype: str
    record_dtype: str
    input_dtype: str
    optional: tuple[str, ...] = ()
    strided: bool = False           # inputs and out with a padded batch stride
    stochastic: bool = False        # fp16/bf16 checkpoint with stochastic rounding
    read_dtype: str | None = None   # fp8 / nvfp4 read copy
    fp8_scale: str | None = None
    record_dtypes: tuple[tuple[str, str], ...] = ()   # per-field record precisions
    max_drafts: int = 1             # T_MAX of speculative verification
    gate_records: str | None = None       # "step" / "cumulative"; None: the plan's choice
    decode_structure: str | None = None   # "kchunks" / "vtiles"; None: the plan's choice
    verify_folds: bool = False      # a verify folds the rows it would take past L records

    @property
    def HV(self) -> int:
        return self.H * self.ratio

    @property
    def state_key(self) -> str:
        """The checkpoint's entry in UNIT_ROUNDOFF / U_QUANT."""
        return self.state_dtype + ("sr" if self.stochastic else "")

    @property
    def quantized(self) -> str | None:
        return self.state_dtype if self.state_dtype in U_QUANT else self.read_dtype

    @property
    def case(self) -> VariantCase:
        return ALL_CASES[self.variant]

    def load(self):
        dims = self.case.dims(self.H, self.HV, self.K, self.V)
        return load_case(self.variant, L=self.L, state_dtype=self.state_dtype,
                         record_dtype=self.record_dtype, max_drafts=self.max_drafts,
                         gate_records=self.gate_records, decode_structure=self.decode_structure,
                         verify_folds=self.verify_folds, **self.precision, **dims)

    @property
    def precision(self) -> dict:
        return dict(stochastic=self.stochastic, read_dtype=self.read_dtype,
                    fp8_scale=self.fp8_scale, record_dtypes=dict(self.record_dtypes))


@dataclass(frozen=True)
class Step:
    rows: tuple[int, ...]                 # slot of each batch row; -1 is padding
    flush: tuple[int, ...] | None = None  # explicit flush after the decode (may hold -1)
    reload: int | None = None             # slot given a fresh state before the decode
    fold: bool = False                    # decode(fold_every_step=True): every row folds


def snapshot(state) -> dict:
    """Every state tensor; "aux" holds the precision configuration's (read copy, scales,
    flush counters), keyed as in ReplayState.aux."""
    return dict(checkpoint=state.checkpoint.clone(), cursor=state.cursor.clone(),
                drafted=state.drafted.clone(), ring={n: t.clone() for n, t in state.ring.items()},
                aux={n: t.clone() for n, t in state.aux.items()})


def restore(state, saved) -> None:
    """Put a snapshot's tensors back into the pool (its inverse: the same state again)."""
    for name in ("checkpoint", "cursor", "drafted"):
        getattr(state, name).copy_(saved[name])
    for group in ("ring", "aux"):
        for n, t in getattr(state, group).items():
            t.copy_(saved[group][n])


def aux_changed(state, before, slot) -> list[str]:
    """Names of the aux tensors of `slot` that differ (bitwise) from a snapshot's."""
    return [n for n, t in state.aux.items() if not same_bits(t[slot], before["aux"][n][slot])]


@dataclass
class Harness:
    """One pool of `num_slots` slots on `device`, its reference and a conventional pool.

    Every public method performs one operation and checks everything observable after it.
    """

    cfg: Config
    num_slots: int
    device: str
    seed: int = 0
    check_conventional: bool = True
    # test_mutations only: what the reference is told, (params, inputs) -> (params, inputs)
    reference_mutation: Callable[[dict, dict], tuple[dict, dict]] | None = None
    # verify/commit in use: committed drafts are folded from records even when L = 1
    speculative: bool = False
    # the variant's strong per-channel decays (VariantCase.strong_decay), kernel and reference
    strong_decay: bool = False
    kern: object = field(init=False)

    def __post_init__(self):
        c = self.cfg
        self.kern = c.load()
        self.gen = torch.Generator().manual_seed(self.seed)
        params = c.case.params(self.gen, c.H, c.HV, c.K, c.V)
        if self.strong_decay:
            params = c.case.strong_decay(params, {})[0]
        self.params = {n: t.to(self.device) for n, t in params.items()}
        self.params64 = {n: t.double() for n, t in self.params.items()}
        self.state = self.kern.new_state(self.num_slots, self.device, **self.params)
        # the conventional pool: the checkpoint's precision, fp32 for a quantised one
        self.sdt = TORCH_DTYPES.get(c.state_dtype, torch.float32)
        self.idt = TORCH_DTYPES[c.input_dtype]
        self.ref = torch.zeros((self.num_slots,) + self.kern.state_shape, dtype=torch.float64,
                               device=self.device)
        self.pool = torch.zeros((self.num_slots,) + self.kern.state_shape, dtype=self.sdt,
                                device=self.device)
        self.cursor = [0] * self.num_slots        # committed records, as the protocol says
        self.roundings = [0] * self.num_slots     # checkpoint roundings since the last load
        self.conv_roundings = [0] * self.num_slots
        self.steps_done = 0
        self.device_flushes = 0       # rows that flushed inside a decode launch
        self.mixed_launches = 0       # launches whose rows sat at different ring positions
        self.out_scale, self.state_scale = Scale(), Scale()
        self.load(list(range(self.num_slots)))

    # -- helpers ---------------------------------------------------------------------
    def _slots(self, rows) -> torch.Tensor:
        return torch.tensor(list(rows), dtype=torch.int32, device=self.device)

    def _log(self, kind, ref):
        if not ERRLOG.path:
            return None
        c = self.cfg
        return dict(kind=kind, variant=c.variant, state=c.state_dtype, records=c.record_dtype,
                    inputs=c.input_dtype, L=c.L, K=c.K, V=c.V, HV=c.HV,
                    rms=ref.norm().item() / ref.numel() ** 0.5)

    def tol_state(self, slot) -> float:
        c = self.cfg
        rec = c.record_dtype if c.L > 1 or self.speculative else None
        # a read copy reaches the state only through a delta rule's written value
        read = c.read_dtype if self.kern.plan.delta_rule else None
        return tolerance(records=rec, state=c.state_key, roundings=self.roundings[slot],
                         read=read)

    def tol_out(self, slot) -> float:
        c = self.cfg
        rec = c.record_dtype if c.L > 1 or self.speculative else None
        return tolerance(out=c.input_dtype, records=rec, state=c.state_key,
                         roundings=self.roundings[slot], read=c.read_dtype)

    def tol_conv(self, slot, out=True) -> float:
        c = self.cfg   # the conventional pool is plain and rounded to nearest
        return tolerance(out=c.input_dtype if out else None,
                         state=c.state_dtype if c.state_dtype in TORCH_DTYPES else "fp32",
                         roundings=self.conv_roundings[slot])

    def quantized_reference(self, S: torch.Tensor) -> tuple[dict, torch.Tensor]:
        """The reference quantisation of full states S [n, HV, V, K] in the configuration's
        quantised format (aux names without the prefix) and its dequantised value."""
        c, p = self.cfg, self.kern.plan
        fmt = c.quantized
        parts = FR.quantize(S.float().cpu(), fmt, p.quantized.scale, p.BV, p.BK)
        return parts, FR.dequantize(parts, fmt, p.quantized.scale, p.K, p.BV).to(S.device)

    def check_quantized(self, where: str, slots: list[int], S: torch.Tensor):
        """The quantised copy of `slots` is bit for bit the reference quantisation of S
        (e4m3 values as their bytes: formats.to_e4m3 keeps the sign of zero, as torch's
        cast, the reference, does)."""
        fmt = self.kern.plan.quantized
        parts, _ = self.quantized_reference(S)
        if fmt.prefix == "read":   # (in row order, whatever the copy's storage layout)
            tensors = self.kern.read_copy(self.state)
        else:
            tensors = {"": self.state.checkpoint, **{k[len(fmt.prefix):]: t for k, t in
                                                     self.state.aux.items() if k.startswith(fmt.prefix)}}
        idx = torch.tensor(slots, device=self.device)
        for suffix, ref in parts.items():
            got = tensors[suffix][idx].cpu()
            if got.dtype == torch.float8_e4m3fn:
                got, ref = got.view(torch.uint8), ref.view(torch.uint8)
            assert torch.equal(got, ref), f"{where}: {fmt.prefix}{suffix} differs from the reference quantisation"

    def make_inputs(self, rows: int) -> tuple[dict, dict]:
        """Fresh inputs in the input dtype (on the device, maybe batch-strided) and the
        same numbers in float64 for the reference."""
        c = self.cfg
        raw = c.case.inputs(self.gen, rows, c.H, c.HV, c.K, c.V, c.optional)
        if self.strong_decay:
            raw = c.case.strong_decay({}, raw)[1]
        dev, ref = {}, {}
        for n, t in raw.items():
            t = t.to(self.idt)
            ref[n] = t.double().to(self.device)
            if c.strided:   # a view whose batch stride skips a row: inner dims contiguous
                wide = torch.full((2 * rows,) + tuple(t.shape[1:]), float("nan"), dtype=self.idt)
                wide[::2] = t
                dev[n] = wide.to(self.device)[::2]
            else:
                dev[n] = t.to(self.device)
        return dev, ref

    def poisoned_out(self, rows: int) -> torch.Tensor:
        shape = (rows, self.kern.plan.HV, self.kern.plan.V)
        if self.cfg.strided:
            wide = torch.full((2 * rows,) + shape[1:], float("nan"), dtype=self.idt,
                              device=self.device)
            return wide[::2]
        return torch.full(shape, float("nan"), dtype=self.idt, device=self.device)

    def all_slots(self) -> torch.Tensor:
        return self._slots(range(self.num_slots))

    # -- operations ------------------------------------------------------------------
    def load(self, slots: list[int]):
        S = torch.randn((len(slots),) + self.kern.state_shape, generator=self.gen) * 0.5
        S = S.to(self.device)
        self.kern.load_state(self.state, self._slots(slots), S)
        rounded = S.to(self.sdt)
        if self.kern.plan.quantized is not None:
            self.check_quantized("load_state", slots, S)
            if self.kern.plan.read is None:   # a quantised checkpoint: start from it
                rounded = self.quantized_reference(S)[1]
        for i, s in enumerate(slots):
            # the reference starts from the rounded state: load-time rounding is no error
            self.ref[s] = rounded[i].double()
            self.pool[s] = rounded[i]
            self.cursor[s] = 0
            self.roundings[s] = 0
            self.conv_roundings[s] = 0
        self.check_pool("after load_state", slots)

    def decode(self, rows: tuple[int, ...], fold: bool = False):
        """One decode launch for `rows` and every check that applies after it; `fold`
        asks every row to fold (the small-batch dispatch)."""
        kern, st = self.kern, self.state
        slots = self._slots(rows)
        before = snapshot(st)
        inputs, inputs64 = self.make_inputs(len(rows))
        out = self.poisoned_out(len(rows))
        ret = kern.decode(st, slots, out=out, fold_every_step=fold, **inputs)
        assert ret is out or ret.data_ptr() == out.data_ptr(), "decode did not write into out="
        # the fold launch after a separate flush empties the queue the decode filled
        assert st.fold_queue[:2].tolist() == [0, 0], f"fold queue left {st.fold_queue[:2].tolist()}"
        conv = None
        if self.check_conventional:
            conv = self.poisoned_out(len(rows))
            kern.conventional_decode(self.pool, slots, out=conv, **inputs, **self.params)
        where = f"step {self.steps_done}"
        present = [s for s in rows if s >= 0]
        # a one-pass flush (Launch.onepass_flush; not when every row folds) leaves the
        # token's record at ring row 0: cursor 1
        onepass = bool(kern.launch_args("replay_decode", len(rows), self.device)[0]["ONEPASS_FLUSH"]
                       and not fold)
        flushed_now = set()
        if len({self.cursor[s] for s in present}) > 1:
            self.mixed_launches += 1
        for r, s in enumerate(rows):
            if s < 0:
                assert bool((out[r] == 0).all()), f"{where}: padding row {r} output is not zero"
                if conv is not None:
                    assert bool((conv[r] == 0).all()), \
                        f"{where}: conventional padding row {r} output is not zero"
                continue
            row_inputs, row_params = {n: t[r] for n, t in inputs64.items()}, self.params64
            if self.reference_mutation is not None:
                row_params, row_inputs = self.reference_mutation(row_params, row_inputs)
            S_new, o_ref = self.cfg.case.step(self.ref[s], **row_inputs, **row_params)
            self.ref[s] = S_new
            self.out_scale.add(o_ref)
            floor = self.out_scale.floor(o_ref)
            flushed = fold or self.cursor[s] + 1 >= self.cfg.L
            check(f"{where}: output of row {r} (slot {s}, ring position {self.cursor[s]})",
                  out[r], o_ref, self.tol_out(s), floor, self._log("out", o_ref))
            if conv is not None:
                if self.sdt != torch.float32:
                    self.conv_roundings[s] += 1
                check(f"{where}: conventional output of row {r} (slot {s})",
                      conv[r], o_ref, self.tol_conv(s), floor, self._log("conv_out", o_ref))
            if flushed:
                self.cursor[s] = 1 if onepass else 0
                self.roundings[s] += 1
                self.device_flushes += 1
                flushed_now.add(s)
            else:
                self.cursor[s] += 1
        # What must not change: slots outside the batch are untouched; inside it, the
        # checkpoint changes only on a flush and committed records never change.
        for s in range(self.num_slots):
            ring_now = {n: t[s] for n, t in st.ring.items()}
            ring_then = {n: t[s] for n, t in before["ring"].items()}
            if s not in present:
                assert same_bits(st.checkpoint[s], before["checkpoint"][s]), \
                    f"{where}: checkpoint of slot {s} (not in the batch) changed"
                assert same_bits(st.cursor[s], before["cursor"][s]), \
                    f"{where}: cursor of slot {s} (not in the batch) changed"
                for n in ring_now:
                    assert same_bits(ring_now[n], ring_then[n]), \
                        f"{where}: ring '{n}' of slot {s} (not in the batch) changed"
                assert not aux_changed(st, before, s), \
                    f"{where}: {aux_changed(st, before, s)} of slot {s} (not in the batch) changed"
                continue
            n_before = int(before["cursor"][s].flatten()[0])
            if s not in flushed_now:   # no flush: new record at n_before, nothing else
                assert same_bits(st.checkpoint[s], before["checkpoint"][s]), \
                    f"{where}: checkpoint of slot {s} changed without a flush"
                assert not aux_changed(st, before, s), \
                    f"{where}: {aux_changed(st, before, s)} of slot {s} changed without a flush"
                for n in ring_now:
                    keep = [i for i in range(self.cfg.L) if i != n_before]
                    assert same_bits(ring_now[n][:, keep], ring_then[n][:, keep]), \
                        f"{where}: ring '{n}' of slot {s} changed outside row {n_before}"
            else:
                # a flush stores no record; but a decode launch that leaves the fold to a
                # second launch (Launch.separate_flush) appends the token's record at row
                # n_before first, and the fold reads it there; a one-pass flush stores it
                # at row 0, the fresh window's first
                fused = kern.launch_args("replay_decode", len(rows), self.device)[0]["FUSED_FLUSH"]
                changed = 0 if onepass else (None if fused else n_before)
                keep = [i for i in range(self.cfg.L) if i != changed]
                for n in ring_now:
                    assert same_bits(ring_now[n][:, keep], ring_then[n][:, keep]), \
                        f"{where}: ring '{n}' of slot {s} changed during a flush"
        self.steps_done += 1
        # the other slots' states are bit for bit as they were (checked above): so are
        # their materialised states, checked after the operation that last changed them
        self.check_pool(where, present)

    def flush(self, rows: tuple[int, ...]):
        """An explicit flush: the states must not change (beyond one rounding to the
        state dtype), flushed cursors go to zero, nothing else changes."""
        kern, st = self.kern, self.state
        where = f"flush after step {self.steps_done - 1}"
        M_before = kern.materialize(st, self.all_slots()).clone()
        before = snapshot(st)
        kern.flush(st, self._slots(rows))
        flushed = [s for s in range(self.num_slots) if s in rows and self.cursor[s] > 0]
        for s in flushed:   # the protocol: cursor 0, one more rounding of the checkpoint
            self.cursor[s] = 0
            self.roundings[s] += 1
        M_after = self.check_pool(where)   # (cursors and the reference as the protocol says)
        c = self.cfg
        u = U_QUANT[c.state_dtype] / 2 if c.state_dtype in U_QUANT else (
            UNIT_ROUNDOFF[c.state_key] or 2.0 ** -23)
        for s in range(self.num_slots):
            if s in flushed:
                check(f"{where}: materialised state of slot {s}, flush vs before",
                      M_after[s], M_before[s].double(), 2 * u,
                      self.state_scale.floor(M_before[s]))
            else:   # not flushed, or an empty ring: nothing may change at all
                assert same_bits(st.checkpoint[s], before["checkpoint"][s]), \
                    f"{where}: checkpoint of slot {s} changed"
                assert same_bits(st.cursor[s], before["cursor"][s]), \
                    f"{where}: cursor of slot {s} changed"
                assert same_bits(M_after[s], M_before[s]), \
                    f"{where}: materialised state of slot {s} changed"
                assert not aux_changed(st, before, s), \
                    f"{where}: {aux_changed(st, before, s)} of slot {s} changed"
            for n in st.ring:   # a flush reads the records; it never rewrites them
                assert same_bits(st.ring[n][s], before["ring"][n][s]), \
                    f"{where}: ring '{n}' of slot {s} changed"

    def check_pool(self, where: str, slots=None) -> torch.Tensor:
        """Materialise `slots` (default: every slot; with a padding row) and compare with
        the reference; materialize itself must change nothing, bit for bit; every cursor
        follows the protocol and the conventional pool matches. Returns the materialised
        states, indexed by slot (rows of slots not materialised are NaN)."""
        kern, st = self.kern, self.state
        before = snapshot(st)
        slots = sorted(set(range(self.num_slots) if slots is None else slots))
        rows = slots + [-1]
        M = torch.full((len(rows),) + self.kern.state_shape, float("nan"), dtype=torch.float32,
                       device=self.device)
        kern.materialize(st, self._slots(rows), out=M)
        assert same_bits(st.checkpoint, before["checkpoint"]), f"{where}: materialize wrote a checkpoint"
        assert same_bits(st.cursor, before["cursor"]), f"{where}: materialize wrote a cursor"
        for n in st.ring:
            assert same_bits(st.ring[n], before["ring"][n]), f"{where}: materialize wrote ring '{n}'"
        for n in st.aux:
            assert same_bits(st.aux[n], before["aux"][n]), f"{where}: materialize wrote '{n}'"
        if self.kern.plan.read is not None and self.cfg.state_dtype == "fp32" and slots:
            # the read copy is the quantisation of the fp32 fold the checkpoint holds
            self.check_quantized(where, slots, st.checkpoint[torch.tensor(slots, device=self.device)])
        assert bool((M[-1] == 0).all()), f"{where}: materialize of a padding row is not zero"
        for s in range(self.num_slots):
            self.state_scale.add(self.ref[s])
        by_slot = torch.full((self.num_slots,) + self.kern.state_shape, float("nan"),
                             dtype=torch.float32, device=self.device)
        by_slot[torch.tensor(slots, dtype=torch.long, device=self.device)] = M[:-1]
        for s in range(self.num_slots):
            assert bool((st.cursor[s] == self.cursor[s]).all()), (
                f"{where}: cursor of slot {s} is {st.cursor[s].flatten().tolist()}, "
                f"expected {self.cursor[s]}")
            floor = self.state_scale.floor(self.ref[s])
            if s in slots:
                check(f"{where}: materialised state of slot {s}", by_slot[s], self.ref[s],
                      self.tol_state(s), floor, self._log("state", self.ref[s]))
            if self.check_conventional:
                check(f"{where}: conventional pool state of slot {s}", self.pool[s], self.ref[s],
                      self.tol_conv(s, out=False), floor, self._log("conv_state", self.ref[s]))
        return by_slot

    def run(self, schedule: list[Step]):
        for step in schedule:
            if step.reload is not None:
                self.load([step.reload])
            self.decode(step.rows, step.fold)
            if step.flush is not None:
                self.flush(step.flush)
