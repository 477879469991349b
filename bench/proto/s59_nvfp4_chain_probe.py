"""Is the NVFP4 non-flush decode short of bandwidth because of its programs' chains of
dependent loads? A probe of the access pattern with almost no arithmetic (session 59).

The generated decode (GDN 4B, NVFP4 read copy, batch 256, n = 8 committed records) runs one
program per (row, value head), one warp each, 16 warps per SM, and moves the byte model's
bytes at ~53% of the H100's DRAM bandwidth while its warps wait on memory (ncu, session 58).
Each program walks a chain of dependent loads: the slot, then the cursor, then the records
and the token's inputs, then the copy's key chunks one after another (the chunk loop is not
pipelined: num_stages 1 won every sweep), then the value records. Every kernel here loads
what that decode loads, in the same layout ([rows, K / 16] 8-byte words and their block
scales, records [RING, K] and [RING, V] bf16, the token's q, k, v), and folds it into an
output with a few integer and float operations per word ("real": with the decode's own
arithmetic instead: q and k normalised, the int8 word products of formats, the records'
scores and the delta rule). Every version is checked against its kind's reference (one
program per item, whole rows) before it is timed. The versions:

* chain: the decode's pattern, one program per (row, value head) at 1, 4 or 8 warps, the
  copy read in [V, BKT] chunks one after another (BKT = K: in one piece);
* persistent: 1-3 programs per SM, each looping over (row, value head) items with the
  next item's loads issued before the current item's arithmetic (its slot two items
  ahead, its cursor one item ahead of that), so a program always has one item's bytes in
  flight;
* decode: the generated decode itself (replaygen.perf.Workload.time_replay's non-flush
  step), the same bytes with the real arithmetic and the generated structure;
* a 1 GiB device copy, the rate reference.

If persistent moves the bytes much faster than chain (and persistent real faster than the
decode), a persistent decode (the item loop around the decode's straight-line body) is
worth building; if chain is already near the copy rate, the arithmetic, not the chain,
holds the decode back.

Usage (GPU):  python bench/proto/s59_nvfp4_chain_probe.py --out DIR
Check only (a CPU with TRITON_INTERPRET=1, tiny shapes):
              TRITON_INTERPRET=1 python bench/proto/s59_nvfp4_chain_probe.py --tiny
"""
import argparse
import json
import os
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from replaygen import formats  # noqa: E402  (the decode's own word products)


@triton.jit
def _word_sum(wd, bs):
    """A few operations per 8-byte word that use every bit, weighted by its block scale."""
    lo = (wd & 0xFFFFFFFF).to(tl.uint32)
    hi = (wd >> 32).to(tl.uint32)
    x = (lo ^ (hi >> 3)) & 0x00FF00FF
    return x.to(tl.float32) * bs.to(tl.float32)


@triton.jit
def _item_out(acc, rsc, s_q, s_kq, ru, vv):
    """The output of one item from its word sums, records' scores and value records."""
    return tl.sum(acc, axis=1) * rsc + tl.sum(ru * s_q[:, None], axis=0) + vv * s_kq


@triton.jit
def _item_out_real(wd, bs, rsc, q, k, rk, rg, ru, vv, K: tl.constexpr):
    """One item's output with the generated decode's arithmetic (GDN's delta rule): q and k
    normalised, the copy's words against them as int8 products (formats.read_words_dot2_at,
    the decode's own), block scales as e4m3, the records' scores and value terms."""
    KW: tl.constexpr = K // 16
    qf = q.to(tl.float32)
    kf = k.to(tl.float32)
    q_hat = qf * (0.08838834764831845 * tl.math.rsqrt(tl.sum(qf * qf, axis=0) + 1e-06))
    k_hat = kf * tl.math.rsqrt(tl.sum(kf * kf, axis=0) + 1e-06)
    up_q, dn_q = formats.word_probe_scale(tl.max(tl.abs(q_hat), axis=0), True)
    up_k, dn_k = formats.word_probe_scale(tl.max(tl.abs(k_hat), axis=0), True)
    d_q, d_k = formats.read_words_dot2_at(wd.to(tl.uint64, bitcast=True), q_hat, k_hat, up_q, up_k, KW, True)
    b_scale = bs.to(tl.float8e4nv, bitcast=True).to(tl.float32)
    r_scale = rsc * 16384.0   # (the words' values come out as 2^-14 e2m1)
    acc_q = tl.sum(d_q * b_scale, axis=1) * dn_q * r_scale
    acc_k = tl.sum(d_k * b_scale, axis=1) * dn_k * r_scale
    rkf = rk.to(tl.float32)
    w = tl.exp(rg.to(tl.float32))
    s_q = tl.sum(rkf * q_hat[None, :], axis=1) * w
    s_k = tl.sum(rkf * k_hat[None, :], axis=1) * w
    ruf = ru.to(tl.float32)
    w_t = 0.5 * (vv.to(tl.float32) - acc_k - tl.sum(ruf * s_k[:, None], axis=0))
    return acc_q + tl.sum(ruf * s_q[:, None], axis=0) + w_t * tl.sum(q_hat * k_hat, axis=0)


