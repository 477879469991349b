"""Number formats of checkpoints and read copies, as Triton device functions.

Input: fp32 tiles in registers. Output: the tile in a storage format (values and scales)
or back in fp32. The generated modules call these functions (`formats.NAME(...)`); the
tests call them through the generated kernels and compare bit for bit with independent
references (tests/formats_reference.py).

Formats (per [V, K] state block of one slot and value head, streamed in [BV, BK] tiles):

* FP8 e4m3 ("e4m3fn": bias 7, 3 mantissa bits, max 448, no inf) with an fp32 scale per
  row, per column of a tile, or per tile: q = e4m3(x * (448 / amax)), x ~ q * (amax / 448).
* NVFP4: e2m1 values (0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives) packed two per
  byte (element 2j in the low nibble, 2j+1 in the high one), an e4m3 scale per 16
  consecutive K elements, and an fp32 scale per tile: t = amax / (6 * 448),
  b = e4m3(amax_16 / (6 t)), q = e2m1(x / (b t)), x ~ q * b * t.
* fp16 / bf16 with stochastic rounding: uniform random bits are added below the target
  mantissa and the rest truncated (Hopper has no cvt.rs), so E[round(x)] = x.

Every rounding is done arithmetically in fp32 (the e4m3 and e2m1 grids, ties to even),
so results are exact in the Triton interpreter too (its fp8 casts misround near powers
of two); the final casts to storage types only ever see exactly representable values.
Divisions use `div_rn` (correctly rounded), so a reference in torch fp32 is bit-exact.
"""
import os

import triton
import triton.language as tl

E4M3_MAX = 448.0
E2M1_MAX = 6.0
# Compiled (not the Triton interpreter, which runs no inline assembly): e2m1_pairs_scaled
# decodes packed bytes with PTX integer ops on four bytes at a time.
_NATIVE = tl.constexpr(os.environ.get("TRITON_INTERPRET", "0") != "1")


@triton.jit
def e4m3_round(x):
    """x (fp32) rounded to the nearest e4m3 value, ties to even, saturating at ±448, with
    x's sign (zeros keep theirs) and a NaN kept, as the GPU's conversion does (to_e4m3)."""
    a = tl.abs(x)
    e = ((a.to(tl.uint32, bitcast=True) >> 23) & 0xFF).to(tl.int32) - 127
    # grid step 2^(e-3) in the normal range, 2^-9 for subnormals (e < -6); e > 8 saturates
    e = tl.minimum(tl.maximum(e, -6), 8)
    # (a + m) - m with m = 2^(e+20): fp32's own round-to-nearest-even on the e4m3 grid
    m = ((e + 147) << 23).to(tl.float32, bitcast=True)
    r = tl.minimum((a + m) - m, 448.0, propagate_nan=tl.PropagateNan.ALL)
    sign = x.to(tl.uint32, bitcast=True) & 0x80000000
    return (r.to(tl.uint32, bitcast=True) | sign).to(tl.float32, bitcast=True)


@triton.jit
def to_e4m3(x):
    """x (fp32) as e4m3 (tl.float8e4nv): e4m3_round's value, nearest even, saturating at
    ±448 (inf too), zeros keeping their sign, NaN kept. Compiled, Triton's cast is the
    GPU's cvt.rn.satfinite.e4m3x2.f32, one instruction per pair, where e4m3_round's
    arithmetic takes ~12 per element. The interpreter's fp8 casts misround near powers of
    two, so it casts e4m3_round's exact grid value instead. The rounding is checked bit
    for bit against torch's cast (tests/test_formats.py): on a GPU, the hardware's."""
    if _NATIVE:
        return x.to(tl.float8e4nv)
    else:
        return e4m3_round(x).to(tl.float8e4nv)


@triton.jit
def e2m1_code(x):
    """x (fp32, already scaled) to a 4-bit e2m1 code (bit 3: sign), nearest, ties to even,
    saturating at ±6.

    By fp32 rounding rather than seven threshold compares (the fold's quantiser spent most
    of its instructions on those). a = min(|x|, 6) is rounded to the e2m1 grid by adding
    and taking away M = 2^(e+22), e = a's binade clamped below at 0 (a < 1 shares binade
    0's step of 1/2, the e2m1 subnormal): fp32's ulp at M is the grid step 2^(e-1), so
    (a + M) - M is a's nearest grid value r, ties to even. M is max(a, 1) with its
    mantissa cleared and 22 added to its exponent field. The grid values read as codes in
    the bits of r * 2^-126: 0.5 becomes the fp32 subnormal 2^-127 (bit 22), 1 the smallest
    normal (bit 23), and each binade's two values differ in mantissa bit 22, so the bits
    shifted down by 22 are the code 0..7. This needs fp32 subnormal products, which
    Triton's PTX keeps (`mul.f32`, no `.ftz`); the interpreter (numpy) keeps them too."""
    a = tl.minimum(tl.abs(x), 6.0)
    m_bits = (tl.maximum(a, 1.0).to(tl.int32, bitcast=True) & 0x7F800000) + (22 << 23)
    m = m_bits.to(tl.float32, bitcast=True)
    r = (a + m) - m
    c = ((r * 1.1754943508222875e-38).to(tl.int32, bitcast=True) >> 22).to(tl.uint8)
    return c | (x < 0).to(tl.uint8) * 8


@triton.jit
def e2m1_scaled(c):
    """A 4-bit e2m1 code (uint8, high bits ignored) to 2^-14 times its value, in fp32.
    Shifted into an fp16 bit pattern (sign to bit 15, exponent and mantissa to bits
    11..9) the code reads 2^-14 times the e2m1 value, subnormals included; a caller
    whose sum has a common factor applies the 2^14 once (the key-chunk decode)."""
    c = c.to(tl.uint16)
    h = ((c & 7) << 9) | ((c & 8) << 12)
    return h.to(tl.float16, bitcast=True).to(tl.float32)


