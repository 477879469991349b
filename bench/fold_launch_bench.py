"""The fold launch after a decode whose flush is separate, at other launches (H200).

After a decode step with staggered rows (batch 256, L = 16), one row in 16 has a full
ring: the decode queues those (slot, value head) blocks and the fold launch folds them,
each block split over fold_split programs (runtime.Kernels._fold_queued). Until session
11 the fold launch ran (rows x HV) programs of which 1 in 16 folded: ~0.041 ms of GDN
fp32 + NVFP4's 0.107 ms amortised step against ~0.015 ms for its bytes. The runtime
launches it at the plan's launch (a read copy's tile scales follow the plan's value
tiles, so its BV is fixed; warps, stages and the split are not), or at the warps and
split the decode's tuned launch names (Launch.fold_warps, fold_split). Here every
(split, warps, stages) of the plan's BV (and other BVs where the read copy's scales are
per row), with the configuration's decode launch, is timed in the step it serves: the
non-flush step (cursors at L/2, the fold launch finds nothing to fold), the step with
staggered cursors (16 of 256 rows fold) and the amortised step over a staggered cycle.
Each launch's states after one cycle are checked against the plan's launch's from the
same start.

Usage (on the GPU): python bench/fold_launch_bench.py --out DIR [--variants gdn,mamba2]
Writes DIR/fold_launch_bench.json (GPU, date, commit, command, every row) and .md.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GEOMS  # noqa: E402
import torch  # noqa: E402

import replaygen  # noqa: E402
from replaygen.errors import ConfigError  # noqa: E402
from replaygen.perf import Timer, Workload, environment  # noqa: E402
from replaygen.plan import launch_constants, plan_tiles  # noqa: E402
from replaygen.tuning import Launch  # noqa: E402

READS = {"fp32+nvfp4": dict(read_dtype="nvfp4"), "fp32+fp8row": dict(read_dtype="fp8", fp8_scale="row"),
         "fp16sr+nvfp4": dict(state_dtype="fp16", stochastic=True, read_dtype="nvfp4")}
WARPS, STAGES, SPLITS = (2, 4, 8), (1,), (1, 2, 4, 8)


def geometry(variant: str, dims: str | None) -> dict:
    """load() arguments of the geometry: the variant's real one, or --dims (a check)."""
    if not dims:
        return {"config": GEOMS[variant]}
    return {k: int(v) for k, v in (kv.split("=") for kv in dims.split(","))}


def candidates(plan) -> list[tuple[int, Launch]]:
    """(fold_split, fold launch) pairs."""
    tile_scales = plan.read is not None and plan.read.scale == "tile"
    bvs = (plan.BV,) if tile_scales else (plan.BV, 2 * plan.BV)
    out = []
    for bv in bvs:
        try:
            tiles = launch_constants(plan, "fold", bv)["NV"]
        except ConfigError:
            continue
        for split in SPLITS:
            if split > 1 and split // 2 >= tiles:
                continue   # (the runtime clamps a split to the tile count)
            for w in WARPS:
                for s in STAGES:
                    out.append((split, Launch(bv, w, s)))
    return out


def force(kern, cand, batch, device):
    """Force a candidate: its fold launch, and the configuration's decode launch with the
    candidate's split and no fold_warps of its own (None: the shipped launches)."""
    kern.forced = {}
    kern._launches.clear()
    if cand is None:
        return
    split, fold = cand
    decode = kern._launch("replay_decode", batch, device)[2]
    if decode is None:   # the plan's
        bv, bkt, warps = plan_tiles(kern.plan, "replay_decode")
        decode = Launch(bv, warps, kern.plan.STREAM_STAGES, bkt, separate_flush=not kern.plan.FUSED_FLUSH)
    kern.forced = {"fold": fold,
                   "replay_decode": dataclasses.replace(decode, fold_warps=None, fold_split=split)}
    kern._launches.clear()


def _compile(task) -> int:
    """In a spawned process: compile the decode step with each fold launch (padding rows
    only: nothing is read or written), to fill Triton's cache for the timing process."""
    variant, read, launches, batch, geom = task
    kern = replaygen.load(variant, **geom, **READS[read])
    work = Workload(kern, 16, "cuda", init=False, rows=batch)
    for cand in launches:
        force(kern, cand, batch, "cuda")
        work.decode(batch, padding=True)
    torch.cuda.synchronize()
    return len(launches)


