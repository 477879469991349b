"""Does the order of the flushing programs in a decode launch cost time? (issue 5)

Usage (on the H200): python bench/flush_tail.py --out DIR [--variants gdn,mamba2,kda]
    [--configs NAME,...] [--batch 256] [--L 16] [--launches "tab;BV=64,split=2,..."]

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
and, for reference, none (every program at L/2) and all (every program flushing), and the
amortised step of a staggered flush cycle (Workload.time_replay: L launches, the L2 flushed
once per cycle, as the suite times it). CUDA graphs, medians, the L2 flushed before each
timed run (perf.Timer). `--launches` times each configuration under several decode
launches (`tab`: the table's; else Launch fields `key=value,...`, e.g.
`BV=64,num_warps=1,num_stages=3,BKT=32,stream_first=1,split=2`): does a split of each
(row, value head) over more programs, each folding fewer value tiles, shorten the tail?
A launch with `flush_order` (replaygen/launch_order.py) orders its programs by per-slot
flags the decode before it wrote: before each single-launch run they are set here from the
cursors it gets (value head 0's, both epochs' buffers), as a decode before it would have
left them. "first" and "last" flush some heads of every row, so every row is flagged and
the order is the grid's there.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from replaygen import load  # noqa: E402
from replaygen.perf import Timer, Workload, environment, require_cuda  # noqa: E402
from replaygen.runtime import order_flags  # noqa: E402
from replaygen.spec import load_variant  # noqa: E402
from replaygen.tuning import Launch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import launch_fields  # noqa: E402
from template_ab import check  # noqa: E402  (one staggered cycle per launch, against the first)

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


def set_cursors(state, plan, c: torch.Tensor) -> None:
    """Rows 0.. at cursors c [rows, heads], and the launch order's flags of those slots (both
    epochs) as the decode before would have left them: flushing at the next decode where
    value head 0's ring is full."""
    state.cursor[:c.shape[0]].copy_(c)
    order_flags(state, plan)[:, :c.shape[0]] = (c[:, 0] + 1 >= plan.L).to(torch.int32)


def parse_launch(text: str) -> tuple[bool, dict]:
    """A decode launch as (from the table, fields): `tab` (the table's launch), `tab+k=v,...`
    (the table's with those fields replaced), or `k=v,...` (a Launch of those fields);
    values are ints, booleans 0 / 1."""
    base, _, rest = text.partition("+") if text.startswith("tab") else ("", "", text)
    pairs = (item.partition("=")[::2] for item in filter(None, rest.split(",")))
    return base == "tab", launch_fields(pairs, f"flush_tail: --launches {text!r}")


def forced_launch(kern, text: str, rows: int, device) -> Launch | None:
    """The decode launch `text` asks of `kern` (None: the table's, unchanged)."""
    tabled, fields = parse_launch(text)
    if tabled and not fields:
        return None
    base = kern._launch("replay_decode", rows, device)[2] if tabled else None
    if tabled and base is None:
        raise SystemExit(f"flush_tail: {kern.name} has no tabled decode at batch {rows} for {text!r}")
    return dataclasses.replace(base, **fields) if base else Launch(**fields)


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--variants", default="gdn,mamba2,kda")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--L", type=int, default=16)
    ap.add_argument("--configs", default="", help="only these geometries (default: all)")
    ap.add_argument("--launches", default="tab", help="decode launches, ';'-separated")
    args = ap.parse_args(argv)
    args.launch_list = args.launches.split(";")
    for text in args.launch_list:
        parse_launch(text)   # a typo fails before any GPU time is spent
    return args


def main(argv=None) -> int:
    args = parse(argv)
    device = require_cuda("flush_tail")
    timer = Timer(device)
    report = dict(environment(argv), rows=[])
    report["command"] = "python bench/flush_tail.py " + " ".join(sys.argv[1:] if argv is None else argv)
    for variant in args.variants.split(","):
        for geometry in load_variant(variant).configs:
            if args.configs and geometry.name not in args.configs.split(","):
                continue
            kerns = []
            for text in args.launch_list:
                kern = load(variant, config=geometry.name, L=args.L, state_dtype="fp32")
                forced = forced_launch(kern, text, args.batch, device)
                if forced is not None:
                    kern.forced["replay_decode"] = forced
                kerns.append(kern)
            # the launches' outputs and folded states, one staggered cycle from the same
            # pool, against the first launch's (a wrong launch shows as O(1) or NaN)
            checked = check(kerns, device, args.batch)
            for i, (text, kern) in enumerate(zip(args.launch_list, kerns)):
                work = Workload(kern, args.batch, device)
                launch = kern._launch("replay_decode", args.batch, device)[2]
                row = {"variant": variant, "config": kern.name, "batch": args.batch, "asked": text,
                       "launch": launch.as_dict() if launch else None,
                       "err_out": checked["out"][i], "err_state": checked["state"][i],
                       "nan": checked["nan"][i]}
                for placement in PLACEMENTS:
                    c = cursors(args.batch, kern.plan.HV, args.L, placement).to(device)
                    row[placement] = timer(lambda: work.decode(args.batch),
                                           lambda c=c: set_cursors(work.state, kern.plan, c))
                # what a launch with one flushing program in L would take were the flushing
                # programs' time simply additive
                row["additive"] = row["none"] + (row["all"] - row["none"]) / args.L
                row["amortised"] = timer(lambda: work.cycle(args.batch), work.staggered(), steps=args.L)
                report["rows"].append(row)
                print(f"{kern.name} [{text}] err {row['err_out']:.1e}/{row['err_state']:.1e}: " + " ".join(
                    f"{p} {row[p]:.4f}" for p in PLACEMENTS + ("additive", "amortised")) + " ms", flush=True)
                del work
                torch.cuda.empty_cache()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "flush_tail.json").write_text(json.dumps(report, indent=1) + "\n")
    lines = [f"# Flushing programs' placement in a decode launch ({report['gpu']}, {report['date']}, "
             f"commit {report['commit']})", "", f"`{report['command']}`", "",
             "ms per launch, one program in L flushing; additive: none + (all - none) / L.", "",
             "| config | launch | " + " | ".join(PLACEMENTS) + " | additive | spread - first | amortised | err out / state |",
             "|---|---|" + "---|" * (len(PLACEMENTS) + 4)]
    for r in report["rows"]:
        lines.append(f"| {r['config']} | {r['asked']} | " + " | ".join(f"{r[p]:.4f}" for p in PLACEMENTS)
                     + f" | {r['additive']:.4f} | {r['spread'] - r['first']:+.4f} | {r['amortised']:.4f} "
                     f"| {r['err_out']:.1e} / {r['err_state']:.1e}{' NaN' if r['nan'] else ''} |")
    (args.out / "flush_tail.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