def _e2m1_word_to_f16x2(word: str, out: tuple[str, str, str, str]) -> str:
    """PTX: the four packed bytes of the 32-bit register `word` as four fp16x2 registers
    `out` holding 2^-14 times the e2m1 values of keys (0, 2), (4, 6), (1, 3), (5, 7)
    (key 2j: byte j's low nibble). Each nibble n becomes the high byte of an fp16,
    (n & 8) << 4 | (n & 7) << 1 (e2m1_scaled's bits): shifts and masks on the whole word
    for the four low nibbles and the four high ones at once, paired with zero low bytes
    by byte permutes."""
    return f"""shl.b32 t0, {word}, 4;
and.b32 t0, t0, 0x80808080;
shl.b32 t1, {word}, 1;
and.b32 t1, t1, 0x0E0E0E0E;
or.b32 lo, t0, t1;
and.b32 t0, {word}, 0x80808080;
shr.b32 t1, {word}, 3;
and.b32 t1, t1, 0x0E0E0E0E;
or.b32 hi, t0, t1;
prmt.b32 {out[0]}, lo, z, 0x1404;
prmt.b32 {out[1]}, lo, z, 0x3424;
prmt.b32 {out[2]}, hi, z, 0x1404;
prmt.b32 {out[3]}, hi, z, 0x3424;
"""


# Four packed bytes per invocation, widened to fp32: ~23 instructions for 8 values where
# the per-element path took ~7 each (H200 profile, session 8: byte extraction and nibble
# decode were 44% of the NVFP4 decode kernel's instructions).
_E2M1_PAIRS_PTX = tl.constexpr(
    "{\n.reg .b32 t0, t1, lo, hi, z, p0, p1, p2, p3;\n.reg .b16 h0, h1, h2, h3, h4, h5, h6, h7;\n"
    "mov.b32 z, 0;\n" + _e2m1_word_to_f16x2("$8", ("p0", "p1", "p2", "p3"))
    + "".join(f"mov.b32 {{h{2 * i}, h{2 * i + 1}}}, p{i};\n" for i in range(4))
    + "".join(f"cvt.f32.f16 ${i}, h{i};\n" for i in range(8)) + "}")


@triton.jit
def e2m1_pairs_scaled(packed):
    """Packed NVFP4 bytes (uint8: element 2j in the low nibble) to the fp32 values of their
    low and high nibbles, each 2^-14 times its e2m1 value: (e2m1_scaled(packed),
    e2m1_scaled(packed >> 4)), bit for bit. Compiled, four bytes at a time in PTX; the
    interpreter (no inline assembly) takes the per-element path, so the PTX is checked
    on the GPU only (tests/test_formats.py)."""
    if _NATIVE:
        return tl.inline_asm_elementwise(_E2M1_PAIRS_PTX, "=r,=r,=r,=r,=r,=r,=r,=r,r", [packed],
                                         dtype=(tl.float32, tl.float32), is_pure=True, pack=4)
    else:
        return e2m1_scaled(packed), e2m1_scaled(packed >> 4)


# -- products of read-copy words with a probe: FP8 in fp16x2, NVFP4 in int8 -------------
# The key-chunk decode's non-flush step multiplies every read-copy element by a probe (the
# decayed query, and for a delta rule the decayed key) and sums over the keys. In fp32
# that is a conversion, a multiply and an add per element per probe; here an 8-byte word
# of the read copy (8 FP8 keys or 16 NVFP4 keys) is decoded once for all probes.
#
# FP8: to fp16x2 pairs (exact: e4m3 values are fp16 values); each probe takes one fp16x2
# FMA per pair, its pair sums widened to fp32 once per word. The probe is scaled by a
# power of two so that its largest element lies in [8, 16) before it is rounded to fp16
# (probe_scale with P = 4; a decode that streams the probe in key chunks takes the power
# of two once, from the whole probe's largest element: word_probe_scale): no product or
# pair sum can overflow (< 7168 and < 28672), and the power of two is undone exactly.
# Error: the probe's rounding to fp16 (2^-12 of its largest element) and the fp16 sums of
# 4 products (2^-11 each), far below the read copy's own quantisation error (2^-4).
#
# NVFP4: in int8 dot products (dp4a: four products of an unsigned byte and a signed one,
# summed into an int32, per instruction; session 56: the fp16x2 path this replaces took
# ~64 instructions per word in its chunk loop on sm_90, ~26 of them nibble decode on the
# half-rate integer pipe; this one ~43). Each nibble is looked up as the byte
# u = 2 e2m1 + 12, an integer in [0, 24], by byte permutes: PRMT's selector nibble is the
# code itself, whose bit 3 (the sign) selects PRMT's sign-replicating mode, which reads 0
# from these tables' bytes (all below 128); so prmt(POSITIVE, code) is u for the positive
# codes and 0 for the negative ones, prmt(NEGATIVE, code ^ 8) the reverse, and their OR
# is u. The probe is scaled so that its largest element is 127 (word_probe_scale:
# 127 / amax, not a power of two) and rounded to int8 (p8); each 16-key block's four
# dp4a start from 0x4B400000 - 12 sum(p8), so that the int32 sum's bits are those of the
# fp32 1.5 * 2^23 + sum(2 e2m1 p8), exactly (|sum| <= 16 * 12 * 127 < 2^22): one fp32
# FMA takes out 1.5 * 2^23 and scales by 2^-15, leaving sum(2^-14 e2m1 p8), the scale
# the other NVFP4 decodes' values have (e2m1_scaled), with no int-to-float conversion.
# Error: the probe's rounding alone, at most half of 1/127 of its largest element per
# key; on 128 Gaussian keys ~5e-3 of a sum (~16x an fp16 probe's), against NVFP4's own
# steps of 1/4 relative: it adds ~0.3% to the read copy's own error
# (sqrt(0.08^2 + 0.005^2) = 0.0802).
# The keys of the fp16x2 pairs each FP8 word decodes to, in register order.
_FP8_PAIR_KEYS = ((0, 1), (2, 3), (4, 5), (6, 7))
# u = 2 e2m1 + 12 of the codes 0-7 (prmt's bytes 0-7: two 32-bit words) and, after the
# sign flip, of 8-15
_U_POSITIVE = (0x0F0E0D0C, 0x18141210)   # 12 13 14 15 | 16 18 20 24
_U_NEGATIVE = (0x090A0B0C, 0x00040608)   # 12 11 10  9 |  8  6  4  0


