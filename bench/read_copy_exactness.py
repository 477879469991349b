"""How exactly does each decode structure read a read copy? Non-flush outputs against the
float64 recurrence started from the dequantised read copy itself.

Usage: python bench/read_copy_exactness.py [--variants gdn,mamba2] [--reads nvfp4,fp8]
           [--structures kchunks,vtiles] [--rows 32] [--steps 4] [--device cuda]

Within one window (no flush) every output of the replay is C~·(decay ⊙ q) plus record
terms, with C~ the read copy as stored: so the outputs equal those of the exact
recurrence started from the dequantised read copy, whatever the read copy's own
quantisation error is (records in fp32, inputs as fp32 tensors holding bf16 values and
fp32 outputs, so nothing else rounds). What remains is the decode's arithmetic: ~1e-7
for fp32 products, ~1e-4 for the key-chunk word paths' fp16 probes. The error study
(`replaygen accuracy`) mixes this with the quantisation error, which is ~500x larger;
this script separates them (bench/NOTES.md, session 10: the key-chunk NVFP4 read's error).
Launches: the plan's, and the one the committed tuning table gives the study's
configuration (bf16 records; forced on the fp32-record kernels here).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import torch  # noqa: E402

import formats_reference as FR  # noqa: E402
import replaygen  # noqa: E402
from harness import VARIANTS  # noqa: E402


def run(variant, read, structure, rows, steps, device, tuning, seed=5):
    case = VARIANTS[variant]
    options = dict(L=16, state_dtype="fp32", read_dtype=read, decode_structure=structure)
    kern = replaygen.load(variant, record_dtype="fp32", tuning=False, **options)
    if tuning:   # the launch the study's configuration (bf16 records) is tuned to, forced
        shipped = replaygen.load(variant, record_dtype="bf16", **options)
        launch = shipped._launch("replay_decode", rows, device)[2]
        if launch is not None:
            kern.forced["replay_decode"] = launch
    p = kern.plan
    H, HV, K, V = p.H, p.HV, p.K, p.V
    gen = torch.Generator().manual_seed(seed)
    params64 = {n: t.double() for n, t in case.params(gen, H, HV, K, V).items()}
    # rows of different magnitudes, so scales differ from row to row and tile to tile
    S0 = (torch.randn(rows, HV, V, K, generator=gen, dtype=torch.float64)
          * torch.rand(rows, HV, V, 1, generator=gen, dtype=torch.float64) * 2)
    state = kern.new_state(rows, device, **{n: t.float().to(device) for n, t in params64.items()})
    slots = torch.arange(rows, dtype=torch.int32, device=device)
    kern.load_state(state, slots, S0.float().to(device))
    prefix = p.quantized.prefix
    parts = {k[len(prefix):]: t.cpu() for k, t in state.aux.items() if k.startswith(prefix)}
    C = FR.dequantize(parts, read, p.quantized.scale, K, p.BV).double()
    S = [C[r].clone() for r in range(rows)]
    worst = 0.0
    for _ in range(steps):
        inputs = {n: t.to(torch.bfloat16).double() for n, t in case.inputs(gen, rows, H, HV, K, V).items()}
        out = kern.decode(state, slots, **{n: t.float().to(device) for n, t in inputs.items()})
        out = out.double().cpu()
        for r in range(rows):
            S[r], o = case.step(S[r], **{n: t[r] for n, t in inputs.items()}, **params64)
            worst = max(worst, ((out[r] - o).norm() / o.norm()).item())
    launch = kern._launch("replay_decode", rows, device)[2]
    return dict(variant=variant, read=read, structure=structure, tuning=bool(tuning), rows=rows,
                steps=steps, launch=str(launch), worst_rel_err=worst)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", default="gdn,mamba2")
    ap.add_argument("--reads", default="nvfp4,fp8")
    ap.add_argument("--structures", default="kchunks,vtiles")
    ap.add_argument("--rows", type=int, default=32)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--out")
    a = ap.parse_args()
    results = []
    for v in a.variants.split(","):
        for read in a.reads.split(","):
            for st in a.structures.split(","):
                for tuning in ((True, False) if a.device == "cuda" else (False,)):
                    r = run(v, read, st, a.rows, a.steps, a.device, tuning)
                    results.append(r)
                    print(json.dumps(r), flush=True)
    if a.out:
        Path(a.out).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
