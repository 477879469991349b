"""Which launches of the fold kernel run on this GPU, each in a fresh process.

Session 3 and 4: forcing the commit's fold of a T_MAX = 8 GDN configuration to [64, K]
with 4 warps and 3 stages ended in "illegal instruction" on the H200, which kills the
CUDA context, so every later launch in that process failed too and said nothing. Here
every (T_MAX, kernel use, launch) runs in its own process: a pool at staggered cursors,
then a flush (fold, FLUSH) and a commit that folds (COMMIT) at the forced launch, and
the materialised states compared with the plan's launch on the same pool.

Usage (on the GPU): python bench/fold_probe.py --out DIR [--variant gdn]
    [--cases L,T_MAX,BV,WARPS,STAGES;...]
Session 17 (after session 16's fix of a race between a program's warps on its cursor:
a warp alone in the fold branch ran the product's barriers without the others, most
likely the "illegal instruction"): every [64, K] speculative fold of GDN, KDA and Mamba-2
at L = 16, T_MAX = 8 (w4 s3, w4 s1, w8 s3) ran and matched; launch_constants no longer
refuses them (the call ran this file's `--wide`, which lifted that refusal, at 0bf5eb4).
Writes DIR/fold_probe.json: per case ok / crash (the error) / mismatch (max error).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# (L, T_MAX, BV, num_warps, num_stages). Session 4's first probe: at L = 16, T_MAX = 8
# every [64, K] launch crashed (w4 s1, w4 s3, w8 s3; plan.launch_constants refused them
# until session 17, see above) and [16] / [32] ran; T_MAX = 1 [64]/w4/s3 ran. These: the committed L = 32 tables'
# [64]/w8/s3 fold (the same compiled structure: a 32-row ring tile, 64 KiB shared memory)
# and controls.
CASES = ((32, 1, 64, 8, 3), (32, 1, 64, 4, 3), (32, 1, 32, 4, 3), (16, 8, 32, 4, 3), (16, 1, 64, 4, 3))


def child(variant: str, L: int, max_drafts: int, bv: int, warps: int, stages: int) -> dict:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    import torch
    import replaygen
    from common import GEOMS, random_inputs, random_params
    from replaygen.tuning import Launch
    device, batch = "cuda", 64
    kern = replaygen.load(variant, config=GEOMS[variant], L=L, max_drafts=max_drafts)
    gen = torch.Generator(device=device).manual_seed(3)
    params = random_params(kern, device, gen)
    slots = torch.arange(batch, device=device, dtype=torch.int32)
    S0 = torch.randn((batch,) + kern.state_shape, device=device, generator=gen) * 0.5
    steps = [random_inputs(kern, batch, device, torch.bfloat16, gen) for _ in range(L - 4)]
    T = max_drafts
    drafts = {n: torch.randn((batch, T) + t.shape[1:], device=device, generator=gen).to(t.dtype)
              for n, t in steps[0].items()}
    accept = (torch.arange(batch, device=device) % (T + 1)).to(torch.int32)

    def run(forced):
        state = kern.new_state(batch, device, **params)
        kern.load_state(state, slots, S0)
        for k, inp in enumerate(steps):   # staggered cursors: rows skip some steps
            rows = slots[(torch.arange(batch, device=device) % 4) <= (k % 4)]
            kern.decode(state, rows, **{n: t[: rows.shape[0]] for n, t in inp.items()})
        if forced is not None:
            kern.forced["fold"] = forced
        try:
            if T > 1:
                kern.verify(state, slots, num_drafts=torch.full((batch,), T, device=device,
                                                                dtype=torch.int32), **drafts)
                kern.commit(state, slots, accept)
            kern.flush(state, slots[::2].contiguous())
            out = kern.materialize(state, slots)
            torch.cuda.synchronize()
            return out
        finally:
            kern.forced.pop("fold", None)
            kern._launches.clear()

    ref = run(None)
    got = run(Launch(BV=bv, num_warps=warps, num_stages=stages))
    err = ((got - ref).abs().max() / ref.abs().max()).item()
    return {"max_rel_err": err, "ok": err < 1e-3}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--variant", default="gdn")
    ap.add_argument("--child", nargs=5, type=int, metavar=("L", "T_MAX", "BV", "WARPS", "STAGES"))
    ap.add_argument("--cases", help="L,T_MAX,BV,WARPS,STAGES;... (default: CASES)")
    args = ap.parse_args()
    if args.child:
        print("RESULT " + json.dumps(child(args.variant, *args.child)), flush=True)
        return
    cases = CASES if not args.cases else [tuple(int(x) for x in c.split(","))
                                          for c in args.cases.split(";")]
    results = []
    for L, t_max, bv, w, st in cases:
        case = dict(variant=args.variant, L=L, T_MAX=t_max, BV=bv, warps=w, stages=st)
        try:
            p = subprocess.run([sys.executable, __file__, "--out", args.out, "--variant",
                                args.variant, "--child", str(L), str(t_max), str(bv), str(w), str(st)],
                               capture_output=True, text=True, timeout=60)
            line = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
            if line:
                case.update(json.loads(line[0][7:]))
            else:
                case.update(ok=False, crash=(p.stderr.strip().splitlines() or ["?"])[-1][:200])
        except subprocess.TimeoutExpired:
            case.update(ok=False, crash="timeout")
        print(case, flush=True)
        results.append(case)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "fold_probe.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
