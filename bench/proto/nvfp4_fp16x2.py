"""The NVFP4 read copy's word products in fp16x2, as replaygen/formats.py took them until
session 56 (it now takes them in int8, dp4a): the baseline the prototypes of sessions 55
and 56 time against (`words`). Compiled only (inline PTX).

Per 8-byte word (16 keys), the nibbles decode to eight fp16x2 registers holding 2^-14
times the e2m1 values of key pairs _PAIR_KEYS (formats._e2m1_word_to_f16x2), and each
probe, scaled by a power of two that puts its largest element in [2^13, 2^14) and rounded
to fp16, takes one fp16x2 FMA per pair (formats.fp16x2_products_ptx).
"""
import triton
import triton.language as tl

from replaygen import formats

# the keys of the fp16x2 pairs each word decodes to, in register order
_PAIR_KEYS = ((0, 2), (4, 6), (1, 3), (5, 7), (8, 10), (12, 14), (9, 11), (13, 15))
_HEAD = (".reg .b32 t0, t1, lo, hi, z;\nmov.b32 z, 0;\n"
         + formats._e2m1_word_to_f16x2("wa", tuple(f"p{i}" for i in range(4)))
         + formats._e2m1_word_to_f16x2("wb", tuple(f"p{i}" for i in range(4, 8))))
DOT2_PTX = tl.constexpr(formats.fp16x2_products_ptx(_HEAD, len(_PAIR_KEYS), 2))
DOT2_C = tl.constexpr(formats.fp16x2_constraints(len(_PAIR_KEYS), 2))


@triton.jit
def probe_scale(amax):
    """(2^s, 2^-s) putting amax in [2^13, 2^14) (formats.probe_scale with P = 14)."""
    return formats.probe_scale(amax, 14)


@triton.jit
def _pairs(h, NW: tl.constexpr):
    """fp16 bits h [16 NW] (uint32) as the fp16x2 pairs _PAIR_KEYS of each word: eight
    [NW] uint32 tensors. Keys 4x + 2b + c pair over b."""
    lo, hi = tl.split(tl.permute(tl.reshape(h, [NW, 4, 2, 2]), (0, 1, 3, 2)))
    pr = tl.reshape(lo | (hi << 16), [NW, 2, 4])     # [NW, half-word, (x mod 2, c)]
    a, b = tl.split(tl.permute(pr, (0, 2, 1)))       # the low and the high 32 bits
    a0, a2, a1, a3 = formats._split4(a)               # (x, c) = (0,0) (0,1) (1,0) (1,1)
    b0, b2, b1, b3 = formats._split4(b)
    return a0, a1, a2, a3, b0, b1, b2, b3


@triton.jit
def words_dot2_at(words, p, q, up_p, up_q, NW: tl.constexpr):
    """Two probes against NVFP4 words [R, NW] (uint64): [R, NW] fp32 sums of 2^-14 e2m1
    times the probe times its up (probe_scale)."""
    x0, x1, x2, x3, x4, x5, x6, x7 = _pairs(formats._fp16_bits(p, up_p), NW)
    y0, y1, y2, y3, y4, y5, y6, y7 = _pairs(formats._fp16_bits(q, up_q), NW)
    return tl.inline_asm_elementwise(
        DOT2_PTX, DOT2_C, [words, x0, x1, x2, x3, x4, x5, x6, x7, y0, y1, y2, y3, y4, y5, y6, y7],
        dtype=(tl.float32, tl.float32), is_pure=True, pack=1)
