"""Does an NVFP4 read copy's non-flush product get cheaper on tensor cores? (issue 4)

Session 41's SASS count found the key-chunk decode of an NVFP4 read copy instruction-bound:
per 8-byte word (16 keys of one row) ~26 instructions of nibble decode and ~22 of fp16x2
products with the two probes (the decayed query and key). This prototype measures the
product part alone, out[v] = sum_k S[v, k] * p[k] for two probes, over a whole NVFP4 read
copy of the Qwen3.5-4B GDN geometry at batch 256 (256 rows x 32 value heads x [128, 128]),
three ways:

* words: the production path then (formats.read_words_dot2_at in fp16x2, now
  bench/proto/nvfp4_fp16x2.py; the key-chunk decode's loop:
  [DBV, BKT] chunks, per-word block scales, partial sums reduced once);
* mma: each chunk's packed bytes decoded to fp16 (2^-14 times the e2m1 values: the low
  nibbles are the even keys, the high ones the odd keys) and multiplied on tensor cores
  by a [BKT / 2, 16] fp16 operand whose column (probe, block) holds the probe on that
  16-key block's keys and zeros elsewhere, so that one product gives every block's
  partial sum for both probes; the block scales then apply to those [DBV, 16] sums
  (16 multiply-adds per row and chunk, not one per element). `asm` decodes four packed
  bytes per PTX call (formats' nibble decode, without the products); `plain` in Triton
  integer ops, as the interpreter runs it;
* mma_sa: as mma, with the block scales applied to the decoded values instead (exact in
  fp16, mma_scaled_read), so the operand's columns are the probes alone.

Each is checked against a float64 product of the dequantised copy, then timed
(triton.testing.do_bench, median) with a device-to-device copy of the same bytes as the
bandwidth reference. Usage: python bench/proto/s55_nvfp4_mma.py [--quick] [--out F.json]
(TRITON_INTERPRET=1 with --quick checks the `plain` paths' correctness on a CPU; --sass
counts the chunk loops' instructions offline instead, for sm_90).

Outcome (session 55, bench/NOTES.md): offline at best 10% fewer loop instructions than the
word path; on an H100 every tensor-core kernel slower (0.75-0.90x). Not built.
"""
import argparse
import json
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests"))
from replaygen import formats  # noqa: E402
from formats_reference import dequantize_nvfp4, quantize_nvfp4  # noqa: E402
sys.path.insert(0, os.path.dirname(__file__))
import nvfp4_fp16x2  # noqa: E402

_F16_DECODE_PTX = tl.constexpr(
    "{\n.reg .b32 t0, t1, lo, hi, z;\nmov.b32 z, 0;\n"
    + formats._e2m1_word_to_f16x2("$4", ("$0", "$1", "$2", "$3")) + "}")


@triton.jit
def e2m1_f16_pairs(packed, ASM: tl.constexpr):
    """Packed bytes (uint8) -> fp16 2^-14 * e2m1 of (low nibbles, high nibbles)."""
    if ASM:
        return tl.inline_asm_elementwise(_F16_DECODE_PTX, "=r,=r,=r,=r,r", [packed],
                                         dtype=(tl.float16, tl.float16), is_pure=True, pack=4)
    else:
        c = packed.to(tl.uint16)
        lo = ((c & 7) << 9) | ((c & 8) << 12)
        hi = (((c >> 4) & 7) << 9) | ((c & 0x80) << 8)
        return lo.to(tl.float16, bitcast=True), hi.to(tl.float16, bitcast=True)


