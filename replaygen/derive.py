"""Derive the replay form of a spec with sympy.

Input: a validated `Spec`. Output: a `Derivation`: the record each token stores, the
expressions that rebuild key, gate and written value from a record, and the symbolic
replay identities. (The bytes-moved-per-token model is in `traffic.py`.)
Invariants: a Derivation is only returned after
  * the replay form was proved equal to the step recurrence: symbolically per state
    entry for additive updates, and in exact rational arithmetic on small matrices for
    the spec's update rule (delta rules included) over a window of several tokens;
  * the gate was checked to be a log-decay (g <= 0) on random inputs, so every replay
    weight exp(G_t - G_j) is at most 1.
A failure raises `SpecError` naming the transition field.
"""
from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
import sympy

from .errors import SpecError
from .formulas import evaluate
from .spec import Quantity, Spec

WINDOW = 4  # tokens over which the replay identities are proved

# Symbols of the canonical replay form (docs, printing and checks).
G_t, G_j = sympy.symbols("G_t G_j")          # cumulative log decays at t and at record j
REPLAY_WEIGHT = sympy.exp(G_t - G_j)           # decay from record j to token t (<= 1)
CHECKPOINT_WEIGHT = sympy.exp(G_t)             # decay from the checkpoint to token t
# A verify's probes take several decays from the checkpoint side (to the checkpoint, to
# the committed end n). Each is the decay from n times a factor with no G_t in it (one
# value per key channel, not per probe), so a program takes one exp per probe element and
# a multiply per weight, not an exp per weight.
G_n = sympy.Symbol("G_n")
DRAFT_WEIGHT = REPLAY_WEIGHT.subs(G_j, G_n)          # exp(G_t - G_n)
# Its window scores (drafts against drafts) take the replay weight split at n: the probe
# factor is the probes' own decay to n, so that all pairs are one matrix product whose
# probe operand is the committed records' product's too (no tile of its own).
WINDOW_KEY_FACTOR = REPLAY_WEIGHT.subs(G_t, G_n)     # exp(G_n - G_j)
if sympy.simplify(DRAFT_WEIGHT * WINDOW_KEY_FACTOR - REPLAY_WEIGHT) != 0:
    raise AssertionError("the window's split replay weight is not the replay weight")


def _probe_factor(weight: sympy.Expr) -> sympy.Expr:
    factor = sympy.simplify(weight / DRAFT_WEIGHT)
    if G_t in factor.free_symbols or sympy.simplify(factor * DRAFT_WEIGHT - weight) != 0:
        raise AssertionError(f"{weight} is not the decay from n times a per-channel factor")
    return factor


PROBE_CHECKPOINT_FACTOR = _probe_factor(CHECKPOINT_WEIGHT)     # exp(G_n)


@dataclass(frozen=True)
class RecordField:
    """One field of a token's record, stored in the ring per head."""

    name: str
    head: str     # "key": one per key head (shared by its value heads); "value": per value head
    axis: str     # "scalar" | "K" | "V"


@dataclass(frozen=True)
class Derivation:
    spec: Spec
    fields: tuple[RecordField, ...]
    key: sympy.Expr              # key of a record, in record fields, params and dims
    gate: sympy.Expr | None      # log decay of a record
    value: sympy.Expr            # written value w_j of a record
    written_value_name: str      # name of the record field holding u (delta rule) or ""
    cumulative_gate: str         # the record field that may hold cumulative log decays
                                 # G_j instead of g_j (proved: _prove_cumulative_records), or ""
    replay_state: str            # the replay identities, for `replaygen show`
    replay_output: str

    def field(self, name: str) -> RecordField:
        return next(f for f in self.fields if f.name == name)


# ----------------------------------------------------------------------------------
def expand_derived(spec: Spec, expr: sympy.Expr) -> sympy.Expr:
    """Substitute derived quantities until only inputs, params and dims remain."""
    derived = {q.symbol: q.expr for q in spec.quantities.values() if q.kind == "derived"}
    for _ in range(len(derived) + 1):
        if not expr.free_symbols & derived.keys():
            return expr
        expr = expr.xreplace(derived)
    raise SpecError(str(spec.path), "derive", "derived quantities refer to each other in a cycle")


