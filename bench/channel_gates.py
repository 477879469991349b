"""Per-channel decays (KDA, GLA): cumulative gate records on key chunks vs the previous
decode (per-step gates on value tiles), checked and timed in one GPU run (~2 minutes).

Usage (on the H200, from the repository root):
    python bench/channel_gates.py --out DIR [--budget-s 110] [--no-sweep]

Alternatives (all loaded through `replaygen.load`, fp32 checkpoint, bf16 records):
  old         gate_records="step": the token's g_j in a bf16 record, [BL, K] scan per
              head, value-tile decode (the shipped kernel before this change; it uses the
              committed tuning table, so its L = 16 launches are the tuned ones)
  new         the default now: cumulative G_j in an fp32 record, key-chunk decode
              (plan's launch; no tuning entries yet)
  cum-vtiles  cumulative records on the value-tile decode (decode_structure="vtiles")

1. Check, per variant on its real geometry (specs: kda kimi-linear-48b, gla gla-1.3b)
   at L = 16, 32 and 8: 6 slots, 3 rows + a padding row whose slots change every step
   (rows sit at different ring positions and flush in different launches), 2L + 3
   steps (two flush cycles and more): every alternative's outputs, run in lockstep on
   the same bf16 inputs, against the float64 reference (tests/reference.py), and the
   states at the end (after a flush of what the rings still hold); plus new vs old
   directly. PASS when every normwise error is below 8e-3 (bench/gpu_check.py's
   fp32-checkpoint tolerance; bf16 records, RNE: measured <= 4.4e-3 on the H200) and
   the padding rows are zero.
2. Time (replaygen.perf: CUDA-graph medians, L2 flushed before each replay, cursors set
   outside the timed interval): the conventional step (the old module's, tuned) and, per
   alternative, non-flush (n = L/2), flush step (every row folds) and amortised (a
   staggered flush cycle / L), at batch 1 and 256, L in {8, 16, 32}.
   The old kernel and cum-vtiles launch with the old kernel's committed tuning entry
   (L = 16; plan's choice at L = 8, 32), the key-chunk decode with the plan's choice.
3. (unless --no-sweep) Launch sweeps of the key-chunk (DBV, BKT, warps) and cum-vtiles
   (BV, warps) decodes at L = 16, batch 1 and 256, amortised: data for tuning entries.
Prints PASS/FAIL lines and compact tables; writes DIR/channel_gates.json.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GEOMS  # noqa: E402  (also puts the repo and tests/ on sys.path)
import torch  # noqa: E402

import reference as R  # noqa: E402
import replaygen  # noqa: E402
from replaygen.perf import Timer, Workload, environment, pool_size, precompile  # noqa: E402
from replaygen.tuning import Launch  # noqa: E402

VARIANTS = ("kda", "gla")
REFERENCE = {"kda": R.kda_step, "gla": R.gla_step}
ALTS = {"old": dict(gate_records="step"), "new": {},
        "cum-vtiles": dict(gate_records="cumulative", decode_structure="vtiles")}
TOL = 8e-3
CHECK_ROWS, CHECK_SLOTS = 4, 6     # the check's batch (3 slots + a padding row) and pool
BATCHES = (1, 256)
LS = (8, 16, 32)
# Launch sweeps at L = 16, (value tile, key chunk or None, num_warps): the key-chunk
# decode's [DBV, BKT] chunks, and the value-tile decode's BV (the old kernel's tuned
# launches at batch 256 are 1 warp for KDA, 2 for GLA; 4-8 warps at batch 1)
SWEEP = {"new": [(64, 32, 1), (32, 32, 1), (128, 32, 2), (64, 64, 2), (64, 32, 2), (16, 32, 1),
                 (128, 32, 4), (256, 32, 4), (256, 32, 8)],   # tiles past V are left out
         "cum-vtiles": [(16, None, 1), (16, None, 2), (32, None, 2), (32, None, 4), (16, None, 8)]}


@functools.lru_cache(maxsize=None)
def load(variant, alt, L):
    """The kernels of one alternative (cached: a load derives and renders, ~0.3 s)."""
    return replaygen.load(variant, config=GEOMS[variant], L=L, state_dtype="fp32",
                          record_dtype="bf16", **ALTS[alt])


def rel(a, b):
    return ((a.double() - b).norm() / b.norm()).item()


def check(variant, device, L=16, num_slots=CHECK_SLOTS, rows=CHECK_ROWS, loader=load, tol=TOL):
    """Every alternative in lockstep against the float64 reference (see the module
    docstring); `loader(variant, alt, L)` gives the kernels (tests: small dims)."""
    device = torch.device(device)
    gen = torch.Generator(device=device).manual_seed(1234)
    kerns = {alt: loader(variant, alt, L) for alt in ALTS}
    any_kern = kerns["old"]
    params = {q.name: torch.randn(any_kern.shape_of(q), device=device, generator=gen) * 0.5
              for q in any_kern.spec.params()}
    S0 = torch.randn((num_slots,) + any_kern.state_shape, device=device, generator=gen) * 0.5
    states = {}
    for alt, k in kerns.items():
        states[alt] = k.new_state(num_slots, device, **params)
        k.load_state(states[alt], torch.arange(num_slots, device=device), S0)
    ref = S0.double()
    p64 = {n: t.double() for n, t in params.items()}
    err = {alt: 0.0 for alt in ALTS}
    diff_new_old = 0.0
    padding_ok = True
    perm = torch.randperm(num_slots, generator=torch.Generator().manual_seed(5)).tolist()
    steps = 2 * L + 3
    for t in range(steps):
        active = perm[: rows - 1] if t % 3 else perm[1:rows]
        slots = torch.tensor(active + [-1], device=device, dtype=torch.int32)
        inputs = {q.name: torch.randn((len(active) + 1,) + any_kern.shape_of(q), device=device,
                                      generator=gen).to(torch.bfloat16)
                  for q in any_kern.spec.inputs()}
        outs = {}
        for alt, k in kerns.items():
            out = torch.full((len(active) + 1, k.plan.HV, k.plan.V), float("nan"),
                             device=device, dtype=torch.bfloat16)
            outs[alt] = k.decode(states[alt], slots, out=out, **inputs)
            padding_ok &= bool((out[-1] == 0).all())
        for r, s in enumerate(active):
            ref[s], o = REFERENCE[variant](ref[s], **{n: v[r].double() for n, v in inputs.items()},
                                           **p64)
            for alt in ALTS:
                err[alt] = max(err[alt], rel(outs[alt][r], o))
            diff_new_old = max(diff_new_old, rel(outs["new"][r], outs["old"][r].double()))
    all_slots = torch.arange(num_slots, device=device, dtype=torch.int32)
    err_state = {}
    for alt, k in kerns.items():   # fold what is left in the rings: the full states
        k.flush(states[alt], all_slots)
        err_state[alt] = max(rel(states[alt].checkpoint[s], ref[s]) for s in range(num_slots))
    if device.type == "cuda":
        torch.cuda.synchronize()
    worst = max(list(err.values()) + list(err_state.values()))
    ok = padding_ok and worst < tol and worst == worst
    return dict(variant=variant, L=L, steps=steps, err_out=err, err_state=err_state,
                new_vs_old=diff_new_old, padding_ok=padding_ok, tol=tol, ok=ok,
                names={alt: k.name for alt, k in kerns.items()})


def sweep_grid(variant, alt):
    V = load(variant, alt, 16).plan.V
    return [(bv, bkt, w) for bv, bkt, w in SWEEP[alt] if bv <= V]


def decode_launch(variant, alt, L, rows, device):
    """The replay_decode launch timed for an alternative: the old kernel's committed
    tuning entry (old, and cum-vtiles, whose tiles mean the same: like for like); the
    plan's choice for the key-chunk decode (None), which has no entry yet."""
    if alt == "new":
        return None
    return load(variant, "old", L).tabled_launch("replay_decode", rows, device)