def _nvfp4_u_bytes(word: str, out: tuple[str, str]) -> str:
    """PTX: the 8 nibbles of the 32-bit register `word` as two registers of bytes u
    (keys 0-3 and 4-7 of the word; key j: nibble j from the low end), tables in lp0 / ln0
    and immediates."""
    return f"""xor.b32 x, {word}, 0x88888888;
shr.b32 wh, {word}, 16;
shr.b32 xh, x, 16;
prmt.b32 t0, lp0, {_U_POSITIVE[1]}, {word};
prmt.b32 t1, ln0, {_U_NEGATIVE[1]}, x;
or.b32 {out[0]}, t0, t1;
prmt.b32 t0, lp0, {_U_POSITIVE[1]}, wh;
prmt.b32 t1, ln0, {_U_NEGATIVE[1]}, xh;
or.b32 {out[1]}, t0, t1;
"""


def _nvfp4_dp4a_ptx(probes: int) -> str:
    """PTX of one NVFP4 word's int8 products with `probes` probes: outputs $0 ..
    $(probes - 1) (fp32: sum over the word's 16 keys of 2^-14 e2m1 p8); inputs: the
    8-byte word, the two tables' low words (lane_tables), then per probe its four probe
    words (keys 0-3 .. 12-15, byte j of word i: key 4i + j) and its block start."""
    w = probes
    ptx = (".reg .b32 wa, wb, x, wh, xh, t0, t1, u0, u1, u2, u3, acc, lp0, ln0;\n.reg .f32 f;\n"
           f"mov.b64 {{wa, wb}}, ${w};\nmov.b32 lp0, ${w + 1};\nmov.b32 ln0, ${w + 2};\n"
           + _nvfp4_u_bytes("wa", ("u0", "u1")) + _nvfp4_u_bytes("wb", ("u2", "u3")))
    for j in range(probes):
        a = w + 3 + 5 * j
        ptx += f"dp4a.u32.s32 acc, u0, ${a}, ${a + 4};\n"
        ptx += "".join(f"dp4a.u32.s32 acc, u{i}, ${a + i}, acc;\n" for i in range(1, 4))
        # the bits as fp32 (1.5 * 2^23 + s) times 2^-15, minus 1.5 * 2^8: s 2^-15, exactly
        ptx += f"mov.b32 f, acc;\nfma.rn.f32 ${j}, f, 0f38000000, 0fC3C00000;\n"
    return "{\n" + ptx + "}"


_NVFP4_DP4A1_PTX = tl.constexpr(_nvfp4_dp4a_ptx(1))
_NVFP4_DP4A2_PTX = tl.constexpr(_nvfp4_dp4a_ptx(2))
_NVFP4_DP4A1_C = tl.constexpr(",".join(["=r"] + ["l"] + ["r"] * 7))
_NVFP4_DP4A2_C = tl.constexpr(",".join(["=r"] * 2 + ["l"] + ["r"] * 12))
# laneid * laneid < 2^32: the high half is 0, which ptxas cannot see (see lane_tables)
_LANE_TABLES_PTX = tl.constexpr(
    "{\n.reg .b32 l, z;\nmov.u32 l, %laneid;\nmul.hi.u32 z, l, l;\n"
    f"add.u32 $0, z, {_U_POSITIVE[0]};\nadd.u32 $1, z, {_U_NEGATIVE[0]};\n}}")


@triton.jit
def lane_tables(like):
    """The byte tables' low words (_U_POSITIVE[0], _U_NEGATIVE[0]) in the shape of
    `like`, as values ptxas cannot prove uniform across a warp: as constants it keeps
    them in uniform registers and copies one into a vector register before every byte
    permute (prmt takes one table word as an immediate, the other from a vector
    register), offline sm_90 64 such copies per chunk loop of 8 words per thread
    (bench/proto/s56_nvfp4_dp4a.py: 398 instructions instead of 343)."""
    return tl.inline_asm_elementwise(_LANE_TABLES_PTX, "=r,=r,r", [like.to(tl.int32)],
                                     dtype=(tl.int32, tl.int32), is_pure=True, pack=1)


@triton.jit
def _int8_probe_words(p, up, NW: tl.constexpr):
    """p [16 NW] fp32 times up (|p up| <= 127) rounded to int8 (to nearest even, by the
    fp32 add of 1.5 * 2^23: the integer lands in the low mantissa bits), as the four
    probe words of each 16-key block ([NW] int32 each: byte j of word i is key 4i + j)
    and each block's dp4a start, 0x4B400000 - 12 sum(p8) ([NW] int32); and p8 [NW, 16]
    fp32, for the interpreter's path."""
    p8 = ((p * up + 12582912.0).to(tl.int32, bitcast=True) - 0x4B400000).reshape([NW, 4, 4])
    w = tl.sum((p8 & 0xFF) << (tl.arange(0, 4) * 8)[None, None, :], axis=2)   # [NW, 4]
    w0, w1, w2, w3 = _split4(w)
    start = 0x4B400000 - 12 * tl.sum(tl.reshape(p8, [NW, 16]), axis=1)
    return w0, w1, w2, w3, start, tl.reshape(p8, [NW, 16]).to(tl.float32)


