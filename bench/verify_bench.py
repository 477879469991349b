"""Key-chunked verify (issue 3) on the GPU: checks and timings in one short run (~2 min).

Usage (on the H200): python bench/verify_bench.py --out DIR
    [--variants mamba2,gdn] [--batch 256] [--drafts 2,4,8] [--max-drafts 8] [--no-alternatives] [--fold-alternatives]

For the real geometry of each scalar-decay variant (bench/common.py GEOMS), fp32
checkpoint, bf16 records and inputs, L = 16, kernels built for max_drafts = --max-drafts:

1. check (PASS/FAIL):
   - new verify vs the value-tile verify (the previous kernel, rendered from the same plan
     with verify.py.j2) on one state with rows at staggered cursors: outputs, the drafts'
     ring records and the pending-draft counts, normwise (tolerance CHECK_TOL: bf16 outputs
     and records, 2^-9 each, tf32 products in both);
   - new verify/commit vs the conventional speculative path (per-draft snapshots, select)
     over 6 windows of random T, draft counts and acceptance (bench/spec_bench.py's check):
     outputs and the materialised states;
   - padding rows and drafts past a row's count give zeros.
2. timings at batch --batch, T in --drafts (CUDA-graph medians, ms per step of T drafts):
   verify alone (new, value-tile), verify + commit amortised over a flush cycle (new,
   value-tile), the snapshot baseline (conventional_verify + select), one conventional
   decode step; and, unless --no-alternatives, at the largest T, verify alone with other
   key-chunk launches (value tile DBV, key chunk BKT, warps, stages, a ptxas register cap)
   forced through Kernels.forced, so the plan's choice can be checked. Ratios: verify+commit / conventional decode (target
   <= 1.1 at T = 8) and snapshots / verify+commit (target >= 5); the sympy bytes model's
   ratios (replaygen/traffic.py speculative) next to them.

Writes DIR/verify_bench.json and prints a compact table. Throwaway buffers only.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GEOMS, bench, random_params  # noqa: E402
import torch  # noqa: E402

import replaygen  # noqa: E402
from replaygen.derive import derive  # noqa: E402
from replaygen.perf import environment  # noqa: E402
from replaygen.plan import VERIFY_VALUE_TILES, _pick_verify_warps, verify_is_chunked  # noqa: E402
from replaygen.render import render_module  # noqa: E402
from replaygen.runtime import Kernels, _import_module, module_path  # noqa: E402
from replaygen.traffic import speculative, traffic  # noqa: E402
from replaygen.tuning import Launch, TuningTable  # noqa: E402
from spec_bench import L, check_paths, counts, cycle_period, draft_inputs, rel  # noqa: E402

CHECK_TOL = 2e-2
# (DBV, BKT, num_warps, num_stages, maxnreg or 0[, heads]) launches of the key-chunked verify timed
# besides the plan's own (DBV = the value dim padded to <= 128, BKT = 32, 4 warps, Triton's
# 3 stages), at the largest T only. Session 3 (H200, the previous verify, GDN T = 8):
# [128, 16]/w4/s4 0.427 ms, /s3 0.435, [128, 32]/s2 0.482, plan 0.461; 8 warps 2.5x
# slower. ptxas (sm_90, T_MAX = 8) for this version, GDN / Mamba-2 registers and shared
# memory: [128, 32]/s3 142 / 102, 55 KiB; [128, 16]/s4 133 / 110, 37 KiB; [128, 16]/s3
# 131 / 114, 28 KiB; [128, 32]/s2 142 / 110, 37 KiB; [64, 32]/s3 127 / 96, 34 KiB. So
# Mamba-2 runs 4 programs (16 warps) per SM, GDN 3. maxnreg = 128 (a ptxas register cap)
# gives GDN 4 programs per SM with no spills
# (124-128 registers); Mamba-2 would spill 4-12 bytes under it and needs no cap.
# (Launch.maxnreg since session 6: the tuner's phase 2b tries caps too.)
ALTERNATIVES = ((128, 16, 4, 4, 0), (128, 16, 4, 3, 0), (128, 32, 4, 2, 0), (64, 32, 4, 3, 0),
                (128, 32, 4, 3, 128), (128, 16, 4, 4, 128), (128, 16, 4, 3, 128),
                # session 6: the tuned one-warp launch (255 registers, 8 warps per SM) capped
                (64, 32, 1, 3, 0), (64, 32, 1, 3, 128), (64, 32, 1, 3, 168),
                # session 7: session 6's tuned launches (GDN [16, 128]/w1/s2; Mamba-2 the
                # same capped at 128), each program serving `heads` value heads of one key
                # group (Launch.heads; skipped where heads does not divide the group)
                (16, 128, 1, 2, 0), (16, 128, 1, 2, 128), (16, 128, 1, 2, 0, 2),
                (16, 128, 1, 2, 128, 2), (16, 128, 1, 2, 0, 4), (16, 128, 1, 2, 128, 4),
                (16, 128, 1, 2, 128, 3), (16, 128, 1, 2, 128, 6), (16, 128, 1, 2, 128, 12),
                (16, 128, 1, 2, 168, 2), (32, 128, 1, 2, 128, 2), (16, 64, 1, 2, 128, 2))

# (BV, num_warps, num_stages) launches of the commit's fold kernel, timed in verify+commit
FOLD_ALTERNATIVES = ((64, 4, 3), (32, 4, 3), (32, 2, 3))


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="bench/results/verify")
    ap.add_argument("--variants", default="mamba2,gdn")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--drafts", default="2,4,8")
    ap.add_argument("--max-drafts", type=int, default=8)
    ap.add_argument("--no-alternatives", action="store_true")
    # off by default: [64, K]/w4/s3 ends in "illegal instruction" at T_MAX = 8, which kills
    # the process's CUDA context (bench/fold_probe.py runs each launch in its own process)
    ap.add_argument("--fold-alternatives", action="store_true")
    args = ap.parse_args(argv)
    args.variants = [v for v in args.variants.split(",") if v]
    unknown = sorted(set(args.variants) - set(GEOMS))
    if unknown:
        ap.error(f"unknown variants {unknown}; known: {sorted(GEOMS)}")
    args.drafts = [int(t) for t in args.drafts.split(",")]
    if min(args.drafts) < 1 or max(args.drafts) > args.max_drafts:
        ap.error("--drafts must lie in 1..--max-drafts")
    return args


def value_tile_verify(kern: Kernels) -> Kernels:
    """The same configuration with the previous verify structure (verify.py.j2, value
    tiles), as the baseline: the plan is otherwise identical, so states are shared."""
    p = kern.plan
    plan = dataclasses.replace(p, verify_template=VERIFY_VALUE_TILES,
                               verify_warps=_pick_verify_warps(p.BV, p.BK, p.channel_gate))
    text = render_module(plan, derive(kern.spec))
    module = _import_module(module_path(plan, text), plan.name + "__vtiles_verify")
    # the same tuned launches, but one value head per program: the value-tile verify
    # serves one head per program (Launch.heads is the key-chunked verify's)
    table = TuningTable("<value-tile verify>")
    if kern.tuning is not None:
        for gpu, config, kernel, batch, launch, info in kern.tuning.entries():
            table.add(gpu, config, kernel, batch, dataclasses.replace(launch, heads=1), **info)
    return Kernels(kern.spec, plan, module, table)


def staggered_state(kern, params, batch, T, device, gen):
    """A pool whose rows sit at cursors (r % period) * T with real records (period:
    spec_bench.cycle_period, the verify+commit steps of full acceptance in one flush
    cycle)."""
    slots = torch.arange(batch, device=device, dtype=torch.int32)
    state = kern.new_state(batch, device, **params)
    kern.load_state(state, slots, torch.randn((batch,) + kern.state_shape, device=device,
                                              generator=gen) * 0.5)
    full = counts([T] * batch, device)
    period = cycle_period(kern.plan, T)
    phase = torch.arange(batch, device=device) % period
    for k in range(period - 1):
        kern.verify(state, slots, num_drafts=full, check=False,
                    **draft_inputs(kern, batch, T, device, gen))
        kern.commit(state, slots, torch.where(phase > k, full, torch.zeros_like(full)), check=False)
    return slots, state, period


def ring_snapshot(state):
    return {n: r.clone() for n, r in state.ring.items()}


# -- 1. checks ---------------------------------------------------------------------------
def check_against_value_tiles(kern, old, params, device, rows=24):
    """Both verify kernels on one state (rows at staggered cursors, random draft counts,
    padding rows): outputs, drafts' ring rows, pending counts."""
    gen = torch.Generator(device=device).manual_seed(21)
    T = kern.plan.T_MAX
    slots, state, _ = staggered_state(kern, params, rows, min(T, 3), device, gen)
    slots = slots.clone()
    slots[5] = -1   # a padding row
    nd = torch.randint(0, T + 1, (rows,), generator=torch.Generator().manual_seed(4))
    nd[0], nd[1] = T, 0
    nd = nd.to(torch.int32).to(device)
    inputs = draft_inputs(kern, rows, T, device, gen)
    outs, rings, drafted = [], [], []
    for k in (kern, old):
        state.drafted.zero_()
        out = torch.full((rows, T, kern.plan.HV, kern.plan.V), float("nan"), device=device,
                         dtype=torch.bfloat16)
        k.verify(state, slots, num_drafts=nd, out=out, **inputs)
        outs.append(out)
        rings.append(ring_snapshot(state))
        drafted.append(state.drafted.clone())
    cursor = state.cursor[:, 0].tolist()
    err_out = err_rec = 0.0
    zeros = True
    for r in range(rows):
        n_d = int(nd[r])
        if int(slots[r]) < 0:
            zeros &= bool((outs[0][r] == 0).all())
            continue
        zeros &= bool((outs[0][r, n_d:] == 0).all())
        if n_d:
            err_out = max(err_out, rel(outs[0][r, :n_d], outs[1][r, :n_d]))
            n = cursor[r]
            for name in rings[0]:
                a, b = rings[0][name][r, :, n:n + n_d], rings[1][name][r, :, n:n + n_d]
                err_rec = max(err_rec, rel(a.float(), b.float()))
    same_drafted = bool((drafted[0] == drafted[1]).all())
    ok = err_out < CHECK_TOL and err_rec < CHECK_TOL and zeros and same_drafted
    return dict(err_out=err_out, err_records=err_rec, zeros=zeros, same_drafted=same_drafted,
                tol=CHECK_TOL, ok=ok)


