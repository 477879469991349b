"""Merge tuning tables that several device calls wrote from the same committed table into it.

Usage (from the repository root, after the calls' tarballs are unpacked):
    python bench/merge_tables.py gdn CALL_B CALL_E [--table generated/gdn/tuning.json]

Each CALL folder holds `tables/VARIANT.json`, the table as `replaygen tune` left it after
a call that started from the committed table (bench/gpu_env.sh copies them to
$OUT/tables). Calls chained on one warm machine all start from that committed table, so
copying the last call's file would drop what the calls before it changed. This merges,
in the order the calls are given (the order they ran), each call's entries whose launch
it changed (a new entry, or another launch than the committed one), with that call's
times and provenance (TuningTable.merge). Entries a call only re-timed keep their
committed times. Two calls that change the same entry differently are refused by name:
that needs a run of its own to decide.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common  # noqa: E402,F401  (puts the repository on sys.path)

from replaygen.tuning import TuningTable  # noqa: E402


def merge(base: dict, calls: list[tuple[str, dict]]) -> tuple[dict, list[str]]:
    """The committed table `base` (its JSON) with each (name, table JSON) of `calls` merged
    in, and a line per entry taken."""
    variant = base["variant"]
    table = TuningTable.from_json(base, "committed", variant)
    committed = {(g, c, k, b): (launch, info) for g, c, k, b, launch, info in table.entries()}
    taken: dict[tuple, tuple[str, object]] = {}
    lines = []
    for name, data in calls:
        call = TuningTable.from_json(data, name, variant)
        changed = TuningTable(name)
        for g, c, k, b, launch, info in call.entries():
            key = (g, c, k, b)
            if key in committed and committed[key][0] == launch:
                continue
            if key in taken and taken[key][1] != launch:
                raise SystemExit(f"{g}: {c}/{k}/{b} changed by both {taken[key][0]} and {name}, "
                                 "differently")
            taken[key] = (name, launch)
            changed.add(g, c, k, b, launch, **info)
            changed.meta[g] = call.meta[g]
            was = committed[key][1].get("ms") if key in committed else None
            lines.append(f"{g}: {c} {k} {b}: {was} -> {info.get('ms')} ms ({name})")
        table.merge(changed)
    return table.to_json(variant), lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant")
    ap.add_argument("calls", nargs="+", type=Path, help="call folders, in the order they ran")
    ap.add_argument("--table", type=Path, default=None,
                    help="the committed table (default: generated/VARIANT/tuning.json)")
    args = ap.parse_args(argv)
    path = args.table or Path(__file__).resolve().parents[1] / "generated" / args.variant / "tuning.json"
    base = TuningTable.read(path, args.variant).to_json(args.variant)
    calls = [(str(c), TuningTable.read(c / "tables" / f"{args.variant}.json", args.variant)
              .to_json(args.variant)) for c in args.calls]
    merged, lines = merge(base, calls)
    TuningTable.from_json(merged, str(path), args.variant).write(path, args.variant)
    print("\n".join(lines) or "no entry changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