def record_symbols(spec: Spec, expr: sympy.Expr) -> list[Quantity]:
    """Token-dependent named quantities an expression needs, in declaration order."""
    names = {s.name for s in expr.free_symbols}
    return [q for q in spec.quantities.values() if q.name in names and q.token]


def derive(spec: Spec) -> Derivation:
    t = spec.transition
    fields: list[RecordField] = []
    seen: set[str] = set()
    replayed = [t.key] + ([t.gate] if t.gate is not None else [])
    if t.update == "additive":
        replayed.append(t.value)
    for expr in replayed:
        for q in record_symbols(spec, expr):
            if q.name not in seen:
                seen.add(q.name)
                fields.append(RecordField(q.name, q.head, q.axis))
    fields = _shrink_record(spec, fields)
    value = t.value
    written = ""
    if t.update == "delta":
        # The corrected value u_j depends on the state before token j: the decode step
        # computes it once and stores it, after which replay is linear in the records.
        written = "u"
        while written in spec.quantities:
            written += "_"
        fields.append(RecordField(written, "value", "V"))
        value = sympy.Symbol(written)

    _check_gate_sign(spec)
    _prove_additive_replay(spec)
    _check_replay_exactly(spec)
    # The gate record can hold cumulative sums when it is the gate itself (not rebuilt
    # from other fields, as Mamba-2's g from Δ) and per key channel (a scalar gate's
    # [BL] scan is cheap; plan._gate_records chooses).
    gate_name = str(t.gate) if isinstance(t.gate, sympy.Symbol) else ""
    cumulative = gate_name if t.decay == "channel" and gate_name in {f.name for f in fields} else ""
    if cumulative:
        _prove_cumulative_records(spec)

    decay = {"scalar": "exp(G_t - G_j)", "channel": "Diag(exp(G_t - G_j))",
             "none": "I"}[t.decay]
    ck = {"scalar": "exp(G_t)", "channel": "Diag(exp(G_t))", "none": "I"}[t.decay]
    w = "u_j" if t.update == "delta" else "w_j"
    return Derivation(
        spec=spec, fields=tuple(fields), key=t.key, gate=t.gate, value=value,
        written_value_name=written, cumulative_gate=cumulative,
        replay_state=f"S_t = C·{ck} + Σ_j {w} ({decay}·k_j)ᵀ,  G_j = Σ_(i<=j) g_i",
        replay_output=f"o_t = C·({ck}·q_t) + Σ_j {w} (({decay}·k_j)·q_t)",
    )


def _shrink_record(spec: Spec, fields: list[RecordField]) -> list[RecordField]:
    """Replace a derived field by the token quantities it is computed from when that
    strictly shrinks the record (Mamba-2: g = -exp(A_log)·delta needs only delta, which
    the value already stores). Equal-size replacements are not taken: storing the
    post-nonlinearity value saves recomputing it on every replay."""
    width = {"scalar": 1, "K": 1000, "V": 1000}
    changed = True
    while changed:
        changed = False
        names = {f.name for f in fields}
        for f in fields:
            q = spec.quantities[f.name]
            if q.kind != "derived":
                continue
            deps = [d for d in record_symbols(spec, q.expr) if d.name not in names - {f.name}]
            if sum(width[d.axis] for d in deps) < width[f.axis]:
                i = fields.index(f)
                fields = (fields[:i] + [RecordField(d.name, d.head, d.axis) for d in deps]
                          + fields[i + 1:])
                changed = True
                break
    return fields


# -- checks ------------------------------------------------------------------------
def _sample(spec: Spec, rng: np.random.Generator, K=5, V=3, scale=3.0):
    dims = {sympy.Symbol(d): n for d, n in zip(spec.dim_names, (1, 1, K, V))}
    vals: dict[sympy.Symbol, object] = dict(dims)
    for q in spec.quantities.values():
        if q.kind in ("input", "param"):
            n = {"scalar": None, "K": K, "V": V}[q.axis]
            vals[q.symbol] = (float(rng.normal() * scale) if n is None
                              else rng.normal(size=n) * scale)
    return vals


