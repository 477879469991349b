"""External conventional decode kernels that `replaygen bench` compares against.

Input: the `Kernels` of a configuration, a `perf.Workload` (its pool, inputs, params), a
number of rows. Output: for each baseline that serves the spec and is importable, a
zero-argument step function on the workload's buffers (rows 0..rows-1, state read from
and written to a scratch copy of the pool), and a check of its output and new state
against our conventional kernel on the same inputs.
Invariants: optional: a baseline whose package is absent, or whose signature lacks what
the mapping needs, is skipped with a note, never an error; a baseline is timed only if
its check passed. The mapping of our model-native inputs to each library's arguments is
stated per baseline (these libraries are external facts, so they are keyed by the spec
they implement; the generator itself never is).

- fla `fused_recurrent_gated_delta_rule` (pip fla-core): q, k [B, T=1, H, K]; v [B, 1, HV, V];
  raw gate a as g with use_gate_in_kernel (g = -exp(A_log) softplus(a + dt_bias)); raw
  beta b with use_beta_sigmoid_in_kernel; use_qk_l2norm_in_kernel (eps 1e-6, as ours) and
  scale K^-1/2, as our q_hat; state_v_first=True takes our [N, HV, V, K] fp32 layout; the
  new state is written to a fresh tensor (output_final_state).
- fla `fused_recurrent_kda`: as above with the per-channel raw gate f [B, 1, HV, K] and the
  per-channel dt_bias flattened to [HV * K].
- `selective_state_update` (vLLM, else mamba_ssm) for Mamba-2: state [N, nheads, headdim,
  dstate] updated in place at state_batch_indices; dt, dt_bias, D broadcast over headdim
  and A = -exp(A_log) over (headdim, dstate) with stride-0 views, dt_softplus=True; z
  passed when present.
"""
from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass
from typing import Callable

import torch

# Normwise relative tolerances of the check: outputs are bf16 (2^-8 relative rounding,
# plus summation order); the new fp32 state differs only by fp32 summation order and the
# bf16-rounded inputs both sides read identically.
OUT_TOL = 2e-2
STATE_TOL = 1e-3


@dataclass(frozen=True)
class Baseline:
    name: str                  # what the tables print
    spec: str                  # the spec it implements
    modules: tuple[str, ...]   # import paths to try, in order
    function: str
    needs: tuple[str, ...]     # keyword parameters the mapping uses
    make: Callable             # (fn, kern, work, rows, state) -> step() -> (out, new_state)


def _fla_delta(gate_input: str, flat_bias: bool):
    def make(fn, kern, work, rows, state):
        x = {n: t[:rows].unsqueeze(1) for n, t in work.inputs.items()}
        p = work.params
        dt_bias = p["dt_bias"].reshape(-1) if flat_bias else p["dt_bias"]

        def step():
            o, ht = fn(x["q"], x["k"], x["v"], g=x[gate_input], beta=x["b"],
                       A_log=p["A_log"], dt_bias=dt_bias, scale=kern.plan.K ** -0.5,
                       initial_state=state, output_final_state=True,
                       use_qk_l2norm_in_kernel=True, use_gate_in_kernel=True,
                       use_beta_sigmoid_in_kernel=True, state_v_first=True)
            return o.squeeze(1), ht
        return step
    return make


def _selective_state_update(fn, kern, work, rows, state):
    p, x = work.params, {n: t[:rows] for n, t in work.inputs.items()}
    nheads, headdim, dstate = kern.state_shape
    A = (-torch.exp(p["A_log"].float()))[:, None, None].expand(nheads, headdim, dstate)
    dt = x["dt"][:, :, None].expand(rows, nheads, headdim)
    dt_bias = p["dt_bias"][:, None].expand(nheads, headdim)
    D = p["D"][:, None].expand(nheads, headdim)
    idx = torch.arange(rows, dtype=torch.int32, device=state.device)
    kwargs = dict(D=D, z=x.get("z"), dt_bias=dt_bias, dt_softplus=True, state_batch_indices=idx)
    takes_out = "out" in inspect.signature(fn).parameters
    out = torch.empty_like(x["x"])

    def step():
        if takes_out:
            fn(state, x["x"], dt, A, x["B"], x["C"], out=out, **kwargs)
            return out, state
        return fn(state, x["x"], dt, A, x["B"], x["C"], **kwargs), state
    return step


BASELINES = (
    Baseline("fla fused_recurrent_gated_delta_rule", "gdn", ("fla.ops.gated_delta_rule",),
             "fused_recurrent_gated_delta_rule",
             ("use_gate_in_kernel", "use_beta_sigmoid_in_kernel", "state_v_first",
              "use_qk_l2norm_in_kernel", "A_log", "dt_bias"), _fla_delta("a", False)),
    Baseline("fla fused_recurrent_kda", "kda", ("fla.ops.kda",), "fused_recurrent_kda",
             ("use_gate_in_kernel", "use_beta_sigmoid_in_kernel", "state_v_first",
              "use_qk_l2norm_in_kernel", "A_log", "dt_bias"), _fla_delta("f", True)),
    Baseline("selective_state_update", "mamba2",
             ("vllm.model_executor.layers.mamba.ops.mamba_ssm",
              "mamba_ssm.ops.triton.selective_state_update"),
             "selective_state_update", ("state_batch_indices", "dt_softplus"),
             _selective_state_update),
)


def find(baseline: Baseline):
    """(function, note): the function if importable with the parameters the mapping
    needs, else None and why not."""
    notes = []
    for mod in baseline.modules:
        try:
            fn = getattr(importlib.import_module(mod), baseline.function)
        except Exception as exc:  # noqa: BLE001 - absent or broken optional package
            notes.append(f"{mod}: {type(exc).__name__}: {str(exc)[:120]}")
            continue
        params = inspect.signature(fn).parameters
        missing = [n for n in baseline.needs if n not in params]
        if missing:
            notes.append(f"{mod}.{baseline.function} lacks parameters {missing}")
            continue
        return fn, f"{mod}.{baseline.function}"
    return None, "not available (" + "; ".join(notes) + ")"


def for_spec(spec_name: str) -> list[Baseline]:
    return [b for b in BASELINES if b.spec == spec_name]


def rel(a: torch.Tensor, b: torch.Tensor) -> float:
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def prepare(baseline: Baseline, fn, kern, work, rows: int):
    """(step, check): a step function on a scratch copy of the workload's pool, and the
    result of checking one step against our conventional kernel from the same state."""
    start = work.pool[:rows].float().clone()
    scratch = start.clone().contiguous()
    step = baseline.make(fn, kern, work, rows, scratch)
    out, new_state = step()
    ours_pool = start.to(work.pool.dtype).clone()
    slots = torch.arange(rows, dtype=torch.int32, device=ours_pool.device)
    ours = kern.conventional_decode(ours_pool, slots, **work.params,
                                    **{n: t[:rows] for n, t in work.inputs.items()})
    check = {"err_out": rel(out.float(), ours.float()),
             "err_state": rel(new_state.float(), ours_pool.float())}
    check["ok"] = bool(check["err_out"] < OUT_TOL and check["err_state"] < STATE_TOL)
    return step, check
