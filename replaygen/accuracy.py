"""The precision error study behind `replaygen accuracy`.

Input: a variant, a geometry, a number of tokens and rows, precision modes. Output:
JSON (every number and how it was made), CSV (per-token errors), and a PNG (matplotlib,
optional extra `bench`) in an output folder.

Method. Teacher forcing: one stream of per-token inputs, drawn with the statistics the
spec's [study] table gives (trained-model-like gates; anything unlisted N(0, 1)) and
rounded to bf16 values, is decoded by every mode's kernels from a zero state, `rows`
independent sequences at once (batch rows). Each mode is a precision configuration
(MODES); "fp32" (fp32 checkpoint, no read copy) is the baseline, and a float64
sequential recurrence evaluated from the spec's own formulas (`Recurrence`, torch, no
generated code) is the truth. Outputs are compared per token as
* relative error ||o - o_base|| / ||o_base|| per row (all value heads), and
* KL(p_base || p) of a softmax readout: logits = 4 * W (o / rms(o)), W a fixed random
  [vocab, HV*V] matrix with N(0, 1/(HV*V)) entries, so logits have a standard deviation
  near 4 (a peaked, model-like next-token distribution);
averaged over rows, against both the fp32 baseline and float64 (fp32's own error).
Per mode, the slope of log10(error) against log10(position) over the second half of
the log-spaced bins says whether the error grows with position (0: it does not).
Inputs and outputs are fp32 tensors (holding bf16 values) so the output is not
rounded: bf16 outputs would put a 2^-9 floor under every mode.
"""
from __future__ import annotations

import csv
import datetime
import json
import math
import time
from pathlib import Path

import sympy
import torch

from .errors import ConfigError
from .formulas import ELEMENTWISE_FUNCTIONS, evaluate
from .spec import Spec
from .traffic import traffic

# mode -> replaygen.load precision options (records in the study's record dtype)
MODES = {
    "fp32": dict(state_dtype="fp32"),
    "shared-fp8": dict(state_dtype="fp8"),
    "shared-nvfp4": dict(state_dtype="nvfp4"),
    "fp32+fp8": dict(state_dtype="fp32", read_dtype="fp8"),             # row scales
    "fp32+fp8col": dict(state_dtype="fp32", read_dtype="fp8", fp8_scale="col"),
    "fp32+fp8tile": dict(state_dtype="fp32", read_dtype="fp8", fp8_scale="tile"),
    "fp32+nvfp4": dict(state_dtype="fp32", read_dtype="nvfp4"),
    "fp16sr+nvfp4": dict(state_dtype="fp16", stochastic=True, read_dtype="nvfp4"),
    "bf16sr+fp8": dict(state_dtype="bf16", stochastic=True, read_dtype="fp8"),
    "fp16sr": dict(state_dtype="fp16", stochastic=True),   # the recurrence alone, no read copy
    "fp16": dict(state_dtype="fp16"),
    "bf16sr": dict(state_dtype="bf16", stochastic=True),
    "bf16": dict(state_dtype="bf16"),
}
BASELINE = "fp32"
VOCAB = 2048
TORCH_OPS = {   # formulas.evaluate on torch tensors [rows, HV, n] (n = 1 for scalars)
    "exp": torch.exp, "log": torch.log, "pow": lambda x, p: x ** p,
    "sumsq": lambda x: (x * x).sum(-1, keepdim=True),   # keeps the reduced axis
    "softplus": lambda x: torch.where(x > 20, x, torch.log1p(torch.exp(x.clamp(max=20)))),
    "sigmoid": torch.sigmoid,
    "silu": lambda x: x * torch.sigmoid(x),
    "logsigmoid": torch.nn.functional.logsigmoid,
}
assert set(ELEMENTWISE_FUNCTIONS) < set(TORCH_OPS)


def torch_eval(expr: sympy.Expr, values: dict):
    return evaluate(expr, values, TORCH_OPS)


