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
    """x (fp32) rounded to the nearest e4m3 value, ties to even, saturating at ±448."""
    a = tl.abs(x)
    e = ((a.to(tl.uint32, bitcast=True) >> 23) & 0xFF).to(tl.int32) - 127
    # grid step 2^(e-3) in the normal range, 2^-9 for subnormals (e < -6); e > 8 saturates
    e = tl.minimum(tl.maximum(e, -6), 8)
    # (a + m) - m with m = 2^(e+20): fp32's own round-to-nearest-even on the e4m3 grid
    m = ((e + 147) << 23).to(tl.float32, bitcast=True)
    r = tl.minimum((a + m) - m, 448.0)
    return tl.where(x < 0, -r, r)


@triton.jit
def e2m1_code(x):
    """x (fp32, already scaled) to a 4-bit e2m1 code (bit 3: sign), nearest, ties to even,
    saturating at ±6."""
    a = tl.abs(x)
    c = ((a > 0.25).to(tl.uint8) + (a >= 0.75).to(tl.uint8) + (a > 1.25).to(tl.uint8)
         + (a >= 1.75).to(tl.uint8) + (a > 2.5).to(tl.uint8) + (a >= 3.5).to(tl.uint8)
         + (a > 5.0).to(tl.uint8))
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


# Four packed bytes per invocation: each nibble n becomes the high byte of an fp16,
# (n & 8) << 4 | (n & 7) << 1 (e2m1_scaled's bits), for the four low nibbles and the four
# high ones at once (shifts and masks on the whole word), paired with zero low bytes by
# byte permutes, and widened to fp32: ~23 instructions for 8 values where the per-element
# path took ~7 each (H200 profile, session 8: byte extraction and nibble decode were 44%
# of the NVFP4 decode kernel's instructions).
_E2M1_PAIRS_PTX = tl.constexpr("""
{
.reg .b32 t0, t1, lo, hi, z, p0, p1, p2, p3;
.reg .b16 h0, h1, h2, h3, h4, h5, h6, h7;
mov.b32 z, 0;
shl.b32 t0, $8, 4;
and.b32 t0, t0, 0x80808080;
shl.b32 t1, $8, 1;
and.b32 t1, t1, 0x0E0E0E0E;
or.b32 lo, t0, t1;
and.b32 t0, $8, 0x80808080;
shr.b32 t1, $8, 3;
and.b32 t1, t1, 0x0E0E0E0E;
or.b32 hi, t0, t1;
prmt.b32 p0, lo, z, 0x1404;
prmt.b32 p1, lo, z, 0x3424;
prmt.b32 p2, hi, z, 0x1404;
prmt.b32 p3, hi, z, 0x3424;
mov.b32 {h0, h1}, p0;
mov.b32 {h2, h3}, p1;
mov.b32 {h4, h5}, p2;
mov.b32 {h6, h7}, p3;
cvt.f32.f16 $0, h0;
cvt.f32.f16 $1, h1;
cvt.f32.f16 $2, h2;
cvt.f32.f16 $3, h3;
cvt.f32.f16 $4, h4;
cvt.f32.f16 $5, h5;
cvt.f32.f16 $6, h6;
cvt.f32.f16 $7, h7;
}
""")


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
def fp8_inverse_scale(amax):
    """448 / amax: multiplies x into e4m3's range (zero for an all-zero group)."""
    safe = tl.where(amax > 0, amax, 1.0)   # no division by zero, even in discarded lanes
    return tl.where(amax > 0, tl.math.div_rn(tl.zeros_like(safe) + 448.0, safe), 0.0)


@triton.jit
def fp8_scale(amax):
    """amax / 448: the stored scale, x ~ e4m3 value * scale."""
    return tl.math.div_rn(amax, tl.zeros_like(amax) + 448.0)


@triton.jit
def nvfp4_quantize(x, BV: tl.constexpr, BK: tl.constexpr, NB: tl.constexpr):
    """A [BV, BK] fp32 tile (zero where masked) as NVFP4: packed codes [BV, BK // 2]
    (uint8), block scales [BV, NB] (fp32 values on the e4m3 grid) and the tile scale."""
    a = tl.abs(x)
    amax = tl.max(tl.max(a, axis=1), axis=0)
    t = tl.math.div_rn(amax, 2688.0)   # 6 * 448: the largest block scale is 448
    b_amax = tl.max(tl.reshape(a, [BV, NB, BK // NB]), axis=2)   # [BV, NB]
    b = e4m3_round(tl.where(t > 0, tl.math.div_rn(b_amax, 6.0 * tl.where(t > 0, t, 1.0)), 0.0))
    bt = b * t
    inv = tl.where(bt > 0, tl.math.div_rn(tl.zeros_like(bt) + 1.0, tl.where(bt > 0, bt, 1.0)), 0.0)
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
    tb = t[:, None]
    b = e4m3_round(tl.where(tb > 0, tl.math.div_rn(b_amax, 6.0 * tl.where(tb > 0, tb, 1.0)), 0.0))
    bt = b * tb
    inv = tl.where(bt > 0, tl.math.div_rn(tl.zeros_like(bt) + 1.0, tl.where(bt > 0, bt, 1.0)), 0.0)
    inv = tl.reshape(tl.broadcast_to(inv[:, :, None], [R, C // G, G]), [R, C])
    return e2m1_code(x_e * inv) | (e2m1_code(x_o * inv) << 4), b


@triton.jit
def random_bits(seed, offsets):
    """Philox uint32 bits for each offset under a 64-bit key `seed`."""
    return tl.randint(seed, offsets).to(tl.uint32, bitcast=True)


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
