"""A commit's fold split over several programs per (row, value head), on the GPU.

Usage (on the H200): python bench/commit_split_bench.py --out DIR
    [--variants mamba2,gdn,kda,gla] [--batches 256,512] [--drafts 8] [--splits 1,2,4,8,16]

For one real geometry per variant (bench/common.py GEOMS), fp32 checkpoint, bf16 records
and inputs, L = 16, the default protocol (no verify_folds): rows staggered over the flush
cycle with full acceptance (spec_bench.StaggeredCycle), so every commit launch mixes rows
that fold (CAP + T records) with rows that only move their cursor. For each split
(Kernels.forced_fold_grid_split; clamped to the fold's value tiles):

- check: one verify + commit from the same state with split 1 and with the split; the
  checkpoint, cursors and pending drafts must be bit-identical (each value tile is
  folded by one program either way), and so must a materialisation of every row;
- time: verify + commit per step, amortised over the cycle (CUDA-graph medians), and
  the commit's share (that minus verify alone); a materialisation of every row (the
  fold of every block, as a flush's, into an fp32 buffer);
- the split Kernels.fold_grid_split's rule picks at that batch (the "rule" column).

Writes DIR/commit_split.json (GPU, versions, date, commit, command, every number) and
DIR/commit_split.md. Throwaway buffers only.
"""
from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import bench, random_params  # noqa: E402
from spec_bench import StaggeredCycle, guarded, load_kernels, write_report  # noqa: E402
import torch  # noqa: E402

from replaygen.perf import environment  # noqa: E402


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ints = lambda s: [int(x) for x in s.split(",")]  # noqa: E731
    p.add_argument("--out", required=True)
    p.add_argument("--variants", type=lambda s: s.split(","), default=["mamba2", "gdn", "kda", "gla"])
    p.add_argument("--batches", type=ints, default=[256, 512])
    p.add_argument("--drafts", type=int, default=8)
    p.add_argument("--splits", type=ints, default=[1, 2, 4, 8, 16])
    return p.parse_args(argv)


def cloned(state):
    """A copy of a ReplayState whose tensors are all fresh copies."""
    copy = lambda x: x.clone() if isinstance(x, torch.Tensor) else x  # noqa: E731
    return dataclasses.replace(
        state, checkpoint=state.checkpoint.clone(), cursor=state.cursor.clone(),
        ring={k: v.clone() for k, v in state.ring.items()},
        aux={k: v.clone() for k, v in state.aux.items()},
        drafted=copy(state.drafted), fold_queue=copy(state.fold_queue))


def same_step(cyc, split) -> bool:
    """One verify + commit from the same state at split 1 and at `split`: bit-identical?"""
    kern, results = cyc.kern, []
    start = cloned(cyc.state)
    for s in (1, split):
        cyc.state = cloned(start)
        kern.forced_fold_grid_split = s
        cyc.step()
        results.append(cyc.state)
    cyc.state = start
    a, b = results
    return bool(torch.equal(a.checkpoint.view(torch.int32), b.checkpoint.view(torch.int32))
                and torch.equal(a.cursor, b.cursor) and torch.equal(a.drafted, b.drafted))


def sweep(kern, params, batch, T, splits, device):
    cyc = StaggeredCycle(kern, params, batch, T, device)
    nv = kern.launch_args("fold", batch, device)[0]["NV"]
    res = dict(batch=batch, T=T, cycle_steps=cyc.period, fold_value_tiles=nv,
               verify_only=bench(cyc.verify), conventional_decode=cyc.conventional_decode_ms(),
               splits=[])
    full = torch.empty((batch,) + kern.state_shape, device=device)
    for s in splits:
        if s > nv:
            continue
        ok = same_step(cyc, s)
        kern.forced_fold_grid_split = s
        vc = bench(cyc.cycle, steps=cyc.period)
        materialize = lambda: kern.materialize(cyc.state, cyc.slots, out=full)  # noqa: E731
        kern.forced_fold_grid_split = 1
        materialize()
        unsplit = full.clone()
        kern.forced_fold_grid_split = s
        materialize()
        same_full = bool(torch.equal(full.view(torch.int32), unsplit.view(torch.int32)))
        res["splits"].append(dict(split=s, identical=ok and same_full, verify_commit=vc,
                                  commit=vc - res["verify_only"],
                                  ratio_to_decode=vc / res["conventional_decode"],
                                  materialize=bench(materialize)))
    kern.forced_fold_grid_split = None
    res["rule_split"] = kern.fold_grid_split(batch, device)   # what a commit takes by default
    return res


def markdown(report) -> str:
    m = report["meta"]
    lines = [f"# Commit fold split: {m.get('gpu')}, {m.get('date')}, commit {m.get('commit')}", "",
             f"`{m['command']}`", "",
             "ms per step of T drafts, full acceptance, rows staggered (CUDA-graph medians); "
             "commit = verify + commit - verify alone; x decode: verify + commit over one "
             "conventional decode step; materialize: every row's full state; identical: one "
             "step and the materialisation at this split bit-identical to split 1.",
             "", "| variant | batch | T | split | verify+commit | commit | x decode | materialize | identical | rule |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in report["bench"]:
        if "error" in r:
            lines.append(f"| {r['variant']} | error: {r['error'][:120]} |")
            continue
        for s in r["splits"]:
            lines.append(f"| {r['variant']} | {r['batch']} | {r['T']} | {s['split']} | "
                         f"{s['verify_commit']:.4f} | {s['commit']:.4f} | "
                         f"{s['ratio_to_decode']:.3f} | {s['materialize']:.4f} | {s['identical']} | "
                         f"{'<-' if s['split'] == r['rule_split'] else ''} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    args = parse_args(argv)
    device = "cuda"
    meta = environment()
    meta["command"] = "python bench/commit_split_bench.py " + " ".join(sys.argv[1:] if argv is None else argv)
    report = dict(meta=meta, bench=[])
    print(meta, flush=True)
    for variant in args.variants:
        kern = load_kernels(variant, args.drafts)
        params = random_params(kern, device, torch.Generator(device=device).manual_seed(1))
        for batch in args.batches:
            report["bench"].append(guarded("bench", variant, lambda: sweep(
                kern, params, batch, args.drafts, args.splits, device)))
    write_report(args.out, "commit_split", report, markdown(report))


if __name__ == "__main__":
    main()
