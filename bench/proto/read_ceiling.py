"""How fast can one program per (row, value head) stream its [V, K] fp32 block?

A ceiling experiment for the decode kernels' access pattern (issue 5): every kernel here
computes out[v] = sum_k S[v, k] * q[k] for a 512 MiB state (256 rows x 32 heads x
128 x 128 fp32, the Qwen3.5-4B GDN non-flush read) and nothing else, so its time is the
read alone, in each pattern:

* kchunk: [DBV, BKT] chunks of the key axis, [DBV] accumulators (the generated
  key-chunk decode's pattern), grid (rows, heads);
* rows: [BV, K] tiles of whole rows (contiguous BV * 512 bytes), grid (rows, heads, V / BV)
  (the conventional kernel's pattern);
* torch: (S * q).sum(-1) as a reference; copy: a device-to-device copy (read + write).

Usage: python bench/proto/read_ceiling.py --out FILE.json
"""
import argparse
import json
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def kchunk_read(S_ptr, q_ptr, out_ptr, V: tl.constexpr, K: tl.constexpr, HV: tl.constexpr,
                DBV: tl.constexpr, BKT: tl.constexpr, CG: tl.constexpr):
    i_b = tl.program_id(0)
    i_h = tl.program_id(1)
    blk = (i_b * HV + i_h).to(tl.int64)
    o_vb = tl.arange(0, DBV)
    o_kb = tl.arange(0, BKT)
    for i_v in range(V // DBV):
        o_v = i_v * DBV + o_vb
        acc = tl.zeros([DBV], tl.float32)
        for i_k in range(K // BKT):
            o_k = i_k * BKT + o_kb
            p = S_ptr + (blk * V + o_v[:, None]) * K + o_k[None, :]
            if CG:
                c = tl.load(p, cache_modifier=".cg")
            else:
                c = tl.load(p)
            qk = tl.load(q_ptr + i_h * K + o_k)
            acc += tl.sum(c * qk[None, :], axis=1)
        tl.store(out_ptr + blk * V + o_v, acc)


@triton.jit
def rows_read(S_ptr, q_ptr, out_ptr, V: tl.constexpr, K: tl.constexpr, HV: tl.constexpr,
              BV: tl.constexpr):
    i_b = tl.program_id(0)
    i_h = tl.program_id(1)
    i_v = tl.program_id(2)
    blk = (i_b * HV + i_h).to(tl.int64)
    o_v = i_v * BV + tl.arange(0, BV)
    o_k = tl.arange(0, K)
    c = tl.load(S_ptr + (blk * V + o_v[:, None]) * K + o_k[None, :])
    qk = tl.load(q_ptr + i_h * K + o_k)
    tl.store(out_ptr + blk * V + o_v, tl.sum(c * qk[None, :], axis=1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    ap.add_argument("--rows", type=int, default=256)
    args = ap.parse_args()
    B, HV, V, K = args.rows, 32, 128, 128
    S = torch.randn(B, HV, V, K, device="cuda")
    q = torch.randn(HV, K, device="cuda")
    out = torch.empty(B, HV, V, device="cuda")
    ref = (S * q[None, :, None, :]).sum(-1)
    nbytes = S.numel() * 4
    dst = torch.empty_like(S)
    results = []

    def rec(name, fn, factor=1):
        out.fill_(float("nan"))
        fn()
        torch.cuda.synchronize()
        ok = name.startswith("copy") or torch.allclose(out, ref, rtol=1e-4, atol=1e-3)
        ms = triton.testing.do_bench(fn, warmup=5, rep=40, return_mode="median")
        tbs = factor * nbytes / ms / 1e9
        results.append(dict(name=name, ms=ms, TBps=tbs, ok=bool(ok)))
        print(f"{name:40s} {ms:8.4f} ms {tbs:6.2f} TB/s {'ok' if ok else 'WRONG'}", flush=True)

    rec("copy (read+write)", lambda: dst.copy_(S), factor=2)
    rec("torch (S*q).sum(-1)", lambda: out.copy_((S * q[None, :, None, :]).sum(-1)))
    for bv in (8, 16, 32):
        for w in (1, 2, 4):
            if bv * K // (32 * w) < 8:
                continue
            rec(f"rows BV={bv} w={w}",
                lambda bv=bv, w=w: rows_read[(B, HV, V // bv)](S, q, out, V, K, HV, bv, num_warps=w))
    for dbv in (32, 64, 128):
        for bkt in (32, 64, 128):
            for w in (1, 2, 4, 8):
                e = dbv * bkt // (32 * w)
                if not 16 <= e <= 128:
                    continue
                for st in (1, 3):
                    for cg in ((False, True) if (dbv, bkt) in ((128, 32), (64, 32)) else (False,)):
                        rec(f"kchunk {dbv}x{bkt} w={w} s={st}{' cg' if cg else ''}",
                            lambda dbv=dbv, bkt=bkt, w=w, st=st, cg=cg: kchunk_read[(B, HV)](
                                S, q, out, V, K, HV, dbv, bkt, cg, num_warps=w, num_stages=st))
    if args.out:
        json.dump(dict(gpu=torch.cuda.get_device_name(), rows=B, bytes=nbytes, results=results),
                  open(args.out, "w"), indent=1)


if __name__ == "__main__":
    sys.exit(main())