def fp16x2_products_ptx(head: str, pairs: int, probes: int) -> str:
    """PTX of one word's fp16x2 products with `probes` probes, after `head` (which
    declares and decodes the word's `pairs` fp16x2 registers p0 ..): outputs $0 ..
    $(probes - 1) (fp32 sums over the word's keys), input $probes the 8-byte word, then
    per probe its fp16x2 pairs in register order."""
    p = ", ".join(f"p{i}" for i in range(pairs))
    ptx = (f".reg .b32 wa, wb, acc, {p};\n.reg .b16 a0, a1;\n.reg .f32 f0, f1;\n"
           f"mov.b64 {{wa, wb}}, ${probes};\n" + head)
    for j in range(probes):
        arg = [f"${probes + 1 + j * pairs + i}" for i in range(pairs)]
        ptx += f"mul.rn.f16x2 acc, p0, {arg[0]};\n"
        ptx += "".join(f"fma.rn.f16x2 acc, p{i}, {arg[i]}, acc;\n" for i in range(1, pairs))
        ptx += f"mov.b32 {{a0, a1}}, acc;\ncvt.f32.f16 f0, a0;\ncvt.f32.f16 f1, a1;\nadd.f32 ${j}, f0, f1;\n"
    return "{\n" + ptx + "}"


def fp16x2_constraints(pairs: int, probes: int) -> str:
    return ",".join(["=r"] * probes + ["l"] + ["r"] * (pairs * probes))


# e4m3 pairs to fp16x2: the low byte of each 16 bits to the low half (sm_89+)
_FP8_HEAD = (".reg .b16 e0, e1, e2, e3;\nmov.b32 {e0, e1}, wa;\nmov.b32 {e2, e3}, wb;\n"
             + "".join(f"cvt.rn.f16x2.e4m3x2 p{i}, e{i};\n" for i in range(len(_FP8_PAIR_KEYS))))
_FP8_DOT1_PTX = tl.constexpr(fp16x2_products_ptx(_FP8_HEAD, len(_FP8_PAIR_KEYS), 1))
_FP8_DOT2_PTX = tl.constexpr(fp16x2_products_ptx(_FP8_HEAD, len(_FP8_PAIR_KEYS), 2))
_FP8_DOT1_C = tl.constexpr(fp16x2_constraints(len(_FP8_PAIR_KEYS), 1))
_FP8_DOT2_C = tl.constexpr(fp16x2_constraints(len(_FP8_PAIR_KEYS), 2))


@triton.jit
def probe_scale(amax, P: tl.constexpr):
    """(2^s, 2^-s), fp32 and exact, with s the power of two that puts amax (>= 0) in
    [2^(P-1), 2^P). All-zero (or tiny: amax < 2^(P-127)) probes take the smallest s whose
    inverse is a normal fp32 number."""
    e = (amax.to(tl.uint32, bitcast=True) >> 23) & 0xFF   # biased exponent
    e = tl.maximum(e, P)
    up = ((253 + P - e) << 23).to(tl.float32, bitcast=True)
    down = ((e + 1 - P) << 23).to(tl.float32, bitcast=True)
    return up, down


@triton.jit
def word_probe_scale(amax, NVFP4: tl.constexpr):
    """(up, down): the word products' probe scale and its inverse. FP8: probe_scale with
    P = 4 (e4m3's values; see above). NVFP4: up = 127 / amax, down = amax / 127 (the int8
    probe's largest element at 127; not powers of two, so down is up's inverse within an
    fp32 rounding; amax is taken at least 2^-120, so that up is finite: an all-zero probe
    gives zeros and a tinier one rounds to steps of 2^-120 / 127; a NaN one gives NaN). A caller
    that streams one probe in key chunks takes it once from the max over the whole key
    axis (a max over a superset of a chunk's elements keeps every bound above; the
    probe's rounding is then relative to that larger max) and passes `up` to
    read_words_dot_at / read_words_dot2_at, instead of a warp max per chunk and probe
    (offline sm_90: 34 instructions per chunk of GDN's FP8 row decode)."""
    if NVFP4:
        a = tl.maximum(amax, 7.52316384526264e-37, propagate_nan=tl.PropagateNan.ALL)   # 2^-120
        return 127.0 / a, a * (1.0 / 127.0)
    else:
        return probe_scale(amax, 4)


@triton.jit
def _fp16_bits(p, up):
    """fp16 bits (uint32) of p * up."""
    return (p * up).to(tl.float16).to(tl.uint16, bitcast=True).to(tl.uint32)


@triton.jit
def _split4(x):
    """x [NW, 4] -> its four columns, in order."""
    e, o = tl.split(tl.reshape(x, [x.shape[0], 2, 2]))
    x0, x2 = tl.split(e)
    x1, x3 = tl.split(o)
    return x0, x1, x2, x3


@triton.jit
def _fp8_pairs(h, NW: tl.constexpr):
    """fp16 bits h [8 NW] (uint32) as fp16x2 pairs of keys (0, 1), (2, 3), (4, 5), (6, 7)
    of each word: four [NW] uint32 tensors (_FP8_PAIR_KEYS)."""
    lo, hi = tl.split(tl.reshape(h, [NW, 4, 2]))
    return _split4(lo | (hi << 16))


@triton.jit
def _word_keys_fp16(h, NW: tl.constexpr, KW: tl.constexpr):
    """The interpreter's path: fp16 bits [KW NW] as fp32 [NW, KW] values."""
    return tl.reshape(h.to(tl.uint16).to(tl.float16, bitcast=True).to(tl.float32), [NW, KW])


@triton.jit
def _nvfp4_word_values(words, KW: tl.constexpr):
    """The interpreter's path: 8-byte words [R, NW] (uint64) to [R, NW, 16] fp32, 2^-14
    times e2m1 (key j: nibble j from the low end)."""
    shifts = (tl.arange(0, KW) * 4).to(tl.uint64)
    return e2m1_scaled(((words[:, :, None] >> shifts[None, None, :]) & 0xF).to(tl.uint8))


