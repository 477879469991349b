"""The bytes-moved-per-token model of one configuration, in sympy.

Input: a `KernelPlan` (geometry, ring layout, per-token inputs, precisions) and the byte
size of an input element (default 2: bf16 activations).
Output: a frozen `Traffic`: symbolic DRAM bytes per token and sequence over H, HV, K, V,
L, n (committed records) and s, r, i (bytes of a state, record and input element),
with the plan's numbers to evaluate them.
Invariants: a ReplaySSM flush cycle is L tokens: L-1 steps that each write one record
(n = 0 .. L-2), then a flush step (n = L-1) that writes the checkpoint instead; the
amortised cost is the mean over that cycle. With a read copy (COPY bytes) every step
reads the copy (the flush step too: its first tile is issued before the cursor says
it flushes), the flush step also reads the checkpoint, and writes both. Layer parameters (shared by the whole
batch, so cached) and the int32 cursors are left out. With records and inputs
neglected, conventional / amortised is exactly 2/(1 + 1/L) (`check_cap` proves it).
"""
from __future__ import annotations

from dataclasses import dataclass
import sympy

from .errors import ConfigError
from .plan import DTYPE_BYTES, KernelPlan, StateFormat

H, HV, K, V, L, BV = sympy.symbols("H HV K V L BV", positive=True, integer=True)
n = sympy.Symbol("n", nonnegative=True, integer=True)
s, r, i = sympy.symbols("s r i", positive=True)   # bytes of a state / record / input element

HEADS = {"key": H, "value": HV, "none": sympy.Integer(1)}
WIDTH = {"scalar": sympy.Integer(1), "K": K, "V": V}


def per_token(head: str, axis: str, element_bytes: sympy.Expr) -> sympy.Expr:
    """Bytes of one per-token tensor: one entry per head (key fields are shared by the
    value heads of a group, so they count H times, not HV times)."""
    return HEADS[head] * WIDTH[axis] * element_bytes


# The cycle algebra is done on three aggregates, so each formula also reads plainly.
STATE, RECORD, IO, COPY = sympy.symbols("state record io copy", positive=True)


def cycle(read_copy: bool) -> dict[str, sympy.Expr]:
    """The per-token formulas over the aggregates, without or with a read copy."""
    if read_copy:
        step = COPY + (n + 1) * RECORD + IO       # read the copy + n records, write 1 record
        flush = 2 * STATE + COPY + n * RECORD     # read checkpoint + records, write both copies
        flush_step = flush.subs(n, L - 1) + COPY + IO
    else:
        step = STATE + (n + 1) * RECORD + IO      # read checkpoint + n records, write 1 record
        flush = 2 * STATE + n * RECORD            # read checkpoint + n records, write checkpoint
        flush_step = flush.subs(n, L - 1) + IO
    amortised = sympy.collect(sympy.expand(
        (sympy.summation(step, (n, 0, L - 2)) + flush_step) / L),
        [STATE, RECORD, IO, COPY], sympy.factor)
    conventional = 2 * STATE + IO                 # read + write the whole state
    return {"conventional": conventional, "step": step, "flush_step": flush_step,
            "amortised": amortised, "flush": flush,
            "speedup_cap": sympy.simplify(conventional / amortised)}


CYCLE = cycle(False)


def format_bytes(fmt: StateFormat) -> sympy.Expr:
    """Bytes of one copy of the state in a format (replaygen/formats.py): values plus
    scales (fp8: fp32 per row, per column of a BV-row tile, or per tile; NVFP4: packed
    nibbles, an e4m3 byte per 16 K elements, fp32 per tile)."""
    tiles = sympy.ceiling(V / BV)
    if fmt.kind == "nvfp4":
        return HV * V * (K / 2 + K / 16) + 4 * HV * tiles
    if fmt.kind == "fp8":
        scales = {"row": HV * V, "col": HV * tiles * K, "tile": HV * tiles}[fmt.scale]
        return HV * V * K + 4 * scales
    return HV * V * K * s