# -- 2. timings ----------------------------------------------------------------------------
def time_variant(kern, old, params, batch, T, device, alternatives, fold_alternatives=False):
    gen = torch.Generator(device=device).manual_seed(7)
    slots, state, period = staggered_state(kern, params, batch, T, device, gen)
    inputs = draft_inputs(kern, batch, T, device, gen)
    full = counts([T] * batch, device)
    out = torch.empty((batch, T, kern.plan.HV, kern.plan.V), device=device, dtype=torch.bfloat16)

    def verify(k):
        return lambda: k.verify(state, slots, num_drafts=full, out=out, check=False, **inputs)

    def cycle(k):
        def run():
            for _ in range(period):
                k.verify(state, slots, num_drafts=full, out=out, check=False, **inputs)
                kern.commit(state, slots, full, check=False)
        return run

    res = dict(batch=batch, T=T, cycle_steps=period)
    res["verify_new"] = bench(verify(kern))
    res["verify_old"] = bench(verify(old))
    # a whole flush cycle from these cursors returns every row to them: timing replays
    # see the same mix of folding and plain commits
    res["verify_commit_new"] = bench(cycle(kern), steps=period)
    res["verify_commit_old"] = bench(cycle(old), steps=period)
    pool = torch.randn((batch,) + kern.state_shape, device=device, generator=gen) * 0.5
    snaps = torch.empty(kern.snapshot_shape(batch), device=device)
    res["snapshots"] = bench(lambda: (
        kern.conventional_verify(pool, slots, snaps, num_drafts=full, out=out, check=False,
                                 **inputs, **params),
        kern.conventional_commit(pool, slots, snaps, full, check=False)))
    one = {n: t[:, 0].contiguous() for n, t in inputs.items()}
    out1 = torch.empty((batch, kern.plan.HV, kern.plan.V), device=device, dtype=torch.bfloat16)
    res["conventional_decode"] = bench(
        lambda: kern.conventional_decode(pool, slots, out=out1, **one, **params))
    dec = res["conventional_decode"]
    res["x_decode_new"] = res["verify_commit_new"] / dec
    res["x_decode_old"] = res["verify_commit_old"] / dec
    res["verify_x_decode_new"] = res["verify_new"] / dec
    res["x_snapshots_new"] = res["snapshots"] / res["verify_commit_new"]
    res["x_snapshots_old"] = res["snapshots"] / res["verify_commit_old"]
    if L % T == 0:
        model = speculative(traffic(kern.plan), T)
        res["bytes_x_decode"] = model["vs_decode"]
        res["bytes_x_snapshots"] = model["vs_snapshots"]
    alt = {}
    for bv, bkt, w, st, regs, *more in alternatives:
        heads = more[0] if more else 1
        if bv > 128 or bkt > kern.plan.BK or kern.plan.GROUP % heads:
            continue
        name = f"{bv}x{bkt}/w{w}/s{st}" + (f"/r{regs}" if regs else "") + (f"/h{heads}" if heads > 1 else "")
        kern.forced["verify"] = Launch(BV=bv, num_warps=w, num_stages=st, BKT=bkt,
                                       maxnreg=regs or None, heads=heads)
        try:
            alt[name] = bench(verify(kern))
        except Exception as exc:   # report and go on
            alt[name] = repr(exc)[:200]
        finally:
            kern.forced.pop("verify", None)
            kern._launches.clear()
    res["verify_new_alternatives"] = alt
    # the commit's fold: the speculative configuration's name (..._T<max>_...) has no
    # tuning entries, so it runs at the plan's fold launch; the T_MAX = 1 tables chose
    # [64, K]/w4/s3 at batch 256 for a flush of L - 1 records (0.297 vs 0.311 ms, GDN)
    folds = {}
    for bv, w, st in (FOLD_ALTERNATIVES if alternatives and fold_alternatives else ()):
        kern.forced["fold"] = Launch(BV=bv, num_warps=w, num_stages=st)
        try:
            folds[f"fold {bv}/w{w}/s{st}"] = bench(cycle(kern), steps=period)
        except Exception as exc:   # report and go on
            folds[f"fold {bv}/w{w}/s{st}"] = repr(exc)[:200]
        finally:
            kern.forced.pop("fold", None)
            kern._launches.clear()
    res["verify_commit_new_fold_alternatives"] = folds
    return res