@triton.jit
def _e4m3_word_values(words, KW: tl.constexpr):
    """The interpreter's path: 8-byte words [R, NW] (uint64) of e4m3 bytes to [R, NW, 8]
    fp32, decoded arithmetically (sign, 4 exponent bits with bias 7, 3 mantissa bits)."""
    shifts = (tl.arange(0, KW) * 8).to(tl.uint64)
    b = ((words[:, :, None] >> shifts[None, None, :]) & 0xFF).to(tl.uint32)
    e = (b >> 3) & 0xF
    m = (b & 7).to(tl.float32)
    normal = (8.0 + m) * ((tl.maximum(e, 1) + 117) << 23).to(tl.float32, bitcast=True)   # (8 + m) 2^(e - 10)
    mag = tl.where(e == 0, m * 0.001953125, normal)   # subnormals: m 2^-9
    return tl.where((b & 0x80) != 0, -mag, mag)


@triton.jit
def _fp8_words_dot(words, h, NW: tl.constexpr):
    """One probe's fp16 bits h against FP8 words (read_words_dot_at, before the scale)."""
    if _NATIVE:
        x0, x1, x2, x3 = _fp8_pairs(h, NW)
        d = tl.inline_asm_elementwise(_FP8_DOT1_PTX, _FP8_DOT1_C, [words, x0, x1, x2, x3],
                                      dtype=tl.float32, is_pure=True, pack=1)
    else:
        d = tl.sum(_e4m3_word_values(words, 8) * _word_keys_fp16(h, NW, 8)[None, :, :], axis=2)
    return d


@triton.jit
def _nvfp4_words_dot(words, p, up, NW: tl.constexpr):
    """One probe against NVFP4 words in int8 (read_words_dot_at, before the scale)."""
    w0, w1, w2, w3, start, p8 = _int8_probe_words(p, up, NW)
    if _NATIVE:
        lp, ln = lane_tables(tl.zeros(words.shape, tl.int32))
        d = tl.inline_asm_elementwise(_NVFP4_DP4A1_PTX, _NVFP4_DP4A1_C,
                                      [words, lp, ln, w0[None, :], w1[None, :], w2[None, :], w3[None, :],
                                       start[None, :]], dtype=tl.float32, is_pure=True, pack=1)
    else:   # exact in fp32, as the int32 sums: each a multiple of 2^-15 below 2^9
        d = tl.sum(_nvfp4_word_values(words, 16) * p8[None, :, :], axis=2)
    return d


@triton.jit
def read_words_dot(words, p, NW: tl.constexpr, NVFP4: tl.constexpr):
    """Per 8-byte word of a read copy (words [R, NW] uint64), the sum over its keys of the
    value times the probe p (fp32): [R, NW] fp32 (see above). NVFP4: 16 keys per word (key
    2j in byte j's low nibble), values 2^-14 * e2m1, products in int8; else e4m3: 8 keys
    (key j in byte j), products in fp16x2."""
    up, down = word_probe_scale(tl.max(tl.abs(p), axis=0), NVFP4)
    return read_words_dot_at(words, p, up, NW, NVFP4) * down


@triton.jit
def read_words_dot_at(words, p, up, NW: tl.constexpr, NVFP4: tl.constexpr):
    """read_words_dot with the probe's scale given (word_probe_scale's `up`): the sums
    times `up`, which the caller undoes (its `down`) once for all of them."""
    if NVFP4:
        return _nvfp4_words_dot(words, p, up, NW)
    else:
        return _fp8_words_dot(words, _fp16_bits(p, up), NW)


@triton.jit
def read_words_dot2(words, p, q, NW: tl.constexpr, NVFP4: tl.constexpr):
    """read_words_dot for two probes at once (one decode of each word)."""
    up_p, dp = word_probe_scale(tl.max(tl.abs(p), axis=0), NVFP4)
    up_q, dq = word_probe_scale(tl.max(tl.abs(q), axis=0), NVFP4)
    d_p, d_q = read_words_dot2_at(words, p, q, up_p, up_q, NW, NVFP4)
    return d_p * dp, d_q * dq


@triton.jit
def read_words_dot2_at(words, p, q, up_p, up_q, NW: tl.constexpr, NVFP4: tl.constexpr):
    """read_words_dot2 with the probes' scales given (read_words_dot_at)."""
    if not _NATIVE:   # (the interpreter decodes each word twice: it has time)
        return read_words_dot_at(words, p, up_p, NW, NVFP4), read_words_dot_at(words, q, up_q, NW, NVFP4)
    elif NVFP4:
        a0, a1, a2, a3, a4, _ = _int8_probe_words(p, up_p, NW)
        b0, b1, b2, b3, b4, _ = _int8_probe_words(q, up_q, NW)
        lp, ln = lane_tables(tl.zeros(words.shape, tl.int32))
        return tl.inline_asm_elementwise(
            _NVFP4_DP4A2_PTX, _NVFP4_DP4A2_C,
            [words, lp, ln, a0[None, :], a1[None, :], a2[None, :], a3[None, :], a4[None, :],
             b0[None, :], b1[None, :], b2[None, :], b3[None, :], b4[None, :]],
            dtype=(tl.float32, tl.float32), is_pure=True, pack=1)
    else:
        x0, x1, x2, x3 = _fp8_pairs(_fp16_bits(p, up_p), NW)
        y0, y1, y2, y3 = _fp8_pairs(_fp16_bits(q, up_q), NW)
        return tl.inline_asm_elementwise(_FP8_DOT2_PTX, _FP8_DOT2_C,
                                         [words, x0, x1, x2, x3, y0, y1, y2, y3],
                                         dtype=(tl.float32, tl.float32), is_pure=True, pack=1)


