"""The bytes-moved-per-token model of one configuration, in sympy.

Input: a `KernelPlan` (geometry, ring layout, per-token inputs, precisions) and the byte
size of an input element (default 2: bf16 activations).
Output: a frozen `Traffic`: symbolic DRAM bytes per token and sequence over H, HV, K, V,
L, n (committed records) and s, r, i (bytes of a state, record and input element),
with the plan's numbers to evaluate them.
Invariants: a ReplaySSM flush cycle is L tokens: L-1 steps that each write one record
(n = 0 .. L-2), then a flush step (n = L-1) that writes the checkpoint instead; the
amortised cost is the mean over that cycle. Layer parameters (shared by the whole
batch, so cached) and the int32 cursors are left out. With records and inputs
neglected, conventional / amortised is exactly 2/(1 + 1/L) (`check_cap` proves it).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import sympy

from .errors import ConfigError
from .plan import DTYPE_BYTES, KernelPlan

H, HV, K, V, L = sympy.symbols("H HV K V L", positive=True, integer=True)
n = sympy.Symbol("n", nonnegative=True, integer=True)
s, r, i = sympy.symbols("s r i", positive=True)   # bytes of a state / record / input element

HEADS = {"key": H, "value": HV, "none": sympy.Integer(1)}
WIDTH = {"scalar": sympy.Integer(1), "K": K, "V": V}


def per_token(head: str, axis: str, element_bytes: sympy.Expr) -> sympy.Expr:
    """Bytes of one per-token tensor: one entry per head (key fields are shared by the
    value heads of a group, so they count H times, not HV times)."""
    return HEADS[head] * WIDTH[axis] * element_bytes


# The cycle algebra is done on three aggregates, so each formula also reads plainly.
STATE, RECORD, IO = sympy.symbols("state record io", positive=True)
STEP = STATE + (n + 1) * RECORD + IO          # read checkpoint + n records, write 1 record
FLUSH = 2 * STATE + n * RECORD                # read checkpoint + n records, write checkpoint
FLUSH_STEP = FLUSH.subs(n, L - 1) + IO
AMORTISED = sympy.collect(sympy.expand(
    (sympy.summation(STEP, (n, 0, L - 2)) + FLUSH_STEP) / L), [STATE, RECORD, IO], sympy.factor)
CONVENTIONAL = 2 * STATE + IO                 # read + write the whole state
CYCLE = {"conventional": CONVENTIONAL, "step": STEP, "flush_step": FLUSH_STEP,
         "amortised": AMORTISED, "flush": FLUSH,
         "speedup_cap": sympy.simplify(CONVENTIONAL / AMORTISED)}


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
    cycle: ClassVar[dict[str, sympy.Expr]] = CYCLE

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


def model(record_fields, input_fields) -> Traffic:
    """The symbolic model for ring fields (name, head, axis) and inputs (head, axis)."""
    fields = tuple((name, per_token(head, axis, r)) for name, head, axis in record_fields)
    record = sympy.Add(*(b for _, b in fields))
    inputs = sympy.Add(*(per_token(head, axis, i) for head, axis in input_fields))
    outputs = HV * V * i
    state = HV * V * K * s
    parts = {STATE: state, RECORD: record, IO: inputs + outputs}
    full = {name: formula.xreplace(parts) for name, formula in CYCLE.items()}
    return Traffic(fields, record, inputs, outputs, state, **full)


def traffic(plan: KernelPlan, input_bytes: int = 2, include_optional: bool = False) -> Traffic:
    """The model of `plan`, with its numbers; optional inputs count only when asked."""
    if isinstance(input_bytes, bool) or not isinstance(input_bytes, int) or input_bytes < 1:
        raise ConfigError(f"input_bytes must be a positive integer, got {input_bytes!r}")
    t = model([(f.name, f.head, f.axis) for f in plan.ring],
              [(q.head, q.axis) for q in plan.inputs if include_optional or not q.optional])
    numbers = {H: plan.H, HV: plan.HV, K: plan.K, V: plan.V, L: plan.L,
               s: DTYPE_BYTES[plan.state_dtype], r: DTYPE_BYTES[plan.record_dtype],
               i: input_bytes}
    return Traffic(**{**t.__dict__, "numbers": tuple(numbers.items())})


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
