"""Does the order of the flushing programs in a decode launch cost time? (issue 5)

Usage (on the H200): python bench/flush_tail.py --out DIR [--variants gdn,mamba2,kda]
    [--batch 256] [--L 16]

In a staggered flush cycle one (row, value head) program in L flushes, and a flushing
program runs 2-3x as long as the others (session 23, ncu): after its stream it re-reads
its chunks and folds them. Session 23 measured the staggered launch 12 us slower than its
extra bytes explain. If the flushing programs that start last finish after every other
program (a tail with few programs resident), the launch order matters, and balancing the
folds across the launch (NOTES, session 29's next list) could pay; if not, it cannot.

One decode launch of each configuration's tabled launch at `--batch` rows, with one
program in L flushing (cursor L - 1) and the others at cursor L/2, the flushing programs
placed:
- first: the first 1/L of the launch order (the grid is (rows, value heads, split), rows
  fastest, so that is the first value heads of every row);
- last: the last 1/L;
- spread: every L-th row, all its heads (a staggered cycle's placement, as in serving);
and, for reference, none (every program at L/2) and all (every program flushing). CUDA
graphs, medians, the L2 flushed before each launch (perf.Timer).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from replaygen import load  # noqa: E402
from replaygen.perf import Timer, Workload, environment, require_cuda  # noqa: E402
from replaygen.spec import load_variant  # noqa: E402

PLACEMENTS = ("none", "first", "spread", "last", "all")


def cursors(rows: int, heads: int, L: int, placement: str) -> torch.Tensor:
    """[rows, heads] int32 cursors: flushing programs at L - 1, the others at L // 2."""
    row = torch.arange(rows).view(-1, 1).expand(rows, heads)
    head = torch.arange(heads).view(1, -1).expand(rows, heads)
    linear = head * rows + row            # launch order of grid (rows, heads): rows fastest
    flushing = -(-rows * heads // L)      # one program in L, rounded up
    flush = {"none": torch.zeros_like(row, dtype=torch.bool),
             "first": linear < flushing,
             "last": linear >= rows * heads - flushing,
             "spread": row % L == L - 1,
             "all": torch.ones_like(row, dtype=torch.bool)}[placement]
    return torch.where(flush, L - 1, L // 2).to(torch.int32)


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--variants", default="gdn,mamba2,kda")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--L", type=int, default=16)
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = parse(argv)
    device = require_cuda("flush_tail")
    timer = Timer(device)
    report = dict(environment(argv), rows=[])
    report["command"] = "python bench/flush_tail.py " + " ".join(sys.argv[1:] if argv is None else argv)
    for variant in args.variants.split(","):
        for geometry in load_variant(variant).configs:
            kern = load(variant, config=geometry.name, L=args.L, state_dtype="fp32")
            work = Workload(kern, args.batch, device)
            launch = kern._launch("replay_decode", args.batch, device)[2]
            row = {"variant": variant, "config": kern.name, "batch": args.batch,
                   "launch": launch.as_dict() if launch else None}
            for placement in PLACEMENTS:
                c = cursors(args.batch, kern.plan.HV, args.L, placement).to(device)
                row[placement] = timer(lambda: work.decode(args.batch),
                                       lambda c=c: work.state.cursor[:args.batch].copy_(c))
            # what a launch with one flushing program in L would take were the flushing
            # programs' time simply additive
            row["additive"] = row["none"] + (row["all"] - row["none"]) / args.L
            report["rows"].append(row)
            print(f"{kern.name}: " + " ".join(f"{p} {row[p]:.4f}" for p in PLACEMENTS + ("additive",))
                  + " ms", flush=True)
            del work
            torch.cuda.empty_cache()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "flush_tail.json").write_text(json.dumps(report, indent=1) + "\n")
    lines = [f"# Flushing programs' placement in a decode launch ({report['gpu']}, {report['date']}, "
             f"commit {report['commit']})", "", f"`{report['command']}`", "",
             "ms per launch, one program in L flushing; additive: none + (all - none) / L.", "",
             "| config | " + " | ".join(PLACEMENTS) + " | additive | spread - first |",
             "|---|" + "---|" * (len(PLACEMENTS) + 2)]
    for r in report["rows"]:
        lines.append(f"| {r['config']} | " + " | ".join(f"{r[p]:.4f}" for p in PLACEMENTS)
                     + f" | {r['additive']:.4f} | {r['spread'] - r['first']:+.4f} |")
    (args.out / "flush_tail.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