@triton.jit
def program_head(p_ptr, q_ptr, HV: tl.constexpr, GQ: tl.constexpr, K: tl.constexpr, DBV: tl.constexpr):
    """A program's (slot, value head) block, its probes' offset, its value rows, and the
    two probes' power-of-two scales (nvfp4_fp16x2.probe_scale, taken from whole probes)."""
    i_b = tl.program_id(0)
    i_hv = tl.program_id(1)
    blk = (i_b * HV + i_hv).to(tl.int64)
    probe = (i_b * (HV // GQ) + i_hv // GQ) * K
    o_v = tl.program_id(2) * DBV + tl.arange(0, DBV)
    o_all = tl.arange(0, K)
    up_p, dn_p = nvfp4_fp16x2.probe_scale(tl.max(tl.abs(tl.load(p_ptr + probe + o_all)), axis=0))
    up_q, dn_q = nvfp4_fp16x2.probe_scale(tl.max(tl.abs(tl.load(q_ptr + probe + o_all)), axis=0))
    return blk, probe, o_v, up_p, dn_p, up_q, dn_q


@triton.jit
def words_read(packed_ptr, bscale_ptr, tscale_ptr, p_ptr, q_ptr, out_ptr,
               HV: tl.constexpr, GQ: tl.constexpr, V: tl.constexpr, K: tl.constexpr,
               DBV: tl.constexpr, BKT: tl.constexpr):
    blk, probe, o_v, up_p, dn_p, up_q, dn_q = program_head(p_ptr, q_ptr, HV, GQ, K, DBV)
    WPC: tl.constexpr = BKT // 16
    NW: tl.constexpr = K // 16
    p_words = packed_ptr.to(tl.pointer_type(tl.uint64))
    o_w = tl.arange(0, WPC)
    o_kb = tl.arange(0, BKT)
    acc_p = tl.zeros([DBV, WPC], tl.float32)
    acc_q = tl.zeros([DBV, WPC], tl.float32)
    for i_k in range(K // BKT):
        words = tl.load(p_words + (blk * V + o_v[:, None]) * NW + i_k * WPC + o_w[None, :])
        b_scale = tl.load(bscale_ptr + (blk * V + o_v[:, None]) * NW + i_k * WPC + o_w[None, :]).to(tl.float32)
        pc = tl.load(p_ptr + probe + i_k * BKT + o_kb)
        qc = tl.load(q_ptr + probe + i_k * BKT + o_kb)
        d_p, d_q = nvfp4_fp16x2.words_dot2_at(words, pc, qc, up_p, up_q, WPC)
        acc_p += d_p * b_scale
        acc_q += d_q * b_scale
    t = tl.load(tscale_ptr + blk) * 16384.0
    tl.store(out_ptr + (blk * 2) * V + o_v, tl.sum(acc_p, axis=1) * (dn_p * t))
    tl.store(out_ptr + (blk * 2 + 1) * V + o_v, tl.sum(acc_q, axis=1) * (dn_q * t))


@triton.jit
def mma_read(packed_ptr, bscale_ptr, tscale_ptr, p_ptr, q_ptr, out_ptr,
             HV: tl.constexpr, GQ: tl.constexpr, V: tl.constexpr, K: tl.constexpr,
             DBV: tl.constexpr, BKT: tl.constexpr, ASM: tl.constexpr):
    blk, probe, o_v, up_p, dn_p, up_q, dn_q = program_head(p_ptr, q_ptr, HV, GQ, K, DBV)
    NB: tl.constexpr = BKT // 16       # blocks per chunk
    G: tl.constexpr = 16 // NB         # column groups of NB: probe p in group 0, q in 1
    KH: tl.constexpr = K // 2
    o_j = tl.arange(0, BKT // 2)       # packed byte j of a chunk: keys 2j, 2j + 1
    o_c = tl.arange(0, 16)
    in_block = (o_j // 8)[:, None] == (o_c % NB)[None, :]
    is_p = in_block & (o_c // NB == 0)[None, :]
    is_q = in_block & (o_c // NB == 1)[None, :]
    o_nb = tl.arange(0, NB)
    acc = tl.zeros([DBV, G], tl.float32)
    for i_k in range(K // BKT):
        o_key = i_k * BKT + 2 * o_j
        pe = tl.load(p_ptr + probe + o_key) * up_p
        po = tl.load(p_ptr + probe + o_key + 1) * up_p
        qe = tl.load(q_ptr + probe + o_key) * up_q
        qo = tl.load(q_ptr + probe + o_key + 1) * up_q
        b_even = tl.where(is_p, pe[:, None], tl.where(is_q, qe[:, None], 0.0)).to(tl.float16)
        b_odd = tl.where(is_p, po[:, None], tl.where(is_q, qo[:, None], 0.0)).to(tl.float16)
        packed = tl.load(packed_ptr + (blk * V + o_v[:, None]) * KH + i_k * (BKT // 2) + o_j[None, :])
        lo, hi = e2m1_f16_pairs(packed, ASM)
        c = tl.dot(lo, b_even, out_dtype=tl.float32)
        c = tl.dot(hi, b_odd, c, out_dtype=tl.float32)   # [DBV, 16]: (probe, block) sums
        b_scale = tl.load(bscale_ptr + (blk * V + o_v[:, None]) * (K // 16) + i_k * NB + o_nb[None, :]).to(tl.float32)
        acc += tl.sum(tl.reshape(c, [DBV, G, NB]) * b_scale[:, None, :], axis=2)
    t = tl.load(tscale_ptr + blk) * 16384.0
    o_g = tl.arange(0, G)
    tl.store(out_ptr + (blk * 2) * V + o_v, tl.sum(tl.where(o_g[None, :] == 0, acc, 0.0), axis=1) * (dn_p * t))
    tl.store(out_ptr + (blk * 2 + 1) * V + o_v, tl.sum(tl.where(o_g[None, :] == 1, acc, 0.0), axis=1) * (dn_q * t))


@triton.jit
def mma_scaled_read(packed_ptr, bscale_ptr, tscale_ptr, p_ptr, q_ptr, out_ptr,
                    HV: tl.constexpr, GQ: tl.constexpr, V: tl.constexpr, K: tl.constexpr,
                    DBV: tl.constexpr, BKT: tl.constexpr, ASM: tl.constexpr):
    """mma_read with the block scales applied to the decoded values instead, in fp16 and
    exactly: (2^-14 e2m1) * (b 2^7) = e2m1 b 2^-7 is a multiple of 2^-17 of at most 6
    significant bits and at most 21 (b <= 448: b 2^7 <= 57344 is an fp16), so the
    operand's columns are the two probes alone and the products accumulate across chunks
    in the tensor cores' fp32 accumulator; per chunk no block masks and no scale pass."""
    blk, probe, o_v, up_p, dn_p, up_q, dn_q = program_head(p_ptr, q_ptr, HV, GQ, K, DBV)
    NB: tl.constexpr = BKT // 16
    KH: tl.constexpr = K // 2
    o_j = tl.arange(0, BKT // 2)
    o_c = tl.arange(0, 16)
    o_nb = tl.arange(0, NB)
    acc = tl.zeros([DBV, 16], tl.float32)
    for i_k in range(K // BKT):
        o_key = i_k * BKT + 2 * o_j
        pe = tl.load(p_ptr + probe + o_key) * up_p
        po = tl.load(p_ptr + probe + o_key + 1) * up_p
        qe = tl.load(q_ptr + probe + o_key) * up_q
        qo = tl.load(q_ptr + probe + o_key + 1) * up_q
        b_even = tl.where(o_c[None, :] == 0, pe[:, None], tl.where(o_c[None, :] == 1, qe[:, None], 0.0)).to(tl.float16)
        b_odd = tl.where(o_c[None, :] == 0, po[:, None], tl.where(o_c[None, :] == 1, qo[:, None], 0.0)).to(tl.float16)
        packed = tl.load(packed_ptr + (blk * V + o_v[:, None]) * KH + i_k * (BKT // 2) + o_j[None, :])
        lo, hi = e2m1_f16_pairs(packed, ASM)
        b_scale = tl.load(bscale_ptr + (blk * V + o_v[:, None]) * (K // 16) + i_k * NB + o_nb[None, :]).to(tl.float32)
        bs = tl.reshape(tl.broadcast_to((b_scale * 128.0).to(tl.float16)[:, :, None], [DBV, NB, 8]), [DBV, BKT // 2])
        acc = tl.dot(lo * bs, b_even, acc, out_dtype=tl.float32)
        acc = tl.dot(hi * bs, b_odd, acc, out_dtype=tl.float32)
    t = tl.load(tscale_ptr + blk) * (16384.0 / 128.0)
    tl.store(out_ptr + (blk * 2) * V + o_v, tl.sum(tl.where(o_c[None, :] == 0, acc, 0.0), axis=1) * (dn_p * t))
    tl.store(out_ptr + (blk * 2 + 1) * V + o_v, tl.sum(tl.where(o_c[None, :] == 1, acc, 0.0), axis=1) * (dn_q * t))


def make_inputs(B, HV, H, V, K, device):
    g = torch.Generator().manual_seed(55)
    S = torch.randn(B, HV, V, K, generator=g)
    packed, bscale, tscale = quantize_nvfp4(S, V, K)
    ref_S = dequantize_nvfp4(packed, bscale, tscale, K, V).double()
    p = torch.randn(B, H, K, generator=g)
    q = torch.randn(B, H, K, generator=g)
    GQ = HV // H
    ref = torch.stack([torch.einsum("bhvk,bhk->bhv", ref_S, x.double().repeat_interleave(GQ, 1))
                       for x in (p, q)], dim=2)   # [B, HV, 2, V]
    dev = dict(packed=packed.to(device), bscale=bscale.to(device), tscale=tscale.to(device).contiguous(),
               p=p.to(device), q=q.to(device))
    return dev, ref


def launch(kind, t, B, HV, GQ, V, K, DBV, BKT, warps, stages, out):
    grid = (B, HV, V // DBV)
    args = (t["packed"], t["bscale"], t["tscale"], t["p"], t["q"], out, HV, GQ, V, K, DBV, BKT)
    if kind == "words":
        words_read[grid](*args, num_warps=warps, num_stages=stages)
    elif kind.startswith("mma_sa"):
        mma_scaled_read[grid](*args, kind == "mma_sa_asm", num_warps=warps, num_stages=stages)
    else:
        mma_read[grid](*args, kind == "mma_asm", num_warps=warps, num_stages=stages)


def loop_ops(fn, consts, warps, ptr_types=None):
    """Offline (no GPU; sm_90 through ptxas): `fn` compiled with the constexprs `consts` at
    `warps` warps, pointers 16-byte aligned (as the launcher specialises such tensors),
    and the opcodes of its first loop (label .L_x_0): (compiled kernel, Counter).
    ptr_types: pointer types other than fp32 by argument name (default: the read copy's
    packed bytes and e4m3 block scales)."""
    import collections
    import re
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from sass_count import INSTRUCTION, sass_of
    types = {"packed_ptr": "*u8", "bscale_ptr": "*fp8e4nv", **(ptr_types or {})}
    sig = {n: types.get(n, "*fp32") for n in fn.arg_names if n.endswith("_ptr")}
    sig.update({n: "constexpr" for n in fn.arg_names if n not in sig})
    src = ASTSource(fn, sig, constexprs={(fn.arg_names.index(k),): v for k, v in consts.items()},
                    attrs={(i,): [["tt.divisibility", 16]] for i, n in enumerate(fn.arg_names)
                           if n.endswith("_ptr")})
    compiled = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(num_warps=warps, num_stages=1))
    sass = sass_of(compiled).splitlines()
    start = next(i for i, t in enumerate(sass) if re.match(r"^\.L_x_0:", t))
    ops = collections.Counter()
    for text in sass[start:]:
        m = INSTRUCTION.match(text)
        if m:
            ops[m.group(2).split(".")[0]] += 1
            if "BRA" in text and "L_x_0" in text:
                break
    return compiled, ops


def copy_reference(nbytes, device):
    """Median ms of a device-to-device copy of nbytes (the rate reference), printed."""
    src = torch.empty(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    copy_ms = triton.testing.do_bench(lambda: dst.copy_(src), rep=200)
    print(f"copy of {nbytes / 2**20:.0f} MiB: {copy_ms:.4f} ms ({2 * nbytes / copy_ms / 1e9:.2f} TB/s read + written)")
    return copy_ms


def measure(run, out, ref, nbytes, copy_ms):
    """Run once into `out` (poisoned) and check it against ref (relative error), then,
    with copy_ms (a GPU), time it: the row's fields, or its error where it fails (a
    configuration that does not compile is a result too)."""
    row = {}
    try:
        run()
        row["rel_err"] = ((out.double().cpu() - ref).norm() / ref.norm()).item()
        if copy_ms is not None:
            row["ms"] = triton.testing.do_bench(run, rep=200)
            row["read_GBps"] = nbytes / row["ms"] / 1e6
            row["x_copy_rate"] = (nbytes / row["ms"]) / (2 * nbytes / copy_ms)
    except Exception as e:
        row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    return row


def sass_loop_counts(configs, kinds):
    """Offline (no GPU; sm_90 through ptxas): each kernel's chunk loop, its instructions
    per warp and per element a warp covers, and its busiest opcodes. A proxy, not a
    timing (bench/sass_count.py's caveats)."""
    dims = dict(HV=32, GQ=2, V=128, K=128)
    out = []
    for kind in kinds:
        fn = {"words": words_read, "mma_sa": mma_scaled_read, "mma": mma_read}[kind.rsplit("_", 1)[0] if kind != "words" else kind]
        launches = dict.fromkeys((dbv, bkt, w) for (dbv, bkt, w, _) in configs["words" if kind == "words" else "mma"])
        for (dbv, bkt, w) in launches:   # (the loop's count is the same at any stage count)
            consts = dict(dims, DBV=dbv, BKT=bkt)
            if kind != "words":
                consts["ASM"] = kind.endswith("asm")
            _, ops = loop_ops(fn, consts, w)
            n = sum(ops.values())
            row = dict(kind=kind, DBV=dbv, BKT=bkt, warps=w, loop=n,
                       per_element=round(n / (dbv * bkt / w), 4), ops=dict(ops.most_common(8)))
            out.append(row)
            print(json.dumps(row), flush=True)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="a small batch, few configurations")
    ap.add_argument("--out", default=None)
    ap.add_argument("--sass", action="store_true", help="offline instruction counts of the "
                    "chunk loops instead of a run (a CPU machine, no TRITON_INTERPRET)")
    a = ap.parse_args()
    interp = os.environ.get("TRITON_INTERPRET") == "1"
    device = "cpu" if interp else "cuda"
    B, HV, H, V, K = (2, 4, 2, 128, 128) if a.quick else (256, 32, 16, 128, 128)
    kinds = ["mma_plain", "mma_sa_plain"] if interp else ["words", "mma_sa_asm", "mma_asm", "mma_sa_plain", "mma_plain"]
    # (the launches whose loops the offline sm_90 count, session 55, put at or below the
    # word path's instructions per element: one or two warps, [64 | 128, 32 | 64] chunks)
    configs = {
        "words": [(128, 32, 1, 1), (128, 32, 1, 3), (64, 32, 1, 3), (128, 64, 2, 3)],
        "mma": [(dbv, bkt, w, s) for (dbv, bkt, w) in ((128, 32, 1), (128, 32, 2), (128, 64, 2),
                                                      (64, 64, 1), (64, 64, 2), (64, 32, 1))
                for s in (1, 3)],
    }
    if a.quick:
        configs = {"words": [(128, 32, 1, 1)], "mma": [(32, 64, 1, 1), (64, 128, 2, 1)]}
    if a.sass:
        rows = sass_loop_counts(configs, ["words", "mma_sa_asm", "mma_asm"])
        if a.out:
            with open(a.out, "w") as f:
                json.dump(dict(triton=triton.__version__, rows=rows, command=" ".join(sys.argv)), f, indent=1)
        return
    t, ref = make_inputs(B, HV, H, V, K, device)
    rows = []
    nbytes = sum(t[n].numel() * t[n].element_size() for n in ("packed", "bscale"))
    copy_ms = None if interp else copy_reference(nbytes, device)
    for kind in kinds:
        for (dbv, bkt, w, s) in configs["words" if kind == "words" else "mma"]:
            out = torch.full((B, HV, 2, V), float("nan"), device=device)
            row = dict(kind=kind, DBV=dbv, BKT=bkt, warps=w, stages=s)
            row.update(measure(lambda: launch(kind, t, B, HV, HV // H, V, K, dbv, bkt, w, s, out),
                               out, ref, nbytes, copy_ms))
            rows.append(row)
            print(json.dumps(row), flush=True)
            if a.out:   # after every row: a run cut short by its timeout keeps what it measured
                with open(a.out, "w") as f:
                    json.dump(dict(gpu=torch.cuda.get_device_name() if not interp else "interpreter",
                                   triton=triton.__version__, torch=torch.__version__, bytes=nbytes,
                                   copy_ms=copy_ms, rows=rows, command=" ".join(sys.argv)), f, indent=1)
    bad = [r for r in rows if "rel_err" in r and not r["rel_err"] < 2e-3]
    if bad:
        print("FAILED accuracy:", bad)
        sys.exit(1)


if __name__ == "__main__":
    main()