@dataclass(frozen=True)
class Traffic:
    """Bytes per token and sequence; every formula is a sympy expression over the
    geometry symbols, and `cycle` holds the same formulas over state, record and io."""

    record_fields: tuple[tuple[str, sympy.Expr], ...]   # bytes per token of each ring field
    record: sympy.Expr         # one token's record, all fields
    inputs: sympy.Expr         # per-token inputs read
    outputs: sympy.Expr        # outputs written
    state: sympy.Expr          # one full state (or checkpoint)
    conventional: sympy.Expr   # read + write the state
    step: sympy.Expr           # non-flush ReplaySSM step with n committed records
    flush_step: sympy.Expr     # the step at n = L-1, which writes the checkpoint
    amortised: sympy.Expr      # mean over one flush cycle of L tokens
    flush: sympy.Expr          # a standalone flush of n records (no token)
    speedup_cap: sympy.Expr    # conventional / amortised
    numbers: tuple[tuple[sympy.Symbol, int], ...] = ()   # the plan's values of the symbols
    copy: sympy.Expr = sympy.Integer(0)   # the read copy (0: none)
    cycle: dict = None         # the same formulas over state, record, io and copy

    def evaluate(self, expr: sympy.Expr, committed: int | None = None) -> int | float:
        """`expr` at the plan's numbers (and n = committed): an int for byte counts."""
        subs = dict(self.numbers)
        if committed is not None:
            subs[n] = committed
        value = sympy.sympify(expr).subs(subs)
        if value.free_symbols:
            raise ValueError(f"{expr} still depends on {sorted(map(str, value.free_symbols))}")
        return int(value) if value.is_Integer else float(value)

    def summary(self) -> dict[str, int | float]:
        """The headline numbers; the non-flush steps only exist when L >= 2."""
        length = dict(self.numbers)[L]
        out = {"conventional": self.evaluate(self.conventional)}
        if length >= 2:
            out["step (n=0)"] = self.evaluate(self.step, 0)
            out[f"step (n={length - 2})"] = self.evaluate(self.step, length - 2)
        out["flush step"] = self.evaluate(self.flush_step)
        out["amortised"] = self.evaluate(self.amortised)
        return out


def model(record_fields, input_fields, state: sympy.Expr | None = None,
          copy: sympy.Expr | None = None) -> Traffic:
    """The symbolic model for ring fields (name, head, axis, element bytes; default r)
    and inputs (head, axis); `state` the checkpoint's bytes (default HV V K s), `copy`
    the read copy's (None: no read copy)."""
    fields = tuple((f[0], per_token(f[1], f[2], f[3] if len(f) > 3 else r))
                   for f in record_fields)
    record = sympy.Add(*(b for _, b in fields))
    inputs = sympy.Add(*(per_token(head, axis, i) for head, axis in input_fields))
    outputs = HV * V * i
    state = HV * V * K * s if state is None else state
    formulas = cycle(copy is not None)
    parts = {STATE: state, RECORD: record, IO: inputs + outputs, COPY: copy or 0}
    full = {name: formula.xreplace(parts) for name, formula in formulas.items()}
    return Traffic(fields, record, inputs, outputs, state, **full,
                   copy=copy if copy is not None else sympy.Integer(0), cycle=formulas)


def traffic(plan: KernelPlan, input_bytes: int = 2, include_optional: bool = False) -> Traffic:
    """The model of `plan`, with its numbers; optional inputs count only when asked."""
    if isinstance(input_bytes, bool) or not isinstance(input_bytes, int) or input_bytes < 1:
        raise ConfigError(f"input_bytes must be a positive integer, got {input_bytes!r}")
    t = model([(f.name, f.head, f.axis, DTYPE_BYTES[f.dtype]) for f in plan.ring],
              [(q.head, q.axis) for q in plan.inputs if include_optional or not q.optional],
              state=format_bytes(plan.ckpt),
              copy=format_bytes(plan.read) if plan.read else None)
    numbers = {H: plan.H, HV: plan.HV, K: plan.K, V: plan.V, L: plan.L, BV: plan.BV,
               s: DTYPE_BYTES.get(plan.state_dtype, 1), r: DTYPE_BYTES[plan.record_dtype],
               i: input_bytes}
    return Traffic(**{**t.__dict__, "numbers": tuple(numbers.items())})


T, M = sympy.symbols("T M", positive=True, integer=True)   # drafts per verify; L = M T


def speculative_cycle() -> dict[str, sympy.Expr]:
    """Bytes per speculative step of T drafts with every draft accepted (the measure of
    issue 3), over the aggregates state, record and io, plain checkpoint, L = M T.

    verify at n committed records reads the checkpoint once for all T drafts and the n
    records, writes the T drafts' records, reads T tokens' inputs and writes T outputs;
    commit moves cursors (free) and, at the step whose acceptance would take a row past
    CAP = L committed records, folds them (read the checkpoint and L + T records, write
    the checkpoint): the cycle's verifies run at n = 0, T, .., L (M + 1 steps). The
    conventional speculative step (vLLM-style snapshots) reads the state, writes one
    snapshot per draft and copies the accepted one into the slot (read + write).
    With verify_folds (load(..., verify_folds=True)) the verify at L committed records
    folds them while it reads the checkpoint: the cycle's verifies run at n = T .. L and
    the fold adds one state write."""
    verify = STATE + n * RECORD + T * RECORD + T * IO
    fold = 2 * STATE + (L + T) * RECORD
    m = sympy.Symbol("m", nonnegative=True, integer=True)
    cycle_total = sympy.summation(verify.subs(n, m * T), (m, 0, M)) + fold.subs(L, M * T)
    amortised = sympy.collect(sympy.expand(cycle_total / (M + 1)), [STATE, RECORD, IO], sympy.factor)
    cycle_vf = sympy.summation(verify.subs(n, m * T), (m, 1, M)) + STATE
    amortised_vf = sympy.collect(sympy.expand(cycle_vf / M), [STATE, RECORD, IO], sympy.factor)
    snapshots = STATE + T * STATE + 2 * STATE + T * IO
    decode = 2 * STATE + IO
    return {"verify": verify, "verify_amortised": amortised, "snapshots": snapshots,
            "conventional_decode": decode,
            "vs_decode": sympy.simplify(amortised / decode),
            "vs_snapshots": sympy.simplify(snapshots / amortised),
            "verify_folds_amortised": amortised_vf,
            "verify_folds_vs_decode": sympy.simplify(amortised_vf / decode)}