class Recurrence:
    """The float64 step recurrence of a spec, for `rows` sequences at once:
    S <- S Decay + w k^T (w = v, or beta (v - S Decay k) for a delta rule), o = S q,
    plus the output's skip and gate terms; written from the spec's formulas alone."""

    def __init__(self, spec: Spec, dims: dict[str, int], params: dict, rows: int, device):
        self.spec, self.dims = spec, dims
        g = spec.geometry
        self.H, self.HV, self.K, self.V = (dims[g[r]] for r in
                                           ("key_heads", "value_heads", "key_dim", "value_dim"))
        self.values = {sympy.Symbol(d): float(n) for d, n in dims.items()}
        for name, t in params.items():
            self.values[sympy.Symbol(name)] = self._shape(spec.quantities[name], t.double()[None])
        self.S = torch.zeros(rows, self.HV, self.V, self.K, dtype=torch.float64, device=device)

    def _shape(self, q, t):
        """[rows, heads(, n)] -> [rows, HV, n]: key heads repeated over their group."""
        if q.head == "none":
            t = t.reshape(t.shape[0], 1, -1)
        elif q.axis == "scalar":
            t = t.reshape(t.shape[0], t.shape[1], 1)
        if q.head == "key":
            t = t.repeat_interleave(self.HV // self.H, dim=1)
        return t

    def step(self, inputs: dict) -> torch.Tensor:
        spec, t = self.spec, self.spec.transition
        vals = dict(self.values)
        for name, x in inputs.items():
            vals[sympy.Symbol(name)] = self._shape(spec.quantities[name], x.double())
        for q in spec.quantities.values():
            if q.kind == "derived" and all(s in vals for s in q.expr.free_symbols):
                vals[q.symbol] = torch_eval(q.expr, vals)
        ev = lambda e: torch_eval(e, vals)  # noqa: E731
        key, query, value = ev(t.key), ev(t.query), ev(t.value)
        if t.gate is not None:
            self.S = self.S * torch.exp(ev(t.gate))[:, :, None, :]
        if t.update == "delta":
            value = ev(t.beta) * (value - torch.einsum("rhvk,rhk->rhv", self.S, key))
        self.S = self.S + value[..., None] * key[:, :, None, :]
        out = torch.einsum("rhvk,rhk->rhv", self.S, query)
        if spec.output_skip is not None:
            out = out + ev(spec.output_skip)
        if spec.output_gate is not None and all(
                sympy.Symbol(n) in vals for n in map(str, spec.output_gate.free_symbols)):
            out = out * ev(spec.output_gate)
        return out


def draw(spec: Spec, q, shape, gen, device) -> torch.Tensor:
    kind, a, b = spec.study.get(q.name, ("normal", 0.0, 1.0))
    x = torch.rand(shape, generator=gen, device=device) if kind == "uniform" else \
        torch.randn(shape, generator=gen, device=device)
    return a + (b - a) * x if kind == "uniform" else a + b * x


def readout(o: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
    """Log-probabilities of the softmax readout of outputs o [..., rows, HV, V] (any
    leading axes, e.g. one per mode) -> [..., rows, vocab]."""
    flat = o.reshape(*o.shape[:-2], -1).double()
    flat = flat / flat.pow(2).mean(-1, keepdim=True).clamp_min(1e-300).sqrt()
    return torch.log_softmax(4.0 * flat @ W.T, dim=-1)


def errors(o, logp, o_ref, logp_ref) -> tuple[torch.Tensor, torch.Tensor]:
    """(mean relative error, mean KL(ref || o)) over rows, from outputs [..., rows, HV, V]
    and their readout log-probabilities [..., rows, vocab] (leading axes broadcast, e.g.
    all modes against one reference), as device tensors of the leading shape (no host
    sync per token)."""
    flat = lambda x: x.double().reshape(*x.shape[:-2], -1)  # noqa: E731
    d = (flat(o) - flat(o_ref)).norm(dim=-1)
    rel = d / flat(o_ref).norm(dim=-1).clamp_min(1e-300)
    kl = (logp_ref.exp() * (logp_ref - logp)).sum(-1)
    return rel.mean(-1), kl.mean(-1)


def log_bins(tokens: int, per_decade: int = 8) -> list[tuple[int, int]]:
    """Half-open position ranges [a, b) (1-based positions), geometrically spaced."""
    edges = sorted({int(round(10 ** (i / per_decade)))
                    for i in range(int(math.log10(tokens) * per_decade) + 2)} | {tokens + 1})
    edges = [e for e in edges if e <= tokens + 1]
    return [(a, b) for a, b in zip(edges, edges[1:]) if b > a]


def slope(centers, values) -> float | None:
    """Least-squares slope of log10(value) against log10(position) over the second half
    of the bins (past the transient of the first flushes)."""
    pts = [(math.log10(c), math.log10(v)) for c, v in zip(centers, values) if v > 0]
    pts = pts[len(pts) // 2:]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / sxx if sxx else None


def run(variant: str, tokens: int, rows: int, device: str, modes: list[str], L: int = 16,
        record_dtype: str = "bf16", dims: dict | None = None, seed: int = 0,
        log=print, budget_s: float | None = None) -> dict:
    """The study; returns the result dict (see module docstring). With `budget_s` it
    stops after the token during which the budget ran out and reports the tokens done
    (`tokens`, `stopped_early`), so a time-limited run still yields its data."""
    import replaygen
    from .spec import load_variant
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise ConfigError(f"unknown mode(s) {unknown}; known: {list(MODES)}")
    modes = [BASELINE] + [m for m in modes if m != BASELINE]
    spec = load_variant(variant)
    dims = dict(dims or spec.configs[0].dims)
    gen = torch.Generator(device=device).manual_seed(seed)
    kernels = {m: replaygen.load(variant, L=L, record_dtype=record_dtype, **MODES[m], **dims)
               for m in modes}
    base = kernels[BASELINE]
    params = {q.name: draw(spec, q, base.shape_of(q), gen, device) for q in spec.params()}
    states = {m: k.new_state(rows, device, **params) for m, k in kernels.items()}
    slots = torch.arange(rows, dtype=torch.int32, device=device)
    for m, k in kernels.items():
        k.load_state(states[m], slots, torch.zeros((rows,) + k.state_shape, device=device))
    ref = Recurrence(spec, base.dims, params, rows, device)
    D = base.plan.HV * base.plan.V
    W = torch.randn(VOCAB, D, generator=gen, device=device, dtype=torch.float64) / math.sqrt(D)
    inputs_q = [q for q in spec.inputs() if not q.optional]
    # one output buffer per mode, stacked so that the readout and the errors of all modes
    # are a few batched ops per token (the loop is bound by launches, not arithmetic)
    outs = torch.empty(len(modes), rows, base.plan.HV, base.plan.V, device=device)
    names = [f"{m}/{what}" for m in modes for what in ("rel_vs_fp32", "kl_vs_fp32", "rel_vs_fp64",
                                                       "kl_vs_fp64")]
    per_token = torch.zeros(tokens, len(modes), 4, dtype=torch.float64, device=device)
    start = time.perf_counter()
    block = 256   # inputs are drawn this many tokens at a time (fewer launches)
    for t in range(tokens):
        if t % block == 0:
            n = min(block, tokens - t)
            drawn = {q.name: draw(spec, q, (n, rows) + base.shape_of(q), gen, device)
                     .to(torch.bfloat16).float() for q in inputs_q}
        x = {name: v[t % block] for name, v in drawn.items()}
        for i, (m, k) in enumerate(kernels.items()):
            k.decode(states[m], slots, out=outs[i], **x)
        o64 = ref.step(x)
        lp64 = readout(o64, W)
        lp = readout(outs, W)
        rel32, kl32 = errors(outs, lp, outs[0], lp[0])   # modes[0] is the fp32 baseline
        rel64, kl64 = errors(outs, lp, o64, lp64)
        per_token[t] = torch.stack([rel32, kl32, rel64, kl64], dim=-1)
        if log and (t + 1) % max(1, tokens // 8) == 0:
            log(f"  {t + 1}/{tokens} tokens, {time.perf_counter() - start:.1f} s")
        if budget_s is not None and time.perf_counter() - start > budget_s and t + 1 < tokens:
            if log:
                log(f"  time budget of {budget_s:g} s reached after {t + 1} tokens")
            per_token = per_token[:t + 1]
            break
    per_token = per_token.reshape(per_token.shape[0], -1)   # columns in the order of `names`
    stopped_early = per_token.shape[0] < tokens
    tokens = per_token.shape[0]
    per_token = per_token.cpu()
    bins = log_bins(tokens)
    centers = [math.sqrt(a * (b - 1)) for a, b in bins]
    binned = {n: [per_token[a - 1:b - 1, j].mean().item() for a, b in bins]
              for j, n in enumerate(names)}
    summary = {}
    for m in modes:
        summary[m] = {what: {"final_bin": binned[f"{m}/{what}"][-1],
                             "slope_log_log": slope(centers, binned[f"{m}/{what}"])}
                      for what in ("rel_vs_fp32", "kl_vs_fp32", "rel_vs_fp64", "kl_vs_fp64")}
        summary[m]["kernel"] = kernels[m].name
        # accuracy per byte: what a non-flush step reads of the state, per sequence
        t = traffic(kernels[m].plan)
        summary[m]["state_bytes_read"] = t.evaluate(t.copy if kernels[m].plan.read else t.state)
    return dict(variant=variant, dims=dims, L=L, record_dtype=record_dtype, tokens=tokens,
                rows=rows, device=str(device), seed=seed, modes=modes, vocab=VOCAB,
                stopped_early=stopped_early,
                date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                seconds=time.perf_counter() - start,
                bins=[list(b) for b in bins], bin_centers=centers, binned=binned,
                summary=summary, per_token_columns=names, per_token=per_token)


def write(result: dict, out: Path, plot: bool = True) -> list[Path]:
    """result.json (no per-token data), per_token.csv and, with `plot`, accuracy.png."""
    out.mkdir(parents=True, exist_ok=True)
    per_token = result["per_token"]
    data = {k: v for k, v in result.items() if k != "per_token"}
    paths = [out / "result.json", out / "per_token.csv"]
    paths[0].write_text(json.dumps(data, indent=1))
    with open(paths[1], "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["position"] + result["per_token_columns"])
        for t, row in enumerate(per_token.tolist()):
            w.writerow([t + 1] + [f"{v:.6e}" for v in row])
    if plot:
        paths.append(plot_result(data, out / "accuracy.png"))
    return paths


def plot_result(data: dict, path: Path) -> Path:
    """Error against position, log-log: relative error and KL against fp32-state decoding
    (fp32's own error against float64 dashed)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ConfigError("the accuracy plot needs matplotlib: pip install 'replaygen[bench]' "
                          "(the data is written; `replaygen accuracy --replot DIR` draws it "
                          "later)") from None
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    x = data["bin_centers"]
    for ax, what, title in ((axes[0], "rel", "relative output error"),
                            (axes[1], "kl", "KL divergence of a softmax readout")):
        for m in data["modes"]:
            if m == BASELINE:
                ax.plot(x, data["binned"][f"{m}/{what}_vs_fp64"], "k--",
                        label="fp32 (own error vs float64)")
                continue
            s = data["summary"][m][f"{what}_vs_fp32"]["slope_log_log"]
            ax.plot(x, data["binned"][f"{m}/{what}_vs_fp32"],
                    label=f"{m} (slope {s:+.2f})" if s is not None else m)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("token position")
        ax.set_ylabel(f"{title} vs fp32-state decoding")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    d = data["dims"]
    fig.suptitle(f"{data['variant']} {' '.join(f'{k}={v}' for k, v in d.items())}, L={data['L']}, "
                 f"{data['record_dtype']} records, {data['rows']} sequences, {data['device']}")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