def _check_gate_sign(spec: Spec, trials: int = 200):
    t = spec.transition
    if t.gate is None:
        return
    gate = expand_derived(spec, t.gate)
    rng = np.random.default_rng(0)
    for _ in range(trials):
        g = np.asarray(evaluate(gate, _sample(spec, rng)), dtype=float)
        if np.any(~np.isfinite(g)) or np.any(g > 0):
            raise SpecError(str(spec.path), "transition.gate",
                            f"'{t.gate}' must be a log decay (finite, <= 0) for every input, "
                            f"but evaluated to {g} on a random input")


def _prove_additive_replay(spec: Spec):
    """Symbolic proof, per state entry S[v, c] (decays are diagonal, so entries evolve
    independently): unroll S <- S·exp(g_i) + w_i·k_i over the window and compare with
    C·exp(G_t) + Σ_j w_j k_j exp(G_t - G_j), G_j = g_1 + ... + g_j."""
    if spec.transition.decay == "none":
        gs = [sympy.Integer(0)] * WINDOW
    else:
        gs = list(sympy.symbols(f"g1:{WINDOW + 1}"))
    ws = sympy.symbols(f"w1:{WINDOW + 1}")
    ks = sympy.symbols(f"k1:{WINDOW + 1}")
    C = sympy.Symbol("C")
    for n in range(1, WINDOW + 1):
        S = C
        for i in range(n):
            S = S * sympy.exp(gs[i]) + ws[i] * ks[i]
        Gs = [sum(gs[: j + 1], sympy.Integer(0)) for j in range(n)]
        replay = C * CHECKPOINT_WEIGHT.subs(G_t, Gs[-1]) + sum(
            ws[j] * ks[j] * REPLAY_WEIGHT.subs({G_t: Gs[-1], G_j: Gs[j]}) for j in range(n))
        if sympy.expand(S - replay, power_exp=True) != 0:
            raise SpecError(str(spec.path), "transition",
                            f"the replay form does not reproduce the recurrence at n={n}")


def _prove_cumulative_records(spec: Spec):
    """Cumulative gate records, as the kernels keep them: ring row j holds
    R_j = R_(j-1) + g_j (R_(-1) = 0: the checkpoint; a flush empties the ring, so sums
    restart there), the current token (or a verify's draft, continuing past the
    committed rows) takes G_t = R_(n-1) + g_t, and a fold at the last committed record
    takes G_t = R_(n-1). Proof, symbolically per key channel over the window: the
    printed weights on these sums equal the products of the step decays, for every
    cursor n and record j (exp(G_t - G_j) = Π_(j<i<=t) exp(g_i), exp(G_t) = Π_(i<=t)
    exp(g_i)), so the replay form proved above holds unchanged."""
    gs = list(sympy.symbols(f"g1:{WINDOW + 1}"))
    rows = [sympy.Integer(0)]                  # rows[j + 1] = R_j
    for g in gs:
        rows.append(rows[-1] + g)
    for n in range(WINDOW):                    # n committed records, token t = n
        for G_now, t in ((rows[n] + gs[n], n), (rows[n], n - 1)):   # decode / fold
            checks = [(CHECKPOINT_WEIGHT.subs(G_t, G_now), range(t + 1))]
            checks += [(REPLAY_WEIGHT.subs({G_t: G_now, G_j: rows[j + 1]}), range(j + 1, t + 1))
                       for j in range(n)]
            for weight, steps in checks:
                product = sympy.Mul(*(sympy.exp(gs[i]) for i in steps))
                if sympy.simplify(weight - product) != 0:
                    raise SpecError(str(spec.path), "transition.gate",
                                    f"cumulative gate records give the weight {weight}, "
                                    f"not the product of step decays {product}")


