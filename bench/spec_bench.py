"""Speculative decoding on the GPU: correctness, timings and accuracy in one run.

Usage (on the H200): python bench/spec_bench.py --out DIR
    [--variants mamba2,gdn,kda,gla] [--batches 256,512] [--drafts 2,4,8] [--windows 16]
    [--skip-check] [--skip-bench] [--skip-accuracy] [--gate-records step|cumulative]

For one real geometry per variant (bench/common.py GEOMS), fp32 checkpoint, bf16 records
and inputs, L = 16, kernels built for max_drafts = max(--drafts):

1. check: verify/commit against the conventional speculative path (one state snapshot per
   draft, then select) at that geometry: 8 rows at staggered cursors, 6 windows of random
   T, per-row draft counts and acceptance; outputs and materialised states must agree.
2. bench, batch 256 and 512, T in {2, 4, 8}, CUDA-graph medians (ms per step of T drafts),
   each with the bytes the sympy traffic model gives it (model_bytes) and that rate's
   fraction of a device-to-device copy timed in the same run:
   - verify + commit with full acceptance, amortised over a whole flush cycle
     (ceil(L / T) steps, rows staggered so every launch mixes folding and plain commits);
   - verify alone (rows at staggered cursors);
   - the conventional speculative baseline: T snapshot writes + select;
   - one conventional single-token decode step.
   Targets (issue 3): verify + commit of 8 drafts <= 1.1x one conventional decode step,
   and >= 5x faster than the snapshot baseline at batch 256.
3. accuracy: --windows windows of T = max drafts with random acceptance on 8 rows; the
   materialised state's error against the float64 reference (tests/reference.py) run on
   the accepted tokens, next to the error of the conventional fp32 path on the same
   tokens. The replay path should not drift away from the conventional one.

Writes DIR/spec_bench.json (GPU, versions, date, commit, command, every number) and
DIR/spec_bench.md (the tables). Throwaway buffers only.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GEOMS, bench, random_inputs, random_params  # noqa: E402
import torch  # noqa: E402

import replaygen  # noqa: E402
from replaygen import ConfigError  # noqa: E402
from replaygen.perf import Timer, copy_bandwidth, environment  # noqa: E402
from replaygen.traffic import speculative, traffic  # noqa: E402

L = 16
CHECK_TOL = 2e-2   # normwise; bf16 records and outputs (2^-9 each) against an fp32 path
TARGET_DECODE_RATIO = 1.1
TARGET_SPEEDUP = 5.0


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="bench/results/spec")
    ap.add_argument("--variants", default=",".join(GEOMS))
    ap.add_argument("--batches", default="256,512")
    ap.add_argument("--drafts", default="2,4,8")
    ap.add_argument("--windows", type=int, default=16)
    ap.add_argument("--fp32-records", default="gdn",
                    help="variants whose accuracy run is repeated with fp32 records")
    ap.add_argument("--skip-check", action="store_true")
    ap.add_argument("--skip-bench", action="store_true")
    ap.add_argument("--skip-accuracy", action="store_true")
    ap.add_argument("--verify-folds", action="store_true",
                    help="kernels built with verify_folds=True: a verify folds the rows whose "
                         "drafts would pass L committed records (not the default)")
    ap.add_argument("--gate-records", choices=("step", "cumulative"), default=None,
                    help="what a per-channel decay's gate record holds (default: the plan's "
                         "choice, cumulative: fp32 sums; step: bf16 per-step gates, 2 of a "
                         "record's bytes per channel fewer)")
    args = ap.parse_args(argv)
    args.variants = [v for v in args.variants.split(",") if v]
    unknown = sorted(set(args.variants) - set(GEOMS))
    if unknown:
        ap.error(f"unknown variants {unknown}; known: {sorted(GEOMS)}")
    args.fp32_records = [v for v in args.fp32_records.split(",") if v]
    args.batches = [int(b) for b in args.batches.split(",")]
    args.drafts = [int(t) for t in args.drafts.split(",")]
    if min(args.drafts) < 1 or args.windows < 1:
        ap.error("--drafts and --windows must be positive")
    return args


# -- helpers ---------------------------------------------------------------------------
def load_kernels(variant, max_drafts, record_dtype="bf16", verify_folds=False, gate_records=None):
    return replaygen.load(variant, config=GEOMS[variant], L=L, state_dtype="fp32",
                          record_dtype=record_dtype, max_drafts=max_drafts,
                          verify_folds=verify_folds, gate_records=gate_records)


def draft_inputs(kern, rows, T, device, gen):
    """Fresh bf16 draft inputs [rows, T, ...]."""
    flat = random_inputs(kern, rows * T, device, torch.bfloat16, gen)
    return {n: t.view(rows, T, *t.shape[1:]) for n, t in flat.items()}


def rel(a, b) -> float:
    a, b = a.double(), b.double()
    return ((a - b).norm() / b.norm().clamp_min(1e-30)).item()


def counts(values, device):
    return torch.as_tensor(values, dtype=torch.int32, device=device)


class Pair:
    """A ReplaySSM state and a conventional pool on the same start states, stepped by
    verify/commit and conventional_verify/commit on the same drafts."""

    def __init__(self, kern, params, rows, device, gen):
        self.kern, self.params, self.device, self.gen = kern, params, device, gen
        self.slots = torch.arange(rows, device=device, dtype=torch.int32)
        S0 = torch.randn((rows,) + kern.state_shape, device=device, generator=gen) * 0.5
        self.state = kern.new_state(rows, device, **params)
        kern.load_state(self.state, self.slots, S0)
        self.pool = S0.clone()
        self.snaps = torch.empty(kern.snapshot_shape(rows), device=device)

    def window(self, T, num_drafts, accepted):
        """One verify + commit on both paths; returns (inputs, replay out, conventional out)."""
        k = self.kern
        inputs = draft_inputs(k, self.slots.numel(), T, self.device, self.gen)
        nd = counts(num_drafts, self.device)
        out = k.verify(self.state, self.slots, num_drafts=nd, **inputs)
        conv = k.conventional_verify(self.pool, self.slots, self.snaps, num_drafts=nd,
                                     **inputs, **self.params)
        acc = counts(accepted, self.device)
        k.commit(self.state, self.slots, acc)
        k.conventional_commit(self.pool, self.slots, self.snaps, acc)
        return inputs, out, conv


# -- 1. correctness at the real geometry -------------------------------------------------
def check_paths(kern, params, device, rows=8, windows=6):
    rng = torch.Generator().manual_seed(11)
    pair = Pair(kern, params, rows, device, torch.Generator(device=device).manual_seed(5))
    T_MAX = kern.plan.T_MAX
    worst_out = worst_state = 0.0
    for _ in range(windows):
        T = int(torch.randint(1, T_MAX + 1, (1,), generator=rng))
        nd = torch.randint(0, T + 1, (rows,), generator=rng).tolist()
        acc = [int(torch.randint(0, n + 1, (1,), generator=rng)) for n in nd]
        _, out, conv = pair.window(T, nd, acc)
        for r in range(rows):
            if nd[r]:
                worst_out = max(worst_out, rel(out[r, :nd[r]], conv[r, :nd[r]]))
            assert bool((out[r, nd[r]:] == 0).all()), "drafts past the count are not zero"
        M = kern.materialize(pair.state, pair.slots)
        worst_state = max(worst_state, max(rel(M[r], pair.pool[r]) for r in range(rows)))
    cursors = pair.state.cursor[:, 0].tolist()
    ok = worst_out < CHECK_TOL and worst_state < CHECK_TOL
    return dict(err_out=worst_out, err_state=worst_state, tol=CHECK_TOL, ok=ok,
                final_cursors=cursors)


# -- 2. timings -----------------------------------------------------------------------
def cycle_period(plan, T: int) -> int:
    """Verify + commit steps of full acceptance in a row's flush cycle: up to CAP committed
    records, then the commit that would pass CAP folds (cursors 0, T, .., kT); with
    verify_folds the verify that would pass it folds first and the commit leaves T (T, ..,
    kT)."""
    return plan.CAP // T + (0 if plan.VERIFY_FOLDS else 1)


class StaggeredCycle:
    """`batch` rows of fresh random states stepped by verify + commit of T drafts with
    full acceptance, staggered over the flush cycle with real records: row r accepted its
    drafts in the first r % period steps, so its cursor is (r % period) * T (< L, no
    fold) and every launch mixes rows that fold with rows that do not. The pool behind
    the conventional kernels (`pool`) starts from other random states; only times are
    compared. Used by time_step here and by bench/spec_breakdown.py. With stagger=False
    every row starts at cursor 0 and all rows fold in the same step (spec_breakdown.py
    --in-phase: each launch then serves all rows or none)."""

    def __init__(self, kern, params, batch, T, device, stagger=True):
        self.kern, self.params, self.batch, self.T = kern, params, batch, T
        gen = torch.Generator(device=device).manual_seed(7)
        self.slots = torch.arange(batch, device=device, dtype=torch.int32)
        self.state = kern.new_state(batch, device, **params)
        kern.load_state(self.state, self.slots, torch.randn(
            (batch,) + kern.state_shape, device=device, generator=gen) * 0.5)
        self.inputs = draft_inputs(kern, batch, T, device, gen)
        self.full = counts([T] * batch, device)
        self.out = torch.empty((batch, T, kern.plan.HV, kern.plan.V), device=device,
                               dtype=torch.bfloat16)
        self.pool = torch.randn((batch,) + kern.state_shape, device=device, generator=gen) * 0.5
        self.one = random_inputs(kern, batch, device, torch.bfloat16, gen)
        self.period = cycle_period(kern.plan, T)
        phase = torch.arange(batch, device=device) % self.period * int(stagger)
        for k in range(self.period - 1):
            self.step(torch.where(phase > k, self.full, torch.zeros_like(self.full)))

    def verify(self):
        self.kern.verify(self.state, self.slots, num_drafts=self.full, out=self.out,
                         check=False, **self.inputs)

    def step(self, accepted=None):
        self.verify()
        self.kern.commit(self.state, self.slots, self.full if accepted is None else accepted,
                         check=False)

    def cycle(self):
        for _ in range(self.period):
            self.step()

    def conventional_decode_ms(self) -> float:
        k = self.kern
        out1 = torch.empty((self.batch, k.plan.HV, k.plan.V), device=self.pool.device,
                           dtype=torch.bfloat16)
        return bench(lambda: k.conventional_decode(self.pool, self.slots, out=out1, **self.one,
                                                   **self.params))


def model_bytes(kern, batch: int, T: int) -> dict:
    """Bytes the sympy traffic model (replaygen.traffic) gives the timed quantities at
    `batch` rows and T drafts: verify + commit per step, amortised over the flush cycle of
    the kernels' protocol (verify_folds or not); one conventional decode step; and, for the
    default protocol, the verify alone at the staggered cycle's mean cursor (its rows sit at
    n = 0, T, .., L, and a verify's bytes are linear in n: n = L/2). With verify_folds the
    timed verify holds the folding rows' state writes, which that formula leaves out, so
    it is not modelled. {} where the model has no cycle (L not a multiple of T, or T < 2)."""
    try:
        cycle = speculative(traffic(kern.plan), T, committed=kern.plan.L // 2)
    except ConfigError:
        return {}
    key = "verify_folds_amortised" if kern.plan.VERIFY_FOLDS else "verify_amortised"
    out = {"verify_commit": batch * cycle[key],
           "conventional_decode": batch * cycle["conventional_decode"],
           "cap_to_decode": cycle["verify_folds_vs_decode" if kern.plan.VERIFY_FOLDS else "vs_decode"]}
    if not kern.plan.VERIFY_FOLDS:
        out["verify_only"] = batch * cycle["verify"]
    return out


def time_step(kern, params, batch, T, device):
    cyc = StaggeredCycle(kern, params, batch, T, device)
    res = dict(batch=batch, T=T, cycle_steps=cyc.period)
    res["verify_commit"] = bench(cyc.cycle, steps=cyc.period)
    res["verify_only"] = bench(cyc.verify)
    snaps = torch.empty(kern.snapshot_shape(batch), device=device)
    res["conventional_spec"] = bench(lambda: (
        kern.conventional_verify(cyc.pool, cyc.slots, snaps, num_drafts=cyc.full, out=cyc.out,
                                 check=False, **cyc.inputs, **params),
        kern.conventional_commit(cyc.pool, cyc.slots, snaps, cyc.full, check=False)))
    res["conventional_decode"] = cyc.conventional_decode_ms()
    res["ratio_to_decode"] = res["verify_commit"] / res["conventional_decode"]
    res["speedup_vs_snapshots"] = res["conventional_spec"] / res["verify_commit"]
    res["tokens_per_ms"] = batch * T / res["verify_commit"]
    res["model_bytes"] = model_bytes(kern, batch, T)
    return res


# -- 3. accuracy over many windows -------------------------------------------------------
def accuracy(kern, params, step_fn, device, windows, rows=8):
    rng = torch.Generator().manual_seed(3)
    pair = Pair(kern, params, rows, device, torch.Generator(device=device).manual_seed(9))
    ref = pair.pool.double().clone()
    p64 = {n: t.double() for n, t in params.items()}
    T = kern.plan.T_MAX
    traj = []
    for w in range(windows):
        acc = torch.randint(0, T + 1, (rows,), generator=rng).tolist()
        inputs, _, _ = pair.window(T, [T] * rows, acc)
        for r in range(rows):
            for i in range(acc[r]):
                ref[r], _ = step_fn(ref[r], **{n: t[r, i].double() for n, t in inputs.items()}, **p64)
        M = kern.materialize(pair.state, pair.slots)
        traj.append(dict(window=w, tokens=sum(acc),
                         replay=max(rel(M[r], ref[r]) for r in range(rows)),
                         conventional=max(rel(pair.pool[r], ref[r]) for r in range(rows))))
    last = traj[-1]
    return dict(rows=rows, windows=windows, T=T, trajectory=traj,
                final_replay=last["replay"], final_conventional=last["conventional"],
                worst_replay=max(t["replay"] for t in traj),
                worst_conventional=max(t["conventional"] for t in traj))


# -- report --------------------------------------------------------------------------------
def markdown(report) -> str:
    m = report["meta"]
    lines = [f"# Speculative decoding: {m['gpu']}, {m['date']}, commit {m['commit'][:12]}",
             "", f"`{m['command']}` (torch {m['torch']}, triton {m['triton']})", "",
             f"L = {L}, fp32 checkpoint, bf16 records and inputs (a per-channel decay's "
             f"gate records: {m.get('gate_records', 'the plan')}); ms per step of T drafts "
             "(CUDA-graph medians). x decode: verify + commit over one conventional decode "
             f"step (target <= {TARGET_DECODE_RATIO} at T = 8); x snapshots: the conventional "
             f"speculative step over verify + commit (target >= {TARGET_SPEEDUP} at batch 256).",
             "", "## Check: verify/commit vs the conventional speculative path", "",
             "| variant | err out | err state | ok |", "|---|---|---|---|"]
    for c in report["checks"]:
        lines.append(f"| {c['variant']} | {c.get('err_out', float('nan')):.2e} | "
                     f"{c.get('err_state', float('nan')):.2e} | {c.get('ok', c.get('error'))} |")
    lines += ["", "## Timings", "",
              "| variant | batch | T | verify+commit | verify | conv. spec. | conv. decode "
              "| x decode | x snapshots |", "|---|---|---|---|---|---|---|---|---|"]
    for b in report["bench"]:
        if "error" in b:
            lines.append(f"| {b['variant']} | {b.get('batch')} | {b.get('T')} | error: "
                         f"{b['error'][:120]} | | | | | |")
            continue
        lines.append(f"| {b['variant']} | {b['batch']} | {b['T']} | {b['verify_commit']:.4f} | "
                     f"{b['verify_only']:.4f} | {b['conventional_spec']:.4f} | "
                     f"{b['conventional_decode']:.4f} | {b['ratio_to_decode']:.2f} | "
                     f"{b['speedup_vs_snapshots']:.2f} |")
    lines += bandwidth_table(report)
    lines += ["", "## Accuracy: materialised state vs the float64 reference on the accepted "
              "tokens (max over rows)", "",
              "| variant | records | windows | T | final replay | final conventional "
              "| worst replay | worst conventional |", "|---|---|---|---|---|---|---|---|"]
    for a in report["accuracy"]:
        if "error" in a:
            lines.append(f"| {a['variant']} | {a.get('records')} | error: {a['error'][:120]} "
                         "| | | | | |")
            continue
        lines.append(f"| {a['variant']} | {a['records']} | {a['windows']} | {a['T']} | "
                     f"{a['final_replay']:.2e} | "
                     f"{a['final_conventional']:.2e} | {a['worst_replay']:.2e} | "
                     f"{a['worst_conventional']:.2e} |")
    return "\n".join(lines) + "\n"


def bandwidth_table(report) -> list[str]:
    """Markdown lines: each timed quantity's bytes (the sympy model, model_bytes) over its
    time, and that rate's fraction of the device-to-device copy measured in the same run
    (meta copy_bytes_per_s, the better of eager and graph copies). cap: the model's verify
    + commit over a decode step's bytes, the ratio's floor at equal bandwidth."""
    copy = report["meta"].get("copy_bytes_per_s", {}).get("best")
    rows = [b for b in report["bench"] if b.get("model_bytes")]
    if not rows:
        return []
    lines = ["", "## Bandwidth: the model's bytes over each time"
             + (f" (copy: {copy / 1e12:.2f} TB/s, this run)" if copy else ""), "",
             "| variant | batch | T | cap x decode | quantity | MB | TB/s | of the copy |",
             "|---|---|---|---|---|---|---|---|"]
    for b in rows:
        mb = b["model_bytes"]
        for name, key in (("verify + commit", "verify_commit"), ("verify", "verify_only"),
                          ("conv. decode", "conventional_decode")):
            if key not in mb:
                continue
            rate = mb[key] / (b[key] * 1e-3)
            lines.append(f"| {b['variant']} | {b['batch']} | {b['T']} | {mb['cap_to_decode']:.3f} | "
                         f"{name} | {mb[key] / 1e6:.0f} | {rate / 1e12:.2f} | "
                         + (f"{rate / copy:.0%} |" if copy else "- |"))
    return lines


def guarded(section, variant, fn, **extra):
    t0 = time.time()
    try:
        r = fn()
    except Exception as exc:   # record and go on: one run must report everything it can
        r = dict(error=repr(exc)[:2000])
    r = dict(variant=variant, **extra, **r, seconds=round(time.time() - t0, 2))
    print(section.upper(), json.dumps({k: v for k, v in r.items() if k != "trajectory"}),
          flush=True)
    return r


def main(argv=None):
    args = parse_args(argv)
    from harness import VARIANTS   # the float64 reference steps (tests/reference.py)
    device = "cuda"
    meta = environment()
    meta["command"] = "python bench/spec_bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    meta["gate_records"] = args.gate_records or "the plan's"
    report = dict(meta=meta, checks=[], bench=[], accuracy=[])
    print(report["meta"], flush=True)
    T_MAX = max(args.drafts)
    if not args.skip_bench:   # the ceiling each kernel's achieved bandwidth is compared with
        report["meta"]["copy_bytes_per_s"] = copy_bandwidth(torch.device(device), Timer(torch.device(device)))
    for variant in args.variants:
        kern = load_kernels(variant, T_MAX, verify_folds=args.verify_folds,
                            gate_records=args.gate_records)
        params = random_params(kern, device, torch.Generator(device=device).manual_seed(1))
        if not args.skip_check:
            report["checks"].append(guarded("check", variant,
                                            lambda: check_paths(kern, params, device)))
        if not args.skip_bench:
            for batch in args.batches:
                for T in args.drafts:
                    report["bench"].append(guarded(
                        "bench", variant, lambda: time_step(kern, params, batch, T, device)))
        if not args.skip_accuracy:
            report["accuracy"].append(guarded("accuracy", variant, lambda: accuracy(
                kern, params, VARIANTS[variant].step, device, args.windows), records="bf16"))
            if variant in args.fp32_records:   # is the drift (if any) the records' rounding?
                k32 = load_kernels(variant, T_MAX, "fp32", args.verify_folds, args.gate_records)
                report["accuracy"].append(guarded("accuracy", variant, lambda: accuracy(
                    k32, params, VARIANTS[variant].step, device, args.windows), records="fp32"))
    write_report(args.out, "spec_bench", report, markdown(report))


def write_report(folder, stem, report, text):
    """FOLDER/STEM.json (every number) and FOLDER/STEM.md (the tables, also printed)."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{stem}.json").write_text(json.dumps(report, indent=1))
    (out / f"{stem}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