def guarded(section, variant, fn, **extra):
    t0 = time.time()
    try:
        r = fn()
    except Exception as exc:   # record and go on: one run must report everything it can
        r = dict(error=repr(exc)[:2000], ok=False)
    r = dict(variant=variant, **extra, **r, seconds=round(time.time() - t0, 2))
    print(section.upper(), json.dumps(r), flush=True)
    return r


def table(report) -> str:
    lines = ["check                      | ok   | err out  | err rec/state | tol"]
    for c in report["checks"]:
        err2 = c.get("err_records", c.get("err_state", float("nan")))
        lines.append(f"{c['variant']:<7} {c['what']:<18} | {'PASS' if c.get('ok') else 'FAIL'} | "
                     f"{c.get('err_out', float('nan')):.2e} | {err2:.2e}      | {c.get('tol', CHECK_TOL)}"
                     + (f"  {c['error'][:200]}" if "error" in c else ""))
    lines += ["", "variant T | verify new / old | v+commit new / old | snapshots | conv dec "
              "| x dec new / old (bytes) | x snap new / old (bytes)"]
    for b in report["bench"]:
        if "error" in b:
            lines.append(f"{b['variant']} T={b.get('T')}: error {b['error'][:300]}")
            continue
        lines.append(
            f"{b['variant']:<7} {b['T']} | {b['verify_new']:.4f} / {b['verify_old']:.4f} | "
            f"{b['verify_commit_new']:.4f} / {b['verify_commit_old']:.4f} | {b['snapshots']:.4f} | "
            f"{b['conventional_decode']:.4f} | {b['x_decode_new']:.2f} / {b['x_decode_old']:.2f} "
            f"({b.get('bytes_x_decode', float('nan')):.2f}) | {b['x_snapshots_new']:.2f} / "
            f"{b['x_snapshots_old']:.2f} ({b.get('bytes_x_snapshots', float('nan')):.2f})")
        if b.get("verify_commit_new_fold_alternatives"):
            lines.append("    verify+commit new, commit's fold launches: " + ", ".join(
                f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                for k, v in b["verify_commit_new_fold_alternatives"].items()))
        if b["verify_new_alternatives"]:
            lines.append("    verify new, other launches: " + ", ".join(
                f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}"
                for k, v in b["verify_new_alternatives"].items()))
    return "\n".join(lines)