def precompile_all(device, sweep, log):
    """Compile every timed launch in parallel processes first (Triton's disk cache)."""
    tasks = []
    for variant in VARIANTS:
        for L in LS:
            for alt in ALTS:
                kern = load(variant, alt, L)
                kwargs = dict(config=GEOMS[variant], L=L, state_dtype="fp32", record_dtype="bf16",
                              **ALTS[alt])
                # the check's launches (4 rows, a flush of 6), each kernel's own lookups
                tasks.append((variant, kwargs, [
                    ("replay_decode", kern.tabled_launch("replay_decode", CHECK_ROWS, device)),
                    ("fold", kern.tabled_launch("fold", CHECK_SLOTS, device))],
                    [CHECK_ROWS, CHECK_SLOTS], str(device)))
                for rows in BATCHES:
                    launches = [("replay_decode", decode_launch(variant, alt, L, rows, device))]
                    if alt == "old" and L == 16:
                        launches.append(("conventional_decode",
                                         kern.tabled_launch("conventional_decode", rows, device)))
                    tasks.append((variant, kwargs, launches, [rows], str(device)))
        for alt in SWEEP if sweep else ():
            kwargs = dict(config=GEOMS[variant], L=16, state_dtype="fp32", record_dtype="bf16",
                          **ALTS[alt])
            tasks.append((variant, kwargs, [("replay_decode", Launch(bv, w, 3, bkt))
                                            for bv, bkt, w in sweep_grid(variant, alt)],
                          list(BATCHES), str(device)))
    t0 = time.time()
    failed = precompile(tasks, min(16, os.cpu_count() or 1), log)
    log(f"precompiled {len(tasks)} tasks in {time.time() - t0:.1f} s ({failed} failed)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="bench/results/channel-gates")
    ap.add_argument("--budget-s", type=float, default=110.0,
                    help="start nothing new past this many seconds")
    ap.add_argument("--no-sweep", action="store_true")
    args = ap.parse_args()
    start = time.time()
    device = torch.device("cuda", torch.cuda.current_device())
    report = dict(meta=environment(["bench/channel_gates.py"] + sys.argv[1:]), checks=[],
                  timings=[], sweep=[])
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)

    def save():
        (out_dir / "channel_gates.json").write_text(json.dumps(report, indent=1))

    def left():
        return args.budget_s - (time.time() - start)

    precompile_all(device, not args.no_sweep, print)
    for variant, L in [(v, L) for L in (16, 32, 8) for v in VARIANTS]:
        t0 = time.time()
        try:
            r = check(variant, device, L=L)
        except Exception as exc:  # noqa: BLE001 - reported as a failure
            r = dict(variant=variant, L=L, ok=False, error=repr(exc)[:2000])
        r["seconds"] = round(time.time() - t0, 1)
        report["checks"].append(r)
        save()
        print(("PASS" if r["ok"] else "FAIL"), json.dumps(r), flush=True)

    timer = Timer(device, reps=20, budget_ms=40.0)
    rows_max = max(BATCHES)

    def timings(variant, L, alt):
        kern = load(variant, alt, L)
        work = Workload(kern, pool_size([rows_max]), device)
        for rows in BATCHES:
            launch = decode_launch(variant, alt, L, rows, device)
            kern.forced = {"replay_decode": launch} if launch else {}
            r = dict(variant=variant, L=L, alt=alt, batch=rows, name=kern.name,
                     launch=launch.as_dict() if launch else "plan")
            r.update(work.time_replay(timer, rows))
            if alt == "old" and L == 16:
                r["conventional"] = work.time_kernel(timer, "conventional_decode", rows)
            report["timings"].append(r)
            print("TIME", json.dumps(r), flush=True)

    def sweep(variant, alt):
        kern = load(variant, alt, 16)
        work = Workload(kern, pool_size([rows_max]), device)
        for bv, bkt, w in sweep_grid(variant, alt):
            kern.forced = {"replay_decode": Launch(bv, w, 3, bkt)}
            for rows in BATCHES:
                ms = work.time_kernel(timer, "replay_decode", rows)
                r = dict(variant=variant, alt=alt, L=16, BV=bv, BKT=bkt, num_warps=w,
                         batch=rows, amortised=ms)
                report["sweep"].append(r)
                print("SWEEP", json.dumps(r), flush=True)

    # the numbers (L = 16) first, then the sweeps, then L = 8 and 32
    jobs = [(timings, (v, 16, a)) for v in VARIANTS for a in ALTS]
    jobs += [(sweep, (v, a)) for v in VARIANTS for a in SWEEP] if not args.no_sweep else []
    jobs += [(timings, (v, L, a)) for L in (8, 32) for v in VARIANTS for a in ALTS]
    for fn, job in jobs:
        if left() < 0:
            print(f"budget spent: skipped {fn.__name__}{job}", flush=True)
            continue
        try:
            fn(*job)
        except Exception as exc:  # noqa: BLE001 - reported; the other jobs still run
            report.setdefault("errors", []).append(f"{fn.__name__}{job}: {exc!r}"[:2000])
            print("ERROR", fn.__name__, job, repr(exc)[:500], flush=True)
        torch.cuda.empty_cache()
        save()
    report["seconds"] = round(time.time() - start, 1)
    save()
    summarize(report)