# -- an FP8 read copy's tiles against the probes on tensor cores -------------------------
# The value-tile decode may instead multiply a read copy's e4m3 tile [BV, K] (the A
# operand, keys contiguous as stored) by an e4m3 probe operand [K, 16] built once per
# program (the B operand): on sm_90 at four warps per program Triton lowers it to
# wgmma's e4m3 x e4m3 -> fp32 product, fed by cp.async straight from the pipelined tile
# loop into shared memory, with no per-element conversion or multiply in the threads
# (offline, sm_90, Triton 3.6, GDN's decode at [64, 128] and four warps: the tile's
# load, scales and product take ~67 instructions per warp, ~0.03 per element, where
# the fp16x2 word products take ~2.3 per element; session 37's notes). Hopper has no
# e4m3 x fp16 product, so each probe p (fp32) goes in as three e4m3 columns: scaled by a
# power of two to a largest element in [128, 256), p ~ a + b / 16 + c / 256, each part
# rounded to e4m3 from the remainder of the parts before it (a remainder is at most half
# an e4m3 step: 1/16 of its element, or 2^-10 below e4m3's normal range, so the next
# part's 16x scale cannot overflow e4m3). The three columns' fp32 sums are combined with
# 1, 1/16, 1/256, and the power of two undone. Error: the probe's representation,
# within 2^-12 of each element (as fp16's rounding of the word products' probes), and
# the tensor core's fp32 accumulation (Hopper keeps ~14 bits of an fp8 product sum,
# DeepSeek-V3's report), against the read copy's own quantisation error of 2^-4.
MMA_COLUMNS = tl.constexpr(16)   # tl.dot's smallest N; 3 columns per probe are used
MMA_PART = tl.constexpr(16.0)    # the scale between one part and the next


@triton.jit
def _e4m3_parts(x):
    """x (fp32, |x| < 256) as three e4m3 values (in fp32): x ~ a + b / 16 + c / 256."""
    a = e4m3_round(x)
    r = (x - a) * MMA_PART   # (exact: a is x to its leading bits)
    b = e4m3_round(r)
    c = e4m3_round((r - b) * MMA_PART)
    return a, b, c


@triton.jit
def _part_rows(p, row, first: tl.constexpr):
    """p's three parts in rows first .. first + 2 of a [MMA_COLUMNS, len(p)] tile, and
    its scale's inverse (to undo after the product)."""
    up, down = probe_scale(tl.max(tl.abs(p), axis=0), 8)
    a, b, c = _e4m3_parts(p * up)
    x = tl.where(row == first, a[None, :], 0.0)
    x = tl.where(row == first + 1, b[None, :], x)
    return tl.where(row == first + 2, c[None, :], x), down


@triton.jit
def mma_probe_operand(p, q, TWO: tl.constexpr):
    """The e4m3 B operand [len(p), MMA_COLUMNS] of one probe p (columns 0-2) or, with
    TWO, of p and q (columns 3-5; else q is not read), zeros elsewhere; and the inverses
    of their scales (down_p, down_q; down_q = down_p without TWO). Built once per
    program, as its transpose: the key vectors then take the layout of a row of it, keys
    spread over the threads (as columns of [len(p), 16], each thread held 16 of them:
    offline sm_90, GDN at four warps, 1,000 instructions of rounding per program, 4x
    these). The casts see exact e4m3 values only (the interpreter's misround near powers
    of two cannot reach them)."""
    row = tl.arange(0, MMA_COLUMNS)[:, None]
    x, down_p = _part_rows(p, row, 0)
    down_q = down_p
    if TWO:
        y, down_q = _part_rows(q, row, 3)
        x = x + y   # (disjoint rows)
    return tl.trans(x.to(tl.float8e4nv)), down_p, down_q


@triton.jit
def mma_probe_sums(acc, first: tl.constexpr):
    """Per row of acc [R, MMA_COLUMNS] (a tile's product with mma_probe_operand), the sum
    of one probe's three parts, columns first .. first + 2, weighted 1, 1/16, 1/256."""
    col = tl.arange(0, MMA_COLUMNS)
    w = tl.where(col == first, 1.0, 0.0)
    w = tl.where(col == first + 1, 1.0 / MMA_PART, w)
    w = tl.where(col == first + 2, 1.0 / (MMA_PART * MMA_PART), w)
    return tl.sum(acc * w[None, :], axis=1)


@triton.jit
def e2m1_value(c):
    """A 4-bit e2m1 code (uint8, high bits ignored) to fp32."""
    return e2m1_scaled(c) * 16384.0


@triton.jit
def block_scaled_sum(x, b, R: tl.constexpr, NB: tl.constexpr, G: tl.constexpr):
    """Per row of x [R, NB * G], the sum of its NB blocks of G elements, each block's
    partial sum times its scale b [R, NB]: one multiply per block instead of one per
    element (the key-chunk decode of an NVFP4 read copy, G = 16 keys)."""
    return tl.sum(tl.sum(tl.reshape(x, [R, NB, G]), axis=2) * b, axis=1)