def precompile(jobs, batch, geoms):
    import concurrent.futures
    import multiprocessing
    tasks = []
    for variant, read in jobs:
        plan = replaygen.load(variant, **geoms[variant], **READS[read]).plan
        cands = candidates(plan)
        tasks += [(variant, read, cands[i:i + 2], batch, geoms[variant])
                  for i in range(0, len(cands), 2)]
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(12, mp_context=ctx) as pool:
        print("precompiled", sum(pool.map(_compile, tasks)), "launches", flush=True)


def states(kern, work) -> dict:
    """Everything a cycle leaves: the materialised states and the read copy."""
    slots = work.all_slots
    got = {"materialized": kern.materialize(work.state, slots).float()}
    for name, t in work.state.aux.items():
        if name.startswith("read"):   # the read copy: values (codes as integers), scales
            got[name] = t.to(torch.int16) if t.dtype == torch.uint8 else t.float()
    return got


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--variants", default="gdn,mamba2")
    ap.add_argument("--reads", default=",".join(READS))
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--dims", help="a geometry instead of the real one, e.g. H=1,HV=2,K=16,V=16")
    ap.add_argument("--device", default="cuda",
                    help="cpu (TRITON_INTERPRET=1): the checks of a few launches, no timings")
    args = ap.parse_args(argv)
    device = torch.device(args.device)
    cuda = device.type == "cuda"
    timer = Timer(device) if cuda else None
    rows_out = []
    jobs = [(v, r) for v in args.variants.split(",") for r in args.reads.split(",")]
    geoms = {v: geometry(v, args.dims) for v, _ in jobs}
    if cuda:
        precompile(jobs, args.batch, geoms)
    for variant, read in jobs:
        kern = replaygen.load(variant, **geoms[variant], **READS[read])
        ref = Workload(kern, args.batch, device, seed=3)
        ref.state.cursor.copy_(ref.stagger)
        ref.cycle(args.batch)
        want = states(kern, ref)
        del ref
        work = Workload(kern, args.batch, device, seed=3)
        L = kern.plan.L
        for cand in ([None] + candidates(kern.plan))[:None if cuda else 3]:
            force(kern, cand, args.batch, device)
            row = {"variant": variant, "read": read, "config": kern.name,
                   "fold": "shipped" if cand is None else
                   f"split {cand[0]}, BV {cand[1].BV}, {cand[1].num_warps} warps, {cand[1].num_stages} stages"}
            # correctness first: one staggered cycle from the reference's start
            check = Workload(kern, args.batch, device, seed=3)
            check.state.cursor.copy_(check.stagger)
            check.cycle(args.batch)
            got = states(kern, check)
            del check
            row["max_abs_diff"] = {k: float((got[k] - want[k]).abs().max()) for k in want}
            if not cuda:
                print(json.dumps(row), flush=True)
                continue
            row["nonflush_ms"] = timer(lambda: work.decode(args.batch), work.cursors(L // 2))
            row["staggered_step_ms"] = timer(lambda: work.decode(args.batch), work.staggered())
            row["amortised_ms"] = timer(lambda: work.cycle(args.batch), work.staggered(), steps=L)
            print(json.dumps(row), flush=True)
            rows_out.append(row)
        kern.forced = {}
        del work
        torch.cuda.empty_cache()
    if not cuda:
        return
    args.out.mkdir(parents=True, exist_ok=True)
    report = {"environment": environment(sys.argv), "rows": rows_out}
    (args.out / "fold_launch_bench.json").write_text(json.dumps(report, indent=1))
    lines = ["| config | fold launch | non-flush ms | staggered step ms | amortised ms | max diff |",
             "|---|---|---|---|---|---|"]
    for r in rows_out:
        lines.append(f"| {r['config']} | {r['fold']} | {r['nonflush_ms']:.4f} | "
                     f"{r['staggered_step_ms']:.4f} | {r['amortised_ms']:.4f} | "
                     f"{max(r['max_abs_diff'].values()):.2e} |")
    (args.out / "fold_launch_bench.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
