"""Check and time the value-axis split of the key-chunked decode (issue 5, small batches).

For the first real geometry of each variant whose decode splits (key chunks, or value
tiles of a plain state): (1) correctness on the GPU, where the
programs sharing a (row, value head) really run concurrently: 3 flush cycles of decode
steps with staggered cursors, split 2/4/8 against split 1 on the same inputs; outputs,
checkpoints, rings, cursors and drafted must be bit-identical (each value tile runs the
same code in either launch); (2) the amortised decode step (CUDA graphs, staggered rows)
at batch 1, 8 and 64 for each split, next to the conventional step.

Usage: python bench/split_check.py --out FILE.json [--variants gdn,mamba2]
"""
import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

import replaygen  # noqa: E402
from replaygen.perf import Timer, Workload, environment  # noqa: E402
from replaygen.plan import decode_is_chunked, decode_splits  # noqa: E402
from replaygen.spec import load_variant  # noqa: E402
from replaygen.tuning import Launch  # noqa: E402


def same(a, b):
    return torch.equal(a.view(torch.uint8) if a.dtype != torch.int32 else a,
                       b.view(torch.uint8) if b.dtype != torch.int32 else b)


def check(kern, launch: Launch, base: Launch, rows: int, device="cuda") -> bool:
    """Two workloads from one seed; one decodes with `launch`, the other with `base`."""
    works = []
    for forced in (base, launch):
        kern.forced = {"replay_decode": forced}
        kern._launches.clear()
        w = Workload(kern, rows, device, seed=5)
        w.staggered()()
        for _ in range(3 * kern.plan.L):
            w.decode(rows)
        works.append(w)
    kern.forced = {}
    kern._launches.clear()
    a, b = works
    ok = same(a.out, b.out) and same(a.state.checkpoint, b.state.checkpoint)
    ok = ok and torch.equal(a.state.cursor, b.state.cursor) and torch.equal(a.state.drafted, b.state.drafted)
    ok = ok and all(same(a.state.ring[n], b.state.ring[n]) for n in a.state.ring)
    return bool(ok)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--variants", default="gdn,mamba2,kda")
    args = ap.parse_args()
    dev = torch.device("cuda")
    timer = Timer(dev, reps=20)
    results = []
    for variant in args.variants.split(","):
        for cfg in load_variant(variant).configs[:1]:
            kern = replaygen.load(variant, config=cfg.name, L=16)
            if not decode_splits(kern.plan):
                continue
            p = kern.plan
            shapes = (((64, 32, 1), (32, 32, 1), (16, 32, 1)) if decode_is_chunked(p)
                      else ((32, None, 4), (16, None, 2), (16, None, 1)))   # value tiles
            for dbv, bkt, w in shapes:
                dnv = -(-p.V // dbv)
                base = Launch(dbv, w, 3, bkt)
                for split in (1, 2, 4, 8):
                    if split > dnv:
                        continue
                    launch = Launch(dbv, w, 3, bkt, split)
                    ok = check(kern, launch, base, 5) if split > 1 else True
                    kern.forced = {"replay_decode": launch}
                    kern._launches.clear()
                    times = {}
                    work = Workload(kern, 64, dev)
                    for rows in (1, 8, 64):
                        times[rows] = work.time_kernel(timer, "replay_decode", rows)
                    kern.forced = {}
                    kern._launches.clear()
                    conv = {rows: work.time_kernel(timer, "conventional_decode", rows) for rows in (1, 8, 64)} \
                        if split == 1 and dbv == shapes[0][0] else None
                    del work
                    r = dict(variant=variant, config=cfg.name, DBV=dbv, BKT=bkt, warps=w, split=split,
                             correct=ok, amortised_ms=times, conventional_ms=conv)
                    results.append(r)
                    print(f"{variant:7s} {cfg.name:22s} [{dbv:3d},{bkt or '-':>3}] w{w} split {split}: "
                          f"{'PASS' if ok else 'FAIL'}  " + "  ".join(f"b{b}: {t:.4f}" for b, t in times.items())
                          + (("   conventional " + "  ".join(f"b{b}: {t:.4f}" for b, t in conv.items())) if conv else ""),
                          flush=True)
    json.dump(dict(environment=environment(sys.argv), results=results), open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