@triton.jit
def grouped_dot(acc, x, p, R: tl.constexpr, C: tl.constexpr, GC: tl.constexpr):
    """acc [R, GC] plus, per row of x [R, C], the sums of its GC groups of C / GC
    consecutive products with p [C]: for groups of 4 an FFMA chain per element (the
    key-chunk decode's partial sums, reduced across threads once per value tile). The
    interpreter sums each group directly: its cost is per operation, not per element."""
    if _NATIVE and C // GC == 4:
        xa, xb = tl.split(tl.reshape(x, [R, GC, 2, 2]))   # element 4g + 2i + j: j = 0, 1
        x0, x2 = tl.split(xa)
        x1, x3 = tl.split(xb)
        pa, pb = tl.split(tl.reshape(p, [GC, 2, 2]))
        p0, p2 = tl.split(pa)
        p1, p3 = tl.split(pb)
        return acc + x0 * p0[None, :] + x1 * p1[None, :] + x2 * p2[None, :] + x3 * p3[None, :]
    else:
        return acc + tl.sum(tl.reshape(x * p[None, :], [R, GC, C // GC]), axis=2)


@triton.jit
def fp8_inverse_scale(amax):
    """448 / amax: multiplies x into e4m3's range (zero for an all-zero group)."""
    safe = tl.where(amax > 0, amax, 1.0)   # no division by zero, even in discarded lanes
    return tl.where(amax > 0, tl.math.div_rn(tl.zeros_like(safe) + 448.0, safe), 0.0)


@triton.jit
def fp8_scale(amax):
    """amax / 448: the stored scale, x ~ e4m3 value * scale."""
    return tl.math.div_rn(amax, tl.zeros_like(amax) + 448.0)


@triton.jit
def e4m3_value(x):
    """e4m3_round(x), fp32: compiled, through the GPU's conversion and back (to_e4m3 and a
    widening cast, both exact on the grid: three instructions per pair, where e4m3_round
    takes ~12 per element); in the interpreter, e4m3_round itself."""
    if _NATIVE:
        return to_e4m3(x).to(tl.float32)
    else:
        return e4m3_round(x)


@triton.jit
def reciprocal_rn(x):
    """1 / x, correctly rounded: tl.math.div_rn(1, x)'s value (the same real number, rounded
    once). Compiled, PTX rcp.rn.f32, where div.rn.f32 takes a longer sequence for a
    general dividend; in the interpreter, div_rn."""
    if _NATIVE:
        return tl.inline_asm_elementwise("rcp.rn.f32 $0, $1;", "=r,r", [x], dtype=tl.float32,
                                         is_pure=True, pack=1)
    else:
        return tl.math.div_rn(tl.zeros_like(x) + 1.0, x)


# nvfp4_block_scales' fast path holds for tile scales t in this range (a tile amax in
# about [2^-69, 2^111]); other tiles (all-zero, tinier, larger, inf or NaN) take the
# general one. Why these bounds: see nvfp4_block_scales.
NVFP4_FAST_T_MIN = tl.constexpr(2.0 ** -80)
NVFP4_FAST_T_MAX = tl.constexpr(2.0 ** 100)


@triton.jit
def reciprocal_rn_normal(x):
    """reciprocal_rn(x) for 2^-126 <= |x| < 2^126 (the caller guarantees the range).
    Compiled: rcp.rn.f32's own fast path in sm_90 SASS (MUFU.RCP, then e = x y - 1 and
    y - y e, each rounded once), without its range check and slow-path call, which take
    as many instructions again; outside the range the result is wrong. Interpreter:
    div_rn."""
    if _NATIVE:
        return tl.inline_asm_elementwise(
            "{ .reg .f32 y, e; rcp.approx.ftz.f32 y, $1; fma.rn.f32 e, $1, y, 0fBF800000; "
            "neg.f32 e, e; fma.rn.f32 $0, y, e, y; }",
            "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)
    else:
        return tl.math.div_rn(tl.zeros_like(x) + 1.0, x)


@triton.jit
def div_rn_by(a, d, y):
    """a / d correctly rounded, given y = reciprocal_rn(d): Markstein's correction,
    q0 = a y, r = a - q0 d (exact in one fma), q = q0 + r y, each rounded once. This is
    div.rn.f32's fast path in sm_90 SASS after its reciprocal, so a divisor shared by many
    dividends pays for its reciprocal once. Valid where that fast path is (its FCHK test):
    r must not underflow, which nvfp4_block_scales' range ensures where it matters."""
    q0 = a * y
    return tl.fma(tl.fma(-q0, d, a), y, q0)


@triton.jit
def nvfp4_tile_divisors(t):
    """What nvfp4_block_scales needs once per tile scale, for the tile scales t ([R]: one
    per row of the calls that follow, or [1]): `fast`, a scalar, whether every t lies in
    [NVFP4_FAST_T_MIN, NVFP4_FAST_T_MAX] (then the calls may take the fast path), and
    y = reciprocal_rn(6 t), the fast path's divisor reciprocal (of 6 where t is 0; unused
    off the fast path). The key-chunk quantiser's loop calls nvfp4_block_scales once per
    chunk under the same scales, so its caller takes these before the loop."""
    fast = (tl.min(t, axis=0) >= NVFP4_FAST_T_MIN) & (tl.max(t, axis=0) <= NVFP4_FAST_T_MAX)
    return fast, reciprocal_rn(6.0 * tl.where(t > 0, t, 1.0))


@triton.jit
def nvfp4_block_scales(b_amax, t, fast, y):
    """The scales of NVFP4 blocks whose largest magnitudes are b_amax (>= 0), under the tile
    scale t (> 0, or 0 for an all-zero tile; broadcast against b_amax): the block scale b
    (fp32 on the e4m3 grid: b_amax / (6 t) correctly rounded, then rounded to e4m3) and
    inv = 1 / (b t) correctly rounded, 0 where b t is 0, which takes the block's elements
    onto e2m1's range. Both quantisers' scales (nvfp4_quantize, nvfp4_quantize_pairs), so
    their codes are the same bit for bit. The reduction's layout repeats every block's
    scale on several threads (8 of a [16, 128] fold tile's 128 threads), so these lines
    are a fifth of the NVFP4 fold's instructions.

    fast and y (nvfp4_tile_divisors of the call's tile scales, y broadcast as t): on the
    fast path, the same values with the division's reciprocal y taken once per tile
    scale (div_rn_by) and
    1 / (b t) by rcp.rn's fast path alone (reciprocal_rn_normal). Why the range suffices:
    b t is 0 or in [2^-9 t, 448 t], inside reciprocal_rn_normal's range; d = 6 t is normal,
    and where b_amax / d is near e4m3's smallest rounding boundary (2^-10) or above, the
    residual's grid (ulp(q) ulp(d) >= 2^-33 2^-101) is above fp32's 2^-149, so it is
    exact; below 2^-11 an inexact residual cannot move the quotient across 2^-10 and b is
    0 either way. (Offline sm_90, GDN's NVFP4 fold at [16, 128] and four warps: these
    lines took 276 of the tile loop's 1133 instructions before.)"""
    if fast:
        b = e4m3_value(div_rn_by(b_amax, 6.0 * t, y))
        bt = b * t
        inv = tl.where(bt > 0, reciprocal_rn_normal(tl.where(bt > 0, bt, 1.0)), 0.0)
    else:
        b = e4m3_value(tl.where(t > 0, tl.math.div_rn(b_amax, 6.0 * tl.where(t > 0, t, 1.0)), 0.0))
        bt = b * t
        inv = tl.where(bt > 0, reciprocal_rn(tl.where(bt > 0, bt, 1.0)), 0.0)
    return b, inv


@triton.jit
def nvfp4_quantize(x, BV: tl.constexpr, BK: tl.constexpr, NB: tl.constexpr):
    """A [BV, BK] fp32 tile (zero where masked) as NVFP4: packed codes [BV, BK // 2]
    (uint8), block scales [BV, NB] (fp32 values on the e4m3 grid) and the tile scale."""
    a = tl.abs(x)
    amax = tl.max(tl.max(a, axis=1), axis=0)
    t = tl.math.div_rn(amax, 2688.0)   # 6 * 448: the largest block scale is 448
    b_amax = tl.max(tl.reshape(a, [BV, NB, BK // NB]), axis=2)   # [BV, NB]
    fast, y = nvfp4_tile_divisors(tl.zeros([1], tl.float32) + t)
    b, inv = nvfp4_block_scales(b_amax, t, fast, y)
    xs = tl.reshape(tl.reshape(x, [BV, NB, BK // NB]) * inv[:, :, None], [BV, BK])
    lo, hi = tl.split(tl.reshape(e2m1_code(xs), [BV, BK // 2, 2]))
    return lo | (hi << 4), b, t


@triton.jit
def nvfp4_dequantize(packed, b, t, BV: tl.constexpr, BK: tl.constexpr, NB: tl.constexpr):
    """The inverse of nvfp4_quantize: packed [BV, BK // 2], block scales b [BV, NB] (any
    float type), tile scale t -> [BV, BK] fp32."""
    v = tl.reshape(tl.join(e2m1_value(packed), e2m1_value(packed >> 4)), [BV, NB, BK // NB])
    return tl.reshape(v * (b.to(tl.float32) * t)[:, :, None], [BV, BK])


@triton.jit
def group_max(a, R: tl.constexpr, G: tl.constexpr):
    """Per element of the [R] vector a, the maximum of its group of G consecutive
    elements (R a multiple of G): a value tile's maximum, per row."""
    m = tl.max(tl.reshape(a, [R // G, G]), axis=1)
    return tl.reshape(tl.broadcast_to(m[:, None], [R // G, G]), [R])


@triton.jit
def nvfp4_quantize_pairs(x_e, x_o, t, fast, y, R: tl.constexpr, C: tl.constexpr, G: tl.constexpr):
    """nvfp4_quantize for a key chunk given as its even (x_e) and odd (x_o) key elements,
    [R, C] fp32 each (zero where masked), with the tile scale t per row ([R], computed
    from the whole tile beforehand) and nvfp4_tile_divisors(t) (fast, y: taken once for
    all the chunks): packed codes [R, C] (uint8: even key in the low nibble) and block
    scales [R, C // G] (G packed bytes, 16 keys, per block). The same arithmetic as
    nvfp4_quantize, so the results are bit for bit the same."""
    a = tl.maximum(tl.abs(x_e), tl.abs(x_o))
    b_amax = tl.max(tl.reshape(a, [R, C // G, G]), axis=2)   # [R, C // G]
    b, inv = nvfp4_block_scales(b_amax, t[:, None], fast, y[:, None])
    inv = tl.reshape(tl.broadcast_to(inv[:, :, None], [R, C // G, G]), [R, C])
    return e2m1_code(x_e * inv) | (e2m1_code(x_o * inv) << 4), b


@triton.jit
def random_bits_tile(seed, rows, k0, K, C: tl.constexpr):
    """Philox uint32 bits for a [len(rows), C] tile of a [V, K] state (keys k0 .. k0 + C,
    C a multiple of 4): one Philox call per 4 consecutive keys, its four outputs for the
    four (tl.randint would take one of the four and throw three away: the stochastic
    fold spent most of its instructions there). The counter of a group is the flat index
    row * K + key of its first key, so no two groups that start inside the state (key < K)
    share a counter under one `seed`; groups past K (tiles padded to a power of two) may
    repeat another row's counter, and their bits are never stored (masked)."""
    tl.static_assert(C % 4 == 0)
    base = rows[:, None] * K + k0 + tl.arange(0, C // 4)[None, :] * 4
    r0, r1, r2, r3 = tl.randint4x(seed, base)
    bits = tl.join(tl.join(r0, r2), tl.join(r1, r3))   # [R, C // 4, 2, 2]: r0 r1 r2 r3 in order
    return tl.reshape(bits, [rows.shape[0], C]).to(tl.uint32, bitcast=True)


@triton.jit
def round_bf16_stochastic(x, r):
    """x (fp32) to bf16 with stochastic rounding driven by the uint32 bits r: the 16
    bits bf16 drops are replaced by their sum with 16 random bits, carry kept, then
    truncated: rounds away from zero with probability (dropped part) / ulp."""
    bits = x.to(tl.uint32, bitcast=True)
    y = ((bits + (r & 0xFFFF)) & 0xFFFF0000).to(tl.float32, bitcast=True)
    return tl.where(x == x, y, x).to(tl.bfloat16)   # NaN stays NaN


@triton.jit
def round_fp16_stochastic(x, r):
    """x (fp32) to fp16 with stochastic rounding: as for bf16, with 13 dropped bits in
    fp16's normal range and more below 2^-14 (its subnormals, step 2^-24); below 2^-24
    the result is 0 or 2^-24 with probability |x| / 2^-24."""
    bits = x.to(tl.uint32, bitcast=True)
    e = ((bits >> 23) & 0xFF).to(tl.int32) - 127
    drop = tl.minimum(tl.maximum(-1 - e, 13), 23).to(tl.uint32)
    mask = (tl.full(x.shape, 1, tl.uint32) << drop) - 1
    y = (((bits + (r & mask)) >> drop) << drop).to(tl.float32, bitcast=True)
    tiny = tl.where((r >> 8).to(tl.float32) * (2.0 ** -24) < tl.abs(x) * (2.0 ** 24), 2.0 ** -24, 0.0)
    y = tl.where(e < -24, tl.where(x < 0, -tiny, tiny), y)
    return tl.where(x == x, y, x).to(tl.float16)