def main(argv=None):
    args = parse_args(argv)
    if not torch.cuda.is_available():
        sys.exit("bench/verify_bench.py needs a CUDA GPU")
    device = "cuda"
    t_start = time.time()
    meta = environment()
    meta["command"] = "python bench/verify_bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    report = dict(meta=meta, checks=[], bench=[])
    print(meta, flush=True)
    for variant in args.variants:
        kern = replaygen.load(variant, config=GEOMS[variant], L=L, state_dtype="fp32",
                              record_dtype="bf16", max_drafts=args.max_drafts)
        if not verify_is_chunked(kern.plan):
            print(f"{variant}: the plan keeps the value-tile verify; skipped", flush=True)
            continue
        old = value_tile_verify(kern)
        params = random_params(kern, device, torch.Generator(device=device).manual_seed(1))
        report["checks"].append(guarded("check", variant, lambda: check_against_value_tiles(
            kern, old, params, device), what="vs value tiles"))
        report["checks"].append(guarded("check", variant, lambda: check_paths(
            kern, params, device), what="vs snapshots"))
        alternatives = () if args.no_alternatives else ALTERNATIVES
        for T in args.drafts:
            report["bench"].append(guarded("bench", variant, lambda: time_variant(
                kern, old, params, args.batch, T, device,
                alternatives if T == max(args.drafts) else (), args.fold_alternatives)))
    report["seconds"] = round(time.time() - t_start, 1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "verify_bench.json").write_text(json.dumps(report, indent=1))
    print(table(report))
    print(f"total {report['seconds']} s; all checks {'PASS' if all(c.get('ok') for c in report['checks']) else 'FAIL'}")


if __name__ == "__main__":
    main()