def summarize(report):
    print("\n== checks (normwise errors vs float64; tol %.0e) ==" % TOL)
    for c in report["checks"]:
        if "error" in c:
            print(f"{c['variant']} L={c['L']}: FAIL {c['error'][:300]}")
            continue
        errs = " ".join(f"{a}: out {c['err_out'][a]:.2e} state {c['err_state'][a]:.2e}"
                        for a in ALTS)
        print(f"{c['variant']} L={c['L']}: {'PASS' if c['ok'] else 'FAIL'} {errs} | "
              f"new vs old {c['new_vs_old']:.2e}")
    conv = {(t["variant"], t["batch"]): t["conventional"] for t in report["timings"]
            if "conventional" in t}
    print("\n== ms per step (CUDA graphs); speedup = conventional / amortised ==")
    print(f"{'variant':7} {'L':>3} {'batch':>5} {'alt':11} {'nonflush':>9} {'flush':>9} "
          f"{'amortised':>9} {'conv':>8} {'speedup':>7}")
    for t in report["timings"]:
        c = conv.get((t["variant"], t["batch"]))
        sp = f"{c / t['amortised']:.2f}x" if c else "-"
        print(f"{t['variant']:7} {t['L']:>3} {t['batch']:>5} {t['alt']:11} "
              f"{t.get('nonflush', float('nan')):9.4f} {t['flush_step']:9.4f} "
              f"{t['amortised']:9.4f} {c if c else float('nan'):8.4f} {sp:>7}")
    if report["sweep"]:
        print("\n== launch sweeps, L = 16, amortised ms (BKT None: value tiles) ==")
        for s in report["sweep"]:
            print(f"{s['variant']:5} {s['alt']:11} batch {s['batch']:>3} BV {s['BV']:>3} "
                  f"BKT {str(s['BKT']):>4} warps {s['num_warps']}: {s['amortised']:.4f}")
    print(f"\n{report.get('seconds', '?')} s")


if __name__ == "__main__":
    main()