SPECULATIVE = speculative_cycle()


def speculative(t: Traffic, drafts: int, committed: int | None = None) -> dict[str, float]:
    """The speculative model of `t` at T = drafts (L must be a multiple of T, and T >= 2:
    the cycle is that of CAP = L, and a configuration of one draft keeps CAP = L - 1):
    bytes per step of T drafts and the two ratios the issue measures (verify+commit
    amortised / one conventional decode step; snapshot step / verify+commit amortised).
    With `committed` (n), also "verify": one verify's bytes at n committed records."""
    length = dict(t.numbers)[L]
    if drafts < 2:
        raise ConfigError(f"the speculative model needs T >= 2 drafts, got {drafts} (one "
                          f"draft is a decode-only configuration, CAP = L - 1)")
    if length % drafts:
        raise ConfigError(f"the speculative model needs L ({length}) to be a multiple of "
                          f"T ({drafts})")
    parts = {STATE: t.state, RECORD: t.record, IO: t.inputs + t.outputs,
             T: drafts, M: length // drafts, L: length}
    out = {name: t.evaluate(formula.xreplace(parts))
           for name, formula in SPECULATIVE.items() if name != "verify"}
    if committed is not None:
        out["verify"] = t.evaluate(SPECULATIVE["verify"].xreplace(parts), committed)
    return out


def check_speculative() -> None:
    """The closed form of the speculative cycle against summing it step by step; and the
    ratio with records and inputs neglected: (1 + 2/(M + 1)) / 2 of a decode step,
    (T + 3) / (1 + 2/(M + 1)) times fewer bytes than snapshots; with verify_folds
    (1 + 1/M) / 2 of a decode step. Raises AssertionError on a mismatch."""
    c = SPECULATIVE
    for drafts in range(1, 5):
        for steps in range(1, 5):
            # verifies at n = 0, T, .., steps T; the last commit folds (steps + 1) T records
            explicit = sum(c["verify"].subs({n: k * drafts, T: drafts}) for k in range(steps + 1))
            explicit += (2 * STATE + (steps + 1) * drafts * RECORD)
            closed = c["verify_amortised"].subs({T: drafts, M: steps})
            assert sympy.expand(explicit / (steps + 1) - closed) == 0, (drafts, steps)
            # verify_folds: verifies at n = T .. L, the last one folding (one state write)
            explicit = sum(c["verify"].subs({n: k * drafts, T: drafts}) for k in range(1, steps + 1))
            closed = c["verify_folds_amortised"].subs({T: drafts, M: steps})
            assert sympy.expand(explicit / steps + STATE / steps - closed) == 0, (drafts, steps)
    bare = {RECORD: 0, IO: 0}
    assert sympy.simplify(c["vs_decode"].subs(bare) - (1 + 2 / (M + 1)) / 2) == 0
    assert sympy.simplify(c["vs_snapshots"].subs(bare) - (T + 3) / (1 + 2 / (M + 1))) == 0
    assert sympy.simplify(c["verify_folds_vs_decode"].subs(bare) - (1 + 1 / M) / 2) == 0


def check_cap() -> sympy.Expr:
    """Prove the model against the known bound and against the explicit cycle; return
    the bound. Raises AssertionError on a mismatch."""
    t = model([("k", "key", "K"), ("u", "value", "V"), ("g", "value", "scalar")],
              [("key", "K"), ("value", "V"), ("value", "scalar")])
    cap = 2 / (1 + 1 / L)
    neglected = sympy.simplify(t.speedup_cap.subs({r: 0, i: 0}))
    assert sympy.simplify(neglected - cap) == 0, f"cap is {neglected}, expected {cap}"
    assert sympy.limit(neglected, L, sympy.oo) == 2
    # The closed-form sum agrees with summing the cycle token by token (L = 1: flush only).
    for length in range(1, 6):
        steps = [t.step.subs({n: c, L: length}) for c in range(length - 1)]
        explicit = (sympy.Add(*steps) + t.flush_step.subs(L, length)) / length
        assert sympy.expand(explicit - t.amortised.subs(L, length)) == 0, length
    return cap
