"""Where a value-tile kernel's warps wait, by phase: an ncu source page (SASS, CSV) split at
the kernel's first cp.async (LDGSTS, the stream's first tile) into the head phase before it
and the stream after it, with each phase's warp-stall samples by reason and the busiest
instructions.

Input: `ncu -i REPORT --page source --csv --print-source sass > F.csv` (gzip optional).
Output: text on stdout. Run from anywhere: python bench/ncu_phases.py F.csv[.gz] [--top N]
(session 39: bench/results/session39-2026-12-05/call5, call6).
"""
from __future__ import annotations

import argparse
import collections
import csv
import gzip


def read_rows(path: str) -> list[dict]:
    """The page's instruction rows (its first line names the kernel, its second the
    columns)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        lines = list(csv.reader(f))
    header, data = lines[1], lines[2:]
    return [dict(zip(header, row)) for row in data]


def summarise(rows: list[dict], top: int) -> str:
    sample = "Warp Stall Sampling (All Samples)"
    reasons = [c for c in rows[0] if c.startswith("stall_") and "Not Issued" not in c]
    split = next((i for i, r in enumerate(rows) if "LDGSTS" in r["Source"]), len(rows))
    total = sum(int(r[sample] or 0) for r in rows) or 1
    out = [f"{len(rows)} instructions, {total} samples; the stream starts at instruction {split}"]
    for name, part in (("head", rows[:split]), ("stream", rows[split:])):
        n = sum(int(r[sample] or 0) for r in part)
        by = collections.Counter()
        for r in part:
            for c in reasons:
                by[c.removeprefix("stall_")] += int(r[c] or 0)
        executed = sum(int(r["Instructions Executed"] or 0) for r in part)
        out.append(f"{name}: {n} samples ({n / total:.1%}), {executed} warp instructions executed; "
                   + ", ".join(f"{k} {v}" for k, v in by.most_common(8)))
    out.append("busiest instructions (index, phase, samples, share, top reason):")
    for i in sorted(range(len(rows)), key=lambda i: -int(rows[i][sample] or 0))[:top]:
        r = rows[i]
        reason = max(reasons, key=lambda c: int(r[c] or 0)).removeprefix("stall_")
        out.append(f"  {i:5d} {'H' if i < split else 'S'} {int(r[sample] or 0):6d} "
                   f"{int(r[sample] or 0) / total:5.1%}  {r['Source'].strip()[:56]:56s} {reason}")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv", help="an ncu source page (CSV, optionally .gz)")
    ap.add_argument("--top", type=int, default=12)
    args = ap.parse_args(argv)
    print(summarise(read_rows(args.csv), args.top))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
