"""Sweep launch choices (value tile BV, warps) of the replay and conventional kernels.

Usage (on the H200): python bench/sweep.py --out DIR [--variants gdn,kda] [--batch 256]
For each variant's first real geometry (fp32 checkpoint, bf16 records and inputs,
L = 16) and each (BV, num_warps): median times of the conventional step, the replay
step with n = L/2 committed records and no flush, the replay step where every row
flushes, and the replay step amortised over a whole flush cycle with rows staggered.
Writes DIR/sweep.json; prints a table. Throwaway buffers only.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import GEOMS, bench, new_pool  # noqa: E402
import torch  # noqa: E402

import replaygen  # noqa: E402
from replaygen.traffic import traffic  # noqa: E402


def run_one(variant, batch, L, bv=None, nw=None, device="cuda"):
    gen = torch.Generator(device=device).manual_seed(7)
    kern = replaygen.load(variant, config=GEOMS[variant], L=L, state_dtype="fp32",
                          record_dtype="bf16", block_v=bv, num_warps=nw)
    params, slots, state, inputs, out = new_pool(kern, batch, device, gen)
    for ring in state.ring.values():   # valid records everywhere, so any cursor is legal
        ring.copy_(torch.randn(ring.shape, device=device, generator=gen) * 0.1)
    for name, ring in state.ring.items():
        if kern.spec.quantities.get(name) is not None and name in ("g",):
            ring.copy_(-ring.abs())
    if "delta" in state.ring:
        state.ring["delta"].abs_()
    pool = (torch.randn((batch,) + kern.state_shape, device=device, generator=gen) * 0.5)
    res = dict(variant=variant, batch=batch, L=L, BV=kern.plan.BV, num_warps=kern.plan.num_warps)
    res["conventional"] = bench(lambda: kern.conventional_decode(pool, slots, out=out, **inputs, **params))
    t_fill = bench(lambda: state.cursor.fill_(L // 2))
    res["copy_state"] = bench(lambda: pool.copy_(state.checkpoint))   # read + write of |S|
    res["nonflush_half"] = bench(lambda: (state.cursor.fill_(L // 2),
                                          kern.decode(state, slots, out=out, **inputs))) - t_fill
    res["nonflush_empty"] = bench(lambda: (state.cursor.fill_(0),
                                           kern.decode(state, slots, out=out, **inputs))) - t_fill
    res["flush_step"] = bench(lambda: (state.cursor.fill_(L - 1),
                                       kern.decode(state, slots, out=out, **inputs))) - t_fill
    stagger = (torch.arange(batch, device=device, dtype=torch.int32) % L)
    state.cursor.copy_(stagger.view(-1, *[1] * (state.cursor.dim() - 1)).expand_as(state.cursor))

    def cycle():
        for _ in range(L):
            kern.decode(state, slots, out=out, **inputs)
    res["amortised"] = bench(cycle, steps=L)
    res["amortised_eager"] = bench(cycle, steps=L, graph=False)
    res["conventional_eager"] = bench(
        lambda: kern.conventional_decode(pool, slots, out=out, **inputs, **params), graph=False)
    res["speedup"] = res["conventional"] / res["amortised"]
    # bytes per token from the sympy traffic model, times the batch, over the time
    t = traffic(kern.plan)
    per_token = t.summary()
    res["traffic_per_token"] = per_token
    res["speedup_cap"] = t.evaluate(t.speedup_cap)
    res["bytes_per_s"] = {k: batch * per_token[b] / (res[k] * 1e-3) for k, b in (
        ("conventional", "conventional"), ("amortised", "amortised"))
        if b in per_token}
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--variants", default=",".join(GEOMS))
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--configs", default="16:4,32:4,32:8,64:8,16:2,32:2")
    args = ap.parse_args()
    rows = []
    for v in args.variants.split(","):
        for c in args.configs.split(","):
            bv, nw = map(int, c.split(":"))
            try:
                r = run_one(v, args.batch, 16, bv, nw)
            except Exception as exc:
                r = dict(variant=v, BV=bv, num_warps=nw, error=repr(exc)[:500])
            rows.append(r)
            print(json.dumps(r), flush=True)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "sweep.json").write_text(json.dumps(rows, indent=1))
    print("\n%-7s %3s %2s %8s %8s %8s %8s %8s %6s %8s %8s %8s" % (
        "variant", "BV", "w", "conv", "nf_half", "nf_empty", "flush", "amort", "x",
        "copyS", "conv_e", "amort_e"))
    for r in rows:
        if "error" in r:
            print(r["variant"], r["BV"], r["num_warps"], r["error"][:200])
            continue
        print("%-7s %3d %2d %8.4f %8.4f %8.4f %8.4f %8.4f %6.3f %8.4f %8.4f %8.4f" % (
            r["variant"], r["BV"], r["num_warps"], r["conventional"], r["nonflush_half"],
            r["nonflush_empty"], r["flush_step"], r["amortised"], r["speedup"],
            r["copy_state"], r["conventional_eager"], r["amortised_eager"]))


if __name__ == "__main__":
    main()
