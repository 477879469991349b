"""Merge tuning tables that several device calls wrote from the same committed table into it.

Usage (from the repository root, after the calls' tarballs are unpacked):
    python bench/merge_tables.py gdn CALL_B CALL_E [--table generated/gdn/tuning.json]

Each CALL folder holds `tables/VARIANT.json`, the table as `replaygen tune` left it after
a call that started from the committed table (bench/gpu_env.sh copies them to
$OUT/tables). Calls chained on one warm machine all start from that committed table, so
copying the last call's file would drop what the calls before it changed; this takes,
in the order the calls are given (the order they ran):
- every entry whose launch a call changed (a new entry, or one whose fields other than
  its times differ from the committed one), with that call's times;
- each call's new provenance records (its meta and the `earlier` ones the committed
  table lacks), newest first, ahead of the committed table's.
Entries a call only re-timed keep their committed times. Two calls that change the same
entry differently are refused by name: that needs a run of its own to decide.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

TIMES = {"ms", "plan_ms"}


def key(entry: dict) -> tuple:
    return entry["config"], entry["kernel"], entry["batch"]


def launch(entry: dict) -> dict:
    return {k: v for k, v in entry.items() if k not in TIMES}


def sweeps(meta: dict) -> list[dict]:
    """A GPU's provenance records, newest first: its meta, then those merged before it."""
    return [{k: v for k, v in meta.items() if k != "earlier"}] + list(meta.get("earlier", []))


def merge(base: dict, calls: list[tuple[str, dict]]) -> tuple[dict, list[str]]:
    """The committed table `base` with each (name, table) of `calls` merged in, and a line
    per entry taken."""
    merged = json.loads(json.dumps(base))
    taken: dict[tuple, tuple[str, dict]] = {}
    lines = []
    for name, table in calls:
        for gpu, new in table["gpus"].items():
            old = base["gpus"].get(gpu, {"entries": []})
            committed = {key(e): e for e in old["entries"]}
            changed = [e for e in new["entries"]
                       if key(e) not in committed or launch(committed[key(e)]) != launch(e)]
            if not changed:
                continue
            target = merged["gpus"].setdefault(gpu, {"meta": new["meta"], "entries": []})
            at = {key(e): i for i, e in enumerate(target["entries"])}
            for e in changed:
                k = key(e)
                if k in taken and launch(taken[k][1]) != launch(e):
                    raise SystemExit(f"{gpu}: {'/'.join(map(str, k))} changed by both {taken[k][0]} "
                                     f"and {name}, differently")
                taken[k] = (name, e)
                if k in at:
                    target["entries"][at[k]] = e
                else:
                    target["entries"].append(e)
                was = committed[k]["ms"] if k in committed else None
                lines.append(f"{gpu}: {k[0]} {k[1]} {k[2]}: {was} -> {e['ms']} ms ({name})")
            if "meta" in old:
                own = sweeps(new["meta"])[: len(sweeps(new["meta"])) - len(sweeps(old["meta"]))]
                chain = own + sweeps(target["meta"])
                target["meta"] = {**chain[0], "earlier": chain[1:]}
    return merged, lines


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("variant")
    ap.add_argument("calls", nargs="+", type=Path, help="call folders, in the order they ran")
    ap.add_argument("--table", type=Path, default=None,
                    help="the committed table (default: generated/VARIANT/tuning.json)")
    args = ap.parse_args(argv)
    path = args.table or Path(__file__).resolve().parents[1] / "generated" / args.variant / "tuning.json"
    base = json.loads(path.read_text())
    calls = [(str(c), json.loads((c / "tables" / f"{args.variant}.json").read_text())) for c in args.calls]
    merged, lines = merge(base, calls)
    path.write_text(json.dumps(merged, indent=1) + "\n")
    print("\n".join(lines) or "no entry changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
