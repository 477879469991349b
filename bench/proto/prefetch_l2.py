"""Prototype (not generated): the key-chunked decode with an L2 bulk prefetch of its
checkpoint block issued before the cursor and records (issue 5, GDN non-flush).

Why: a decode program's first checkpoint chunk is requested only after three dependent
loads (slot -> cursor -> records); at ~6 resident programs per SM that chain is ~10% of a
program's life. Hopper's `cp.async.bulk.prefetch.L2` requests a contiguous range into L2
with one instruction and no registers, so the block streams in while the chain resolves;
the chunk loads then hit L2. Variants are made from the generated module's text (GPU
only: inline PTX), timed against it on the same workload (CUDA graphs, batch 256, L = 16):
non-flush (every cursor at L/2) and amortised (staggered rows).

Usage: python bench/proto/prefetch_l2.py --out FILE.json
"""
import argparse
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

import replaygen  # noqa: E402
from replaygen.perf import Timer, Workload, environment  # noqa: E402

ANCHOR = "    if (i_slot >= 0) & (i_slot < num_slots):\n"


def variant_text(src: str, nbytes: int, offset_bytes: int = 0) -> str:
    """The module text with a bulk L2 prefetch of `nbytes` of the program's checkpoint
    block (from `offset_bytes`) as the first statement of a pool row."""
    start = src.index("def replay_decode_kernel(")
    at = src.index(ANCHOR, start)
    pre = (ANCHOR +
           f"        p_blk = ckpt_ptr + (i_slot * HV + i_hv) * V * K + {offset_bytes // 4}\n"
           f"        tl.inline_asm_elementwise(\"cp.async.bulk.prefetch.L2.global [$1], {nbytes}; mov.u32 $0, 0;\", "
           "\"=r,l\", [p_blk], dtype=tl.int32, is_pure=False, pack=1)\n")
    return src[:at] + pre + src[at + len(ANCHOR):]


def load_text(text: str, name: str):
    path = Path(tempfile.mkdtemp()) / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--variants", default="gdn,mamba2")
    args = ap.parse_args()
    dev = torch.device("cuda")
    timer = Timer(dev, reps=20)
    results = []
    for variant in args.variants.split(","):
        kern = replaygen.load(variant, L=16)
        src = Path(kern.module.__file__).read_text()
        block = kern.plan.V * kern.plan.K * 4
        mods = {"generated": kern.module}
        for frac in (1, 2, 4):
            mods[f"prefetch 1/{frac} block"] = load_text(variant_text(src, block // frac), f"pf{frac}")
        work = Workload(kern, 256, dev)
        ref_out = None
        L = kern.plan.L
        for label, mod in mods.items():
            kern.module = mod
            work.cursors(L // 2)()
            work.decode(256)
            torch.cuda.synchronize()
            out = work.out[:256].float().clone()
            ok = True if ref_out is None else bool(torch.equal(out, ref_out))
            ref_out = out if ref_out is None else ref_out
            nonflush = timer(lambda: work.decode(256), work.cursors(L // 2), True)
            amort = timer(lambda: work.cycle(256), work.staggered(), True, steps=L)
            results.append(dict(variant=variant, kernel=label, same_output=ok, nonflush_ms=nonflush,
                                amortised_ms=amort))
            print(f"{variant:7s} {label:22s} {'same' if ok else 'DIFFERENT'}  non-flush {nonflush:.4f} ms  "
                  f"amortised {amort:.4f} ms", flush=True)
        kern.module = mods["generated"]
        del work
    json.dump(dict(environment=environment(sys.argv), results=results), open(args.out, "w"), indent=1)


if __name__ == "__main__":
    main()
