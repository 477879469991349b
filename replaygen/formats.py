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

    By the exponent trick of e4m3_round rather than seven threshold compares (the fold's
    quantiser spent most of its instructions on those): with a's binade clamped to e in
    0..2 (a < 1 shares binade 0's step of 1/2, the e2m1 subnormal), adding m = 2^(e+22)
    rounds a to a multiple of its grid step 2^(e-1), ties to even, and the integer
    difference of the fp32 bit patterns of a + m and m is that multiple, q. The e2m1 codes
    are laid out so that code = q + 2e (q = 0..4 in binade 0, 2..4 in the others; q = 4
    is the next binade's first value); past 6 (and for inf) the min saturates to 7."""
    a = tl.abs(x)
    # the biased fp32 exponent of a clamped to 127..129 (a's binade, 1 <= a < 8 unclamped)
    f = tl.minimum(tl.maximum((a.to(tl.int32, bitcast=True) >> 23), 127), 129)
    m_bits = (f + 22) << 23     # m = 2^(e + 22), e = f - 127
    q = (a + m_bits.to(tl.float32, bitcast=True)).to(tl.int32, bitcast=True) - m_bits
    c = tl.minimum(q + 2 * (f - 127), 7).to(tl.uint8)
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


# -- products of read-copy words with a probe, in fp16x2 --------------------------------
# The key-chunk decode's non-flush step multiplies every read-copy element by a probe (the
# decayed query, and for a delta rule the decayed key) and sums over the keys. In fp32
# that is a conversion, a multiply and an add per element per probe; here an 8-byte word
# of the read copy (16 NVFP4 keys or 8 FP8 keys) is decoded to fp16x2 pairs once (exact:
# e2m1 and e4m3 values are fp16 values) and each probe takes one fp16x2 FMA per pair,
# its pair sums widened to fp32 once per word. The probe is scaled by a power of two so
# that its largest element lies in [2^(P-1), 2^P) before it is rounded to fp16 (P = 14
# for NVFP4's 2^-14-scaled values, 4 for e4m3's values up to 448; a decode that streams
# the probe in key chunks takes the power of two once, from the whole probe's largest
# element: word_probe_scale): no product or pair sum can overflow (NVFP4: < 6 per product
# and < 48 per half-word sum; FP8: < 7168 and < 28672), and the power of two is undone
# exactly. Error: the probe's rounding to fp16 (2^-12 of its largest element) and the fp16
# sums of 4 or 8 products (2^-11 each), far below the read copy's own quantisation error
# (2^-4 for FP8, 1/4 for NVFP4).
# The keys of the fp16x2 pairs each word decodes to, in register order.
_NVFP4_PAIR_KEYS = ((0, 2), (4, 6), (1, 3), (5, 7), (8, 10), (12, 14), (9, 11), (13, 15))
_FP8_PAIR_KEYS = ((0, 1), (2, 3), (4, 5), (6, 7))


def _word_dot_ptx(kind: str, probes: int) -> str:
    """PTX of one word's products with `probes` probes: outputs $0 .. $(probes - 1) (fp32
    sums over the word's keys), input $probes the 8-byte word, then per probe its fp16x2
    pairs in the order of _NVFP4_PAIR_KEYS / _FP8_PAIR_KEYS."""
    pairs = len(_NVFP4_PAIR_KEYS if kind == "nvfp4" else _FP8_PAIR_KEYS)
    p = [f"p{i}" for i in range(pairs)]
    head = (f".reg .b32 wa, wb, acc, {', '.join(p)};\n.reg .b16 a0, a1;\n.reg .f32 f0, f1;\n"
            f"mov.b64 {{wa, wb}}, ${probes};\n")
    if kind == "nvfp4":
        head = (".reg .b32 t0, t1, lo, hi, z;\n" + head + "mov.b32 z, 0;\n"
                + _e2m1_word_to_f16x2("wa", p[:4]) + _e2m1_word_to_f16x2("wb", p[4:]))
    else:   # e4m3 pairs to fp16x2: the low byte of each 16 bits to the low half (sm_89+)
        head = (".reg .b16 e0, e1, e2, e3;\n" + head + "mov.b32 {e0, e1}, wa;\nmov.b32 {e2, e3}, wb;\n"
                + "".join(f"cvt.rn.f16x2.e4m3x2 p{i}, e{i};\n" for i in range(pairs)))
    body = ""
    for j in range(probes):
        arg = [f"${probes + 1 + j * pairs + i}" for i in range(pairs)]
        body += f"mul.rn.f16x2 acc, p0, {arg[0]};\n"
        body += "".join(f"fma.rn.f16x2 acc, p{i}, {arg[i]}, acc;\n" for i in range(1, pairs))
        body += f"mov.b32 {{a0, a1}}, acc;\ncvt.f32.f16 f0, a0;\ncvt.f32.f16 f1, a1;\nadd.f32 ${j}, f0, f1;\n"
    return "{\n" + head + body + "}"


def _word_dot_constraints(kind: str, probes: int) -> str:
    pairs = len(_NVFP4_PAIR_KEYS if kind == "nvfp4" else _FP8_PAIR_KEYS)
    return ",".join(["=r"] * probes + ["l"] + ["r"] * (pairs * probes))


_NVFP4_DOT1_PTX = tl.constexpr(_word_dot_ptx("nvfp4", 1))
_NVFP4_DOT2_PTX = tl.constexpr(_word_dot_ptx("nvfp4", 2))
_FP8_DOT1_PTX = tl.constexpr(_word_dot_ptx("fp8", 1))
_FP8_DOT2_PTX = tl.constexpr(_word_dot_ptx("fp8", 2))
_NVFP4_DOT1_C = tl.constexpr(_word_dot_constraints("nvfp4", 1))
_NVFP4_DOT2_C = tl.constexpr(_word_dot_constraints("nvfp4", 2))
_FP8_DOT1_C = tl.constexpr(_word_dot_constraints("fp8", 1))
_FP8_DOT2_C = tl.constexpr(_word_dot_constraints("fp8", 2))


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
    """probe_scale for the word products' probes (P = 14 for NVFP4's 2^-14-scaled values,
    4 for e4m3's; see above). A caller that streams one probe in key chunks takes it once
    from the max over the whole key axis (a max over a superset of a chunk's elements
    keeps every bound above; the probe's rounding is then 2^-12 of that larger max) and
    passes `up` to read_words_dot_at / read_words_dot2_at, instead of a warp max per
    chunk and probe (offline sm_90: 34 instructions per chunk of GDN's FP8 row decode)."""
    return probe_scale(amax, 14 if NVFP4 else 4)


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
def _nvfp4_pairs(h, NW: tl.constexpr):
    """fp16 bits h [16 NW] (uint32) as the fp16x2 pairs _NVFP4_PAIR_KEYS of each word:
    eight [NW] uint32 tensors. Keys 4x + 2b + c pair over b."""
    lo, hi = tl.split(tl.permute(tl.reshape(h, [NW, 4, 2, 2]), (0, 1, 3, 2)))
    pr = tl.reshape(lo | (hi << 16), [NW, 2, 4])     # [NW, half-word, (x mod 2, c)]
    a, b = tl.split(tl.permute(pr, (0, 2, 1)))       # the low and the high 32 bits
    a0, a2, a1, a3 = _split4(a)                       # (x, c) = (0,0) (0,1) (1,0) (1,1)
    b0, b2, b1, b3 = _split4(b)
    return a0, a1, a2, a3, b0, b1, b2, b3


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
def _words_dot(words, h, NW: tl.constexpr, NVFP4: tl.constexpr):
    """One probe's fp16 bits h against the words (read_words_dot, before the scale)."""
    if NVFP4:
        if _NATIVE:
            x0, x1, x2, x3, x4, x5, x6, x7 = _nvfp4_pairs(h, NW)
            d = tl.inline_asm_elementwise(_NVFP4_DOT1_PTX, _NVFP4_DOT1_C,
                                          [words, x0, x1, x2, x3, x4, x5, x6, x7],
                                          dtype=tl.float32, is_pure=True, pack=1)
        else:
            d = tl.sum(_nvfp4_word_values(words, 16) * _word_keys_fp16(h, NW, 16)[None, :, :], axis=2)
    else:
        if _NATIVE:
            x0, x1, x2, x3 = _fp8_pairs(h, NW)
            d = tl.inline_asm_elementwise(_FP8_DOT1_PTX, _FP8_DOT1_C, [words, x0, x1, x2, x3],
                                          dtype=tl.float32, is_pure=True, pack=1)
        else:
            d = tl.sum(_e4m3_word_values(words, 8) * _word_keys_fp16(h, NW, 8)[None, :, :], axis=2)
    return d


@triton.jit
def read_words_dot(words, p, NW: tl.constexpr, NVFP4: tl.constexpr):
    """Per 8-byte word of a read copy (words [R, NW] uint64), the sum over its keys of the
    value times the probe p (fp32): [R, NW] fp32, in fp16x2 arithmetic (see above).
    NVFP4: 16 keys per word (key 2j in byte j's low nibble), values 2^-14 * e2m1; else
    e4m3: 8 keys (key j in byte j)."""
    up, down = word_probe_scale(tl.max(tl.abs(p), axis=0), NVFP4)
    return read_words_dot_at(words, p, up, NW, NVFP4) * down


@triton.jit
def read_words_dot_at(words, p, up, NW: tl.constexpr, NVFP4: tl.constexpr):
    """read_words_dot with the probe's scale given (word_probe_scale's `up`): the sums
    times `up`, which the caller undoes (its `down`) once for all of them."""
    return _words_dot(words, _fp16_bits(p, up), NW, NVFP4)


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
    hp = _fp16_bits(p, up_p)
    hq = _fp16_bits(q, up_q)
    if _NATIVE:
        if NVFP4:
            x0, x1, x2, x3, x4, x5, x6, x7 = _nvfp4_pairs(hp, NW)
            y0, y1, y2, y3, y4, y5, y6, y7 = _nvfp4_pairs(hq, NW)
            d_p, d_q = tl.inline_asm_elementwise(
                _NVFP4_DOT2_PTX, _NVFP4_DOT2_C,
                [words, x0, x1, x2, x3, x4, x5, x6, x7, y0, y1, y2, y3, y4, y5, y6, y7],
                dtype=(tl.float32, tl.float32), is_pure=True, pack=1)
        else:
            x0, x1, x2, x3 = _fp8_pairs(hp, NW)
            y0, y1, y2, y3 = _fp8_pairs(hq, NW)
            d_p, d_q = tl.inline_asm_elementwise(_FP8_DOT2_PTX, _FP8_DOT2_C,
                                                 [words, x0, x1, x2, x3, y0, y1, y2, y3],
                                                 dtype=(tl.float32, tl.float32), is_pure=True, pack=1)
    else:   # (the interpreter decodes each word twice: it has time)
        d_p = _words_dot(words, hp, NW, NVFP4)
        d_q = _words_dot(words, hq, NW, NVFP4)
    return d_p, d_q


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


@triton.jit
def nvfp4_block_scales(b_amax, t):
    """The scales of NVFP4 blocks whose largest magnitudes are b_amax (>= 0), under the tile
    scale t (> 0, or 0 for an all-zero tile; broadcast against b_amax): the block scale b
    (fp32 on the e4m3 grid: b_amax / (6 t) correctly rounded, then rounded to e4m3) and
    inv = 1 / (b t) correctly rounded, 0 where b t is 0, which takes the block's elements
    onto e2m1's range. Both quantisers' scales (nvfp4_quantize, nvfp4_quantize_pairs), so
    their codes are the same bit for bit. (Offline sm_90, GDN's NVFP4 fold at [16, 128]
    and two warps: these lines took 581 of the tile's 2277 instructions with e4m3_round
    and two div_rn, 500 now of 2159. Each thread computes 16 of the tile's 128 scales:
    the reduction's layout repeats every block's scale on 8 threads.)"""
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
    b, inv = nvfp4_block_scales(b_amax, t)
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
def nvfp4_quantize_pairs(x_e, x_o, t, R: tl.constexpr, C: tl.constexpr, G: tl.constexpr):
    """nvfp4_quantize for a key chunk given as its even (x_e) and odd (x_o) key elements,
    [R, C] fp32 each (zero where masked), with the tile scale t per row ([R], computed
    from the whole tile beforehand): packed codes [R, C] (uint8: even key in the low
    nibble) and block scales [R, C // G] (G packed bytes, 16 keys, per block). The same
    arithmetic as nvfp4_quantize, so the results are bit for bit the same."""
    a = tl.maximum(tl.abs(x_e), tl.abs(x_o))
    b_amax = tl.max(tl.reshape(a, [R, C // G, G]), axis=2)   # [R, C // G]
    b, inv = nvfp4_block_scales(b_amax, t[:, None])
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