def _check_replay_exactly(spec: Spec, K=3, V=2, seed=7):
    """Exact check of the full update rule (delta rule included): the step recurrence and
    the output-only replay evaluation agree on every output, every written value and the
    folded state, with random rational inputs. The replay side evaluates the very weight
    expressions the kernels print (REPLAY_WEIGHT, CHECKPOINT_WEIGHT) on exact log decays:
    G_j = Σ log d_i, and sympy folds exp(G_t - G_j) back to an exact rational."""
    t = spec.transition
    rnd = random.Random(seed)
    frac = lambda: sympy.Rational(rnd.randint(-9, 9), rnd.randint(1, 9))  # noqa: E731
    unit = lambda: sympy.Rational(rnd.randint(1, 9), rnd.randint(9, 12))  # noqa: E731  (0, 1]

    def decay_vec():
        if t.decay == "none":
            return [sympy.Integer(1)] * K
        if t.decay == "channel":
            return [unit() for _ in range(K)]
        return [unit()] * K

    C = [[frac() for _ in range(K)] for _ in range(V)]
    toks = [dict(d=decay_vec(), k=[frac() for _ in range(K)], q=[frac() for _ in range(K)],
                 v=[frac() for _ in range(V)], beta=unit()) for _ in range(WINDOW)]

    def matvec(S, x):
        return [sum((S[a][c] * x[c] for c in range(K)), sympy.Integer(0)) for a in range(V)]

    # Step recurrence: decay, (delta rule: correct against the decayed state), update.
    S = [row[:] for row in C]
    step_out, step_w = [], []
    for tok in toks:
        S = [[S[a][c] * tok["d"][c] for c in range(K)] for a in range(V)]
        if t.update == "delta":
            sk = matvec(S, tok["k"])
            w = [tok["beta"] * (tok["v"][a] - sk[a]) for a in range(V)]
        else:
            w = tok["v"]
        S = [[S[a][c] + w[a] * tok["k"][c] for c in range(K)] for a in range(V)]
        step_out.append(matvec(S, tok["q"]))
        step_w.append(w)

    # Output-only replay with the printed weights on cumulative log decays.
    def G(n, c):  # log decay from the checkpoint to token n (inclusive)
        return sum((sympy.log(toks[i]["d"][c]) for i in range(n + 1)), sympy.Integer(0))

    def weight(j, n, c):  # record j read at token n
        return REPLAY_WEIGHT.subs({G_t: G(n, c), G_j: G(j, c)})

    def ckpt_weight(n, c):
        return CHECKPOINT_WEIGHT.subs(G_t, G(n, c))

    def read(n, query, upto):  # C·(D_n ⊙ query) + Σ_{j<upto} w_j ((D_jn ⊙ k_j)·query)
        acc = matvec(C, [ckpt_weight(n, c) * query[c] for c in range(K)])
        for j in range(upto):
            s = sum((weight(j, n, c) * toks[j]["k"][c] * query[c] for c in range(K)),
                    sympy.Integer(0))
            acc = [acc[a] + ws[j][a] * s for a in range(V)]
        return acc

    def same(xs, ys):
        return all(sympy.nsimplify(x - y) == 0 for x, y in zip(xs, ys))

    ws = []
    for n, tok in enumerate(toks):
        if t.update == "delta":
            sk = read(n, tok["k"], n)
            ws.append([tok["beta"] * (tok["v"][a] - sk[a]) for a in range(V)])
        else:
            ws.append(tok["v"])
        if not same(ws[n], step_w[n]) or not same(read(n, tok["q"], n + 1), step_out[n]):
            raise SpecError(str(spec.path), "transition",
                            f"output-only replay disagrees with the recurrence at token {n}")
    n = WINDOW - 1
    folded = [[C[a][c] * ckpt_weight(n, c) + sum((ws[j][a] * weight(j, n, c) * toks[j]["k"][c]
                                                   for j in range(WINDOW)), sympy.Integer(0))
               for c in range(K)] for a in range(V)]
    if not all(same(folded[a], S[a]) for a in range(V)):
        raise SpecError(str(spec.path), "transition", "the fold disagrees with the recurrence")