@triton.jit
def chain_kernel(slots_ptr, cursor_ptr, words_ptr, bsc_ptr, rsc_ptr, rk_ptr, rg_ptr, ru_ptr,
                 q_ptr, k_ptr, v_ptr, out_ptr,
                 H: tl.constexpr, HV: tl.constexpr, K: tl.constexpr, V: tl.constexpr,
                 RING: tl.constexpr, GROUP: tl.constexpr, BKT: tl.constexpr, REAL: tl.constexpr):
    KW: tl.constexpr = K // 16
    WPC: tl.constexpr = BKT // 16
    i_b = tl.program_id(0)
    i_hv = tl.program_id(1)
    if REAL:   # (whole rows) the decode's arithmetic: the reference of persistent REAL
        slot = tl.load(slots_ptr + i_b).to(tl.int64)
        n = tl.load(cursor_ptr + slot * HV + i_hv)
        q, k, rk, rg, rsc, wd, bs, ru, vv = _item_loads(
            words_ptr, bsc_ptr, rsc_ptr, rk_ptr, rg_ptr, ru_ptr, q_ptr, k_ptr, v_ptr,
            i_b * HV + i_hv, slot, n, H, HV, K, V, RING, GROUP)
        out = _item_out_real(wd, bs, rsc, q, k, rk, rg, ru, vv, K)
        tl.store(out_ptr + (i_b * HV + i_hv) * V + tl.arange(0, V), out.to(out_ptr.dtype.element_ty))
        return
    i_kh = i_hv // GROUP
    o_k = tl.arange(0, K)
    o_v = tl.arange(0, V)
    o_l = tl.arange(0, RING)
    o_wb = tl.arange(0, WPC)
    slot = tl.load(slots_ptr + i_b).to(tl.int64)
    blk = slot * HV + i_hv
    n = tl.load(cursor_ptr + blk)
    m_l = o_l < n
    q = tl.load(q_ptr + (i_b * H + i_kh) * K + o_k).to(tl.float32)
    k = tl.load(k_ptr + (i_b * H + i_kh) * K + o_k).to(tl.float32)
    rk = tl.load(rk_ptr + ((slot * H + i_kh) * RING + o_l[:, None]) * K + o_k[None, :],
                 mask=m_l[:, None], other=0.0).to(tl.float32)
    rg = tl.load(rg_ptr + blk * RING + o_l, mask=m_l, other=0.0).to(tl.float32)
    s_q = tl.sum(rk * q[None, :], axis=1) * tl.exp(rg)
    s_kq = tl.sum(q * k, axis=0)
    rsc = tl.load(rsc_ptr + blk * (V // 16) + o_v // 16)
    acc = tl.zeros([V, WPC], tl.float32)
    for i_k in tl.range(K // BKT, num_stages=1):   # one chunk after another, as the decode
        o_w = i_k * WPC + o_wb
        p = (blk * V + o_v[:, None]) * KW + o_w[None, :]
        acc += _word_sum(tl.load(words_ptr + p), tl.load(bsc_ptr + p))
    ru = tl.load(ru_ptr + (blk * RING + o_l[:, None]) * V + o_v[None, :], mask=m_l[:, None],
                 other=0.0).to(tl.float32)
    vv = tl.load(v_ptr + (i_b * HV + i_hv) * V + o_v).to(tl.float32)
    tl.store(out_ptr + (i_b * HV + i_hv) * V + o_v, _item_out(acc, rsc, s_q, s_kq, ru, vv).to(out_ptr.dtype.element_ty))


@triton.jit
def _item_loads(words_ptr, bsc_ptr, rsc_ptr, rk_ptr, rg_ptr, ru_ptr, q_ptr, k_ptr, v_ptr, item, slot, n, H: tl.constexpr, HV: tl.constexpr, K: tl.constexpr,
                V: tl.constexpr, RING: tl.constexpr, GROUP: tl.constexpr):
    """Every load of item `item` (its slot and cursor given), as loaded: the token's q, k, v,
    the records, the copy's words and scales."""
    KW: tl.constexpr = K // 16
    o_k = tl.arange(0, K)
    o_v = tl.arange(0, V)
    o_l = tl.arange(0, RING)
    o_w = tl.arange(0, KW)
    i_b = item // HV
    i_hv = item % HV
    kh = i_hv // GROUP
    blk = slot * HV + i_hv
    m_l = o_l < n
    q = tl.load(q_ptr + (i_b * H + kh) * K + o_k)
    k = tl.load(k_ptr + (i_b * H + kh) * K + o_k)
    rk = tl.load(rk_ptr + ((slot * H + kh) * RING + o_l[:, None]) * K + o_k[None, :], mask=m_l[:, None], other=0.0)
    rg = tl.load(rg_ptr + blk * RING + o_l, mask=m_l, other=0.0)
    rsc = tl.load(rsc_ptr + blk * (V // 16) + o_v // 16)
    p = (blk * V + o_v[:, None]) * KW + o_w[None, :]
    wd = tl.load(words_ptr + p)
    bs = tl.load(bsc_ptr + p)
    ru = tl.load(ru_ptr + (blk * RING + o_l[:, None]) * V + o_v[None, :], mask=m_l[:, None], other=0.0)
    vv = tl.load(v_ptr + (i_b * HV + i_hv) * V + o_v)
    return q, k, rk, rg, rsc, wd, bs, ru, vv


@triton.jit
def persistent_kernel(slots_ptr, cursor_ptr, words_ptr, bsc_ptr, rsc_ptr, rk_ptr, rg_ptr, ru_ptr,
                      q_ptr, k_ptr, v_ptr, out_ptr, items,
                      H: tl.constexpr, HV: tl.constexpr, K: tl.constexpr, V: tl.constexpr,
                      RING: tl.constexpr, GROUP: tl.constexpr, REAL: tl.constexpr):
    o_v = tl.arange(0, V)
    step = tl.num_programs(0)
    i0 = tl.program_id(0)
    last = items - 1   # items past the end stand for the last one (loaded, never stored)
    # the pipeline's fill: item i0's loads, item i0 + step's cursor, item i0 + 2 step's slot
    s0 = tl.load(slots_ptr + tl.minimum(i0, last) // HV).to(tl.int64)
    s1 = tl.load(slots_ptr + tl.minimum(i0 + step, last) // HV).to(tl.int64)
    s2 = tl.load(slots_ptr + tl.minimum(i0 + 2 * step, last) // HV).to(tl.int64)
    n0 = tl.load(cursor_ptr + s0 * HV + tl.minimum(i0, last) % HV)
    n1 = tl.load(cursor_ptr + s1 * HV + tl.minimum(i0 + step, last) % HV)
    q, k, rk, rg, rsc, wd, bs, ru, vv = _item_loads(
        words_ptr, bsc_ptr, rsc_ptr, rk_ptr, rg_ptr, ru_ptr, q_ptr, k_ptr, v_ptr,
        tl.minimum(i0, last), s0, n0, H, HV, K, V, RING, GROUP)
    for i in range(i0, items, step):
        # issue the loads ahead: slot of i + 3 step, cursor of i + 2 step, all of i + step
        i1 = tl.minimum(i + step, last)
        s3 = tl.load(slots_ptr + tl.minimum(i + 3 * step, last) // HV).to(tl.int64)
        n2 = tl.load(cursor_ptr + s2 * HV + tl.minimum(i + 2 * step, last) % HV)
        q1, k1, rk1, rg1, rsc1, wd1, bs1, ru1, vv1 = _item_loads(
            words_ptr, bsc_ptr, rsc_ptr, rk_ptr, rg_ptr, ru_ptr, q_ptr, k_ptr, v_ptr,
            i1, s1, n1, H, HV, K, V, RING, GROUP)
        # item i, from the loads the previous iteration issued
        if REAL:
            out = _item_out_real(wd, bs, rsc, q, k, rk, rg, ru, vv, K)
        else:
            s_q = tl.sum(rk.to(tl.float32) * q.to(tl.float32)[None, :], axis=1) * tl.exp(rg.to(tl.float32))
            s_kq = tl.sum(q.to(tl.float32) * k.to(tl.float32), axis=0)
            out = _item_out(_word_sum(wd, bs), rsc, s_q, s_kq, ru.to(tl.float32), vv.to(tl.float32))
        tl.store(out_ptr + ((i // HV) * HV + i % HV) * V + o_v, out.to(out_ptr.dtype.element_ty))
        s1, s2, n1 = s2, s3, n2
        q, k, rk, rg, rsc, wd, bs, ru, vv = q1, k1, rk1, rg1, rsc1, wd1, bs1, ru1, vv1


def make_inputs(B, H, HV, K, V, RING, n, device, seed=0):
    g = torch.Generator(device="cpu").manual_seed(seed)
    slots = torch.randperm(B, generator=g).to(torch.int32)
    rows = B * HV * V
    words = torch.randint(-2**62, 2**62, (rows, K // 16), generator=g, dtype=torch.int64)
    bsc = torch.randint(0, 120, (rows, K // 16), generator=g, dtype=torch.uint8)
    rsc = torch.rand(B * HV * (V // 16), generator=g)
    rk = torch.randn(B * H * RING * K, generator=g).to(torch.bfloat16)
    rg = (-torch.rand(B * HV * RING, generator=g)).to(torch.bfloat16)
    ru = torch.randn(B * HV * RING * V, generator=g).to(torch.bfloat16)
    q = torch.randn(B * H * K, generator=g).to(torch.bfloat16)
    k = torch.randn(B * H * K, generator=g).to(torch.bfloat16)
    v = torch.randn(B * HV * V, generator=g).to(torch.bfloat16)
    cursor = torch.full((B * HV,), n, dtype=torch.int32)
    t = dict(slots=slots, cursor=cursor, words=words, bsc=bsc, rsc=rsc, rk=rk, rg=rg, ru=ru,
             q=q, k=k, v=v)
    return {name: x.to(device) for name, x in t.items()}


def bytes_moved(B, H, HV, K, V, n):
    """The bytes one launch must move (records of a key group counted once per value head,
    as the decode reads them; the output written)."""
    per_item = (V * K // 2 + V * K // 16 + V // 16 * 4 + n * K * 2 + n * 2 + n * V * 2
                + 2 * K * 2 + V * 2 + V * 2 + 4 + 4)
    return B * HV * per_item


def run_chain(t, out, B, H, HV, K, V, RING, GROUP, BKT, warps, real=False):
    chain_kernel[(B, HV)](t["slots"], t["cursor"], t["words"],
                          t["bsc"], t["rsc"], t["rk"], t["rg"], t["ru"], t["q"], t["k"], t["v"], out,
                          H, HV, K, V, RING, GROUP, BKT, real, num_warps=warps)


def run_persistent(t, out, B, H, HV, K, V, RING, GROUP, programs, warps, real=False):
    persistent_kernel[(programs,)](t["slots"], t["cursor"], t["words"],
                                   t["bsc"], t["rsc"], t["rk"], t["rg"], t["ru"], t["q"], t["k"], t["v"], out,
                                   B * HV, H, HV, K, V, RING, GROUP, real, num_warps=warps)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--tiny", action="store_true", help="small shapes, the check only")
    ap.add_argument("--batch", type=int, default=256)
    args = ap.parse_args(argv)
    interp = os.environ.get("TRITON_INTERPRET") == "1"
    device = "cpu" if interp else "cuda"
    if args.tiny:
        B, H, HV, K, V, RING, n = 3, 2, 4, 32, 32, 16, 5
    else:
        B, H, HV, K, V, RING, n = args.batch, 16, 32, 128, 128, 16, 8
    GROUP = HV // H
    t = make_inputs(B, H, HV, K, V, RING, n, device)
    refs = {}
    for real in (False, True):   # each kind's reference: one program per item, whole rows
        refs[real] = torch.full((B * HV * V,), float("nan"), dtype=torch.bfloat16, device=device)
        run_chain(t, refs[real], B, H, HV, K, V, RING, GROUP, K, 4, real)
        assert not torch.isnan(refs[real]).any(), "chain left outputs unwritten"
    versions = [("chain", dict(BKT=bkt, warps=w, real=False)) for bkt in (32, K) for w in (1, 4) if bkt <= K]
    # (offline, sm_90, Triton 3.6: chain real at 1 warp spills 24 KB; at 4 warps 162 registers)
    versions += [("chain", dict(BKT=K, warps=w, real=True)) for w in (4, 8)]
    sms = 2 if interp else torch.cuda.get_device_properties(0).multi_processor_count
    # (offline: persistent at 4 warps 150 registers, 3 programs per SM; at 8, 128 and 2;
    # real: 239 at 4 warps (2 per SM), 170 at 8 (1 per SM); no spills)
    versions += [("persistent", dict(programs=sms * p, warps=w, real=False))
                 for p, w in ((1, 4), (2, 4), (3, 4), (1, 8), (2, 8))]
    versions += [("persistent", dict(programs=sms * p, warps=w, real=True)) for p, w in ((1, 4), (2, 4), (1, 8))]
    if args.tiny:
        versions = [("chain", dict(BKT=16, warps=1, real=False)), ("persistent", dict(programs=5, warps=1, real=False)),
                    ("persistent", dict(programs=5, warps=1, real=True))]

    def launcher(kind, cfg, out):
        if kind == "chain":
            return lambda: run_chain(t, out, B, H, HV, K, V, RING, GROUP, cfg["BKT"], cfg["warps"], cfg["real"])
        return lambda: run_persistent(t, out, B, H, HV, K, V, RING, GROUP, cfg["programs"], cfg["warps"], cfg["real"])

    rows = []
    for kind, cfg in versions:
        ref = refs[cfg["real"]]
        out = torch.full_like(ref, float("nan"))
        launcher(kind, cfg, out)()
        err = ((out.float() - ref.float()).abs().max() / ref.float().abs().max()).item()
        row = dict(kind=kind, **cfg, max_rel_diff=err)
        assert err < 1e-2, (kind, cfg, err)   # the same sums in another order, bf16 output
        if not interp:
            row["ms"] = triton.testing.do_bench_cudagraph(launcher(kind, cfg, out), rep=200)
        rows.append(row)
        print(row, flush=True)
    if interp:
        print("check passed")
        return 0
    moved = bytes_moved(B, H, HV, K, V, n)
    from replaygen import load
    from replaygen.perf import Timer, Workload, environment
    kern = load("gdn", config="qwen3.5-4b", L=16, read_dtype="nvfp4")
    work = Workload(kern, B, torch.device("cuda"))
    decode = work.time_replay(Timer(torch.device("cuda")), B)["nonflush"]
    rows.append(dict(kind="decode (generated, nonflush at n = L/2 = 8)", ms=decode))
    src = torch.empty(1 << 30, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    copy_tbs = 2 * src.numel() / triton.testing.do_bench(lambda: dst.copy_(src), rep=200) / 1e9
    print(f"copy of 1 GiB: {copy_tbs:.2f} TB/s read + written")
    for r in rows:
        r["TB/s"] = moved / r["ms"] / 1e9
        r["of copy"] = r["TB/s"] / copy_tbs
        print(f"{r['kind']:<45} {json.dumps({k: v for k, v in r.items() if k != 'kind'})}")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        meta = environment()
        meta["command"] = "python " + " ".join(sys.argv)
        (args.out / "chain_probe.json").write_text(json.dumps(dict(meta=meta, bytes=moved, copy_tbs=copy_tbs,
                                                               rows=rows), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
