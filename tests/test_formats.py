"""The number formats (replaygen/formats.py) against independent references.

The device functions run inside a small test kernel (interpreter on the CPU, compiled on a
GPU) and are compared bit for bit with tests/formats_reference.py: e4m3 rounding (ties,
subnormals, saturation, zeros, negatives), e2m1 codes and values, and the quantisation
load_state performs through the generated quantize kernel (packing, scales per row /
column / tile, NVFP4 block and tile scales, padded and odd K). Stochastic rounding is
checked for what makes it worth having: it is unbiased where round-to-nearest is not.
"""
from __future__ import annotations

import math

import pytest
import torch
import triton
import triton.language as tl

import formats_reference as F
from harness import CUDA, VARIANTS
from replaygen import formats


@triton.jit
def _apply_kernel(x_ptr, out_ptr, key, N: tl.constexpr, WHAT: tl.constexpr):
    o = tl.arange(0, N)
    x = tl.load(x_ptr + o)
    if WHAT == 0:
        tl.store(out_ptr + o, formats.e4m3_round(x))
    elif WHAT == 6:   # the conversion the FP8 copies are stored through, widened back
        tl.store(out_ptr + o, formats.to_e4m3(x).to(tl.float32))
    elif WHAT == 7:
        tl.store(out_ptr + o, formats.reciprocal_rn(x))
    elif WHAT == 8:
        tl.store(out_ptr + o, formats.e4m3_value(x))
    elif WHAT == 9:
        tl.store(out_ptr + o, formats.reciprocal_rn_normal(x))
    elif WHAT == 1:
        tl.store(out_ptr + o, formats.e2m1_code(x))
    elif WHAT == 2:
        tl.store(out_ptr + o, formats.e2m1_value(x.to(tl.uint8)))
    elif WHAT == 5:   # the bits themselves, for a [4, N // 4] tile of a state with K = N // 4
        bits = formats.random_bits_tile(key, tl.arange(0, 4), 0, N // 4, N // 4)
        tl.store(out_ptr + o, tl.reshape(bits, [N]).to(tl.int64))
    else:   # the N values as one row of a state with K = N
        r = tl.reshape(formats.random_bits_tile(key, tl.arange(0, 1), 0, N, N), [N])
        if WHAT == 3:
            tl.store(out_ptr + o, formats.round_fp16_stochastic(x, r))
        else:
            tl.store(out_ptr + o, formats.round_bf16_stochastic(x, r))


def apply(what: int, x: torch.Tensor, out_dtype, key: int = 0) -> torch.Tensor:
    device = "cuda" if CUDA else "cpu"
    x = x.to(device)
    out = torch.full(x.shape, 0, dtype=out_dtype, device=device)
    if out_dtype.is_floating_point:
        out.fill_(float("nan"))
    _apply_kernel[(1,)](x, out, key, N=x.numel(), WHAT=what)
    return out.cpu()


def _pow2_pad(values: list[float]) -> torch.Tensor:
    n = 1 << (len(values) - 1).bit_length()
    return torch.tensor(values + [0.0] * (n - len(values)), dtype=torch.float32)


def _e4m3_cases() -> tuple[torch.Tensor, list[float]]:
    """e4m3's grid (+0 .. 448) and, around it, every exact midpoint between neighbouring
    values (ties to even) with both signs and random magnitudes over its whole range and
    beyond (2^-14 .. 2^11, both signs)."""
    g = torch.Generator().manual_seed(0)
    grid = torch.arange(0, 127, dtype=torch.uint8).view(torch.float8_e4m3fn).float()
    mids = ((grid[1:] + grid[:-1]) / 2).tolist()
    rand = (torch.exp2(torch.rand(600, generator=g) * 25 - 14)
            * torch.where(torch.rand(600, generator=g) < 0.5, -1.0, 1.0)).tolist()
    return grid, mids + [-m for m in mids] + rand


def test_e4m3_rounding_is_exact():
    """_e4m3_cases, zeros (their signs kept), the largest value, values past it (saturate
    to 448, inf too), a NaN (kept)."""
    _, cases = _e4m3_cases()
    x = _pow2_pad(cases + [0.0, -0.0, 448.0, 464.0, 500.0, 1e30, float("inf"), -float("inf"),
                           2.0 ** -10, float("nan")])
    got = apply(0, x, torch.float32)
    want = F.e4m3(x).float()
    assert torch.allclose(got, want, rtol=0, atol=0, equal_nan=True), \
        (x[got != want][:8], got[got != want][:8], want[got != want][:8])
    assert torch.equal(torch.signbit(got), torch.signbit(x))   # -0.0 stays -0.0, as the cast below


def test_e4m3_conversion_is_torchs():
    """formats.to_e4m3, through which every FP8 copy is stored: torch's float8_e4m3fn cast
    of the clamped value (the reference) bit for bit, zeros' signs included, and a NaN
    stays NaN. Compiled it is the GPU's cvt.rn.satfinite.e4m3x2.f32 (so on a GPU this
    checks the hardware's rounding); in the interpreter, whose fp8 casts misround near
    powers of two, e4m3_round's arithmetic and a cast of its exact value (checked here on
    a CPU machine). _e4m3_cases, every e4m3 value itself and, on a GPU only, a NaN: the
    interpreter's cast turns a NaN into 384 (e4m3_round keeps it:
    test_e4m3_rounding_is_exact)."""
    grid, cases = _e4m3_cases()
    x = _pow2_pad(cases + grid.tolist() + (-grid).tolist()
                  + [0.0, -0.0, 448.0, -464.0, 500.0, 1e30, float("inf"), -float("inf"),
                     2.0 ** -10, -(2.0 ** -12)] + ([float("nan")] if CUDA else []))
    got = apply(6, x, torch.float32)
    want = F.e4m3(x).float()
    nan = torch.isnan(want)
    assert torch.equal(torch.isnan(got), nan) and nan.any() == CUDA
    bad = (got.view(torch.int32) != want.view(torch.int32)) & ~nan
    assert not bad.any(), (x[bad][:8], got[bad][:8], want[bad][:8])


@pytest.mark.filterwarnings("ignore:divide by zero:RuntimeWarning", "ignore:overflow:RuntimeWarning")
def test_reciprocal_and_e4m3_value_are_exact():
    """formats.reciprocal_rn: 1 / x correctly rounded, as torch's fp32 division (IEEE)
    gives it, over normal and subnormal magnitudes, both signs, powers of two and values
    whose reciprocal is subnormal or overflows; formats.e4m3_value: e4m3_round's value
    (non-negative block scales are its use). Compiled (a GPU) these are PTX rcp.rn.f32 and
    the hardware's e4m3 conversion and back; in the interpreter, div_rn and e4m3_round:
    this test checks whichever runs."""
    g = torch.Generator().manual_seed(2)
    mags = torch.exp2(torch.rand(900, generator=g) * 270 - 140)   # 2^-140 .. 2^130 (inf past 2^128)
    x = _pow2_pad((mags * torch.where(torch.rand(900, generator=g) < 0.5, -1.0, 1.0)).tolist()
                  + [1.0, 2.0, 0.5, 3.0, 6.0, 448.0, 2.0 ** -126, 2.0 ** -149, 2.0 ** 127, 1e38])
    want = torch.full_like(x, 1.0) / x
    got = apply(7, x, torch.float32)
    bad = got.view(torch.int32) != want.view(torch.int32)
    assert not bad.any(), (x[bad][:8], got[bad][:8], want[bad][:8])
    s = _pow2_pad((torch.rand(500, generator=g) * 500).tolist() + [0.0, 448.0, 464.0, 1e30])
    assert torch.equal(apply(8, s, torch.float32), F.e4m3(s).float())


def test_reciprocal_in_the_normal_range_is_exact():
    """formats.reciprocal_rn_normal: 1 / x correctly rounded for 2^-126 <= |x| < 2^126, as
    torch's fp32 division gives it: random significands (all 23 bits) at every exponent of
    the range, both signs, its ends, and significands of all ones and of one (where a
    Newton step's rounding is closest to a tie). Compiled this is rcp.rn's fast path alone
    (MUFU.RCP and one correction); in the interpreter it is div_rn and the case is only a
    check of the plumbing, so the test means most on a GPU."""
    g = torch.Generator().manual_seed(3)
    exps = torch.randint(-126, 126, (1500,), generator=g)
    sig = 1.0 + torch.randint(0, 1 << 23, (1500,), generator=g).double() * 2.0 ** -23
    signs = torch.where(torch.rand(1500, generator=g) < 0.5, -1.0, 1.0).double()
    special = [m * 2.0 ** e for e in (-126, -70, -1, 0, 1, 33, 125)
               for m in (1.0, 2.0 - 2.0 ** -23, 1.5, 1.0 + 2.0 ** -23, 1.75 - 2.0 ** -23)]
    x = _pow2_pad((signs * sig * torch.exp2(exps.double())).tolist() + special
                  + [-s for s in special])
    x = torch.where(x == 0, 1.0, x)   # (the padding)
    want = torch.full_like(x, 1.0) / x
    got = apply(9, x, torch.float32)
    bad = got.view(torch.int32) != want.view(torch.int32)
    assert not bad.any(), (x[bad][:8], got[bad][:8], want[bad][:8])


@triton.jit
def _block_scales_kernel(a_ptr, t_ptr, b_ptr, inv_ptr, fast_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    t = tl.load(t_ptr + o)
    fast, y = formats.nvfp4_tile_divisors(t)   # (as the key-chunk quantiser's caller takes them)
    b, inv = formats.nvfp4_block_scales(tl.load(a_ptr + o), t, fast, y)
    tl.store(b_ptr + o, b)
    tl.store(inv_ptr + o, inv)
    tl.store(fast_ptr, fast.to(tl.int32))


@pytest.mark.parametrize("t", [2.0 ** -80, 2.0 ** 100, 3.1e-7, 0.37, 5.5e12,   # the fast path
                               2.0 ** -81, 1e-30, 2.0 ** 101, 1e35, 0.0])   # the general one
def test_nvfp4_block_scales_are_exact(t):
    """formats.nvfp4_block_scales, its fast path (tile scales in [NVFP4_FAST_T_MIN,
    NVFP4_FAST_T_MAX]: the division's reciprocal once per tile scale, Markstein's
    correction, rcp.rn's fast path) and the general one, bit for bit against the
    reference's b = e4m3(b_amax / (6 t)) and inv = 1 / (b t) in IEEE fp32, for block
    maxima placed where they are hardest to get right: the fp32 neighbours (up to 3 ulp
    away) of every e4m3 midpoint times 6 t, the bottom boundary 2^-10 (below it b is 0)
    included, so a quotient one ulp off would round to the other e4m3 value; plus random
    ones over [0, 448 * 6 t], 0, the largest, and fp32's subnormals. The interpreter's fma
    rounds once, so CI checks the division exactly; rcp.rn's fast path is checked on a GPU
    (test_reciprocal_in_the_normal_range_is_exact)."""
    tt = torch.tensor(t, dtype=torch.float32)
    d = (6.0 * tt).item()
    grid = torch.arange(0, 127, dtype=torch.uint8).view(torch.float8_e4m3fn).double()
    mids = ((grid[1:] + grid[:-1]) / 2).tolist()
    g = torch.Generator().manual_seed(4)
    a = []
    for m in mids:
        c = torch.tensor(m * d, dtype=torch.float32) if d > 0 else torch.tensor(m, dtype=torch.float32)
        bits = c.view(torch.int32).item()
        a += [torch.tensor(bits + k, dtype=torch.int32).view(torch.float32).item() for k in range(-3, 4)]
    top = 448.0 * d if d > 0 else 1.0
    a += (torch.rand(600, generator=g).double() * top).tolist() + [0.0, 2688.0 * t, 1e-45, 2.0 ** -127]
    a = _pow2_pad([min(max(v, 0.0), 3e38) for v in a])
    a = torch.where(torch.isfinite(a), a, 0.0)
    device = "cuda" if CUDA else "cpu"
    b = torch.full(a.shape, float("nan"), device=device)
    inv = torch.full(a.shape, float("nan"), device=device)
    fast = torch.full((1,), -1, dtype=torch.int32, device=device)
    _block_scales_kernel[(1,)](a.to(device), torch.full_like(a, t).to(device), b, inv, fast, N=a.numel())
    assert fast.item() == int(2.0 ** -80 <= t <= 2.0 ** 100)
    want_b, want_inv = F.nvfp4_block_scales(a, tt)
    for name, got, want in (("b", b.cpu(), want_b.float()), ("inv", inv.cpu(), want_inv)):
        bad = got.view(torch.int32) != want.view(torch.int32)
        assert not bad.any(), (name, a[bad][:6], got[bad][:6], want[bad][:6])


def test_e2m1_codes_and_values_are_exact():
    """Every tie (0.25, 0.75, ..., 5), the grid itself, saturation past 6 (up to inf),
    subnormal and tiny inputs, each binade's edges, negatives and -0, random values; and
    all 16 codes back to values."""
    g = torch.Generator().manual_seed(1)
    grid = F.E2M1_GRID.tolist()
    ties = [(a + b) / 2 for a, b in zip(grid[1:], grid[:-1])]
    base = grid + ties + [6.5, 7.0, 8.0, 100.0, 2.0 ** 25, 1e30, float("inf"), 0.1, 0.3, 1e-40,
                          2.0 ** -126, 0.999, 1.999, 3.999, 5.999]
    x = _pow2_pad(base + [-v for v in base] + [-0.0] + (torch.randn(200, generator=g) * 3).tolist())
    assert torch.equal(apply(1, x, torch.uint8), F.e2m1_codes(x))
    codes = torch.arange(16, dtype=torch.float32)
    assert torch.equal(apply(2, codes, torch.float32), F.e2m1_values(codes.to(torch.uint8)))


@triton.jit
def _pairs_kernel(x_ptr, lo_ptr, hi_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    lo, hi = formats.e2m1_pairs_scaled(tl.load(x_ptr + o))
    tl.store(lo_ptr + o, lo)
    tl.store(hi_ptr + o, hi)


def test_packed_e2m1_pairs_decode_every_byte():
    """All 256 bytes (in an order that puts every byte at every position of a 4-byte
    group) to the values of their low and high nibbles, 2^-14 times e2m1. On a GPU this
    checks the PTX that decodes four bytes at a time; the interpreter runs no inline
    assembly, so on a CPU machine it checks the per-element path that replaces it."""
    device = "cuda" if CUDA else "cpu"
    x = torch.cat([torch.roll(torch.arange(256), s) for s in range(4)]).to(torch.uint8)
    lo = torch.full(x.shape, float("nan"), device=device)
    hi = torch.full(x.shape, float("nan"), device=device)
    _pairs_kernel[(1,)](x.to(device), lo, hi, N=x.numel())
    want_lo = F.e2m1_values(x & 15).float() * 2.0 ** -14
    want_hi = F.e2m1_values(x >> 4).float() * 2.0 ** -14
    assert torch.equal(lo.cpu(), want_lo) and torch.equal(hi.cpu(), want_hi)


@triton.jit
def _word_dot_kernel(w_ptr, p_ptr, q_ptr, one_ptr, two_p_ptr, two_q_ptr, at_ptr, R: tl.constexpr,
                     NW: tl.constexpr, KW: tl.constexpr, NVFP4: tl.constexpr):
    o_r = tl.arange(0, R)
    o_w = tl.arange(0, NW)
    o_p = tl.arange(0, NW * KW)
    o = o_r[:, None] * NW + o_w[None, :]
    words = tl.load(w_ptr.to(tl.pointer_type(tl.uint64)) + o)   # as the decode loads them
    p = tl.load(p_ptr + o_p)
    q = tl.load(q_ptr + o_p)
    one = formats.read_words_dot(words, p, NW, NVFP4)
    two_p, two_q = formats.read_words_dot2(words, p, q, NW, NVFP4)
    # at a scale taken from a larger max (as a decode streaming the probe in key chunks
    # takes it from the whole probe): 8 times p's own
    up, down = formats.word_probe_scale(8.0 * tl.max(tl.abs(p), axis=0), NVFP4)
    at_p, _ = formats.read_words_dot2_at(words, p, q, up, up, NW, NVFP4)
    tl.store(one_ptr + o, one)
    tl.store(two_p_ptr + o, two_p)
    tl.store(two_q_ptr + o, two_q)
    tl.store(at_ptr + o, at_p * down)


@pytest.mark.parametrize("fmt", ["nvfp4", "fp8"])
@pytest.mark.parametrize("NW", [1, 2])
@pytest.mark.parametrize("magnitude", [1.0, 1e-3, 1e4, 1e-36, 0.0])
def test_read_word_products(fmt, NW, magnitude):
    """The products of 8-byte read-copy words with probes (the key-chunk decode's
    non-flush step) against float64: random bytes (every code; e4m3's NaN codes left out),
    probes of every sign at magnitudes from 1e-36 (below fp16's range before scaling) to
    1e4, and all-zero probes. Bounds (a mispaired key or a lost scale is off by about
    sum |value * probe| itself):
    - FP8, fp16x2: the probe's rounding to fp16 and at most 9 fp16 roundings of the
      half-word sums, 10 * 2^-11 of sum |value * probe|;
    - NVFP4, int8 (formats' comment): the probe's rounding to int8 at its scale, half of
      amax / 127 per key (amax: the max the scale was taken from), times sum |value|, with
      an fp32 rounding or two of slack; the int32 sums are exact.
    With the scale given from a max 8 times the probe's (read_words_dot2_at) the same
    bounds, at that max. On a GPU this checks the PTX (decode, pairing or byte lookup,
    fp16x2 FMAs or dp4a); the interpreter runs no inline assembly and checks the
    per-element path that replaces it."""
    device = "cuda" if CUDA else "cpu"
    KW = {"nvfp4": 16, "fp8": 8}[fmt]
    R = 64
    g = torch.Generator().manual_seed(NW * 7 + KW)
    raw = torch.randint(0, 256, (R, NW * 8), generator=g, dtype=torch.uint8)
    if fmt == "fp8":
        raw[(raw & 0x7F) == 0x7F] = 0x7E   # e4m3fn's NaN codes are not values
        vals = raw.view(torch.float8_e4m3fn).double().reshape(R, NW, KW)
    else:   # key 2j: byte j's low nibble; 2^-14 * e2m1
        codes = torch.stack([raw & 15, raw >> 4], dim=-1).reshape(R, NW, KW)
        vals = F.e2m1_values(codes).double() * 2.0 ** -14
    p, q = (torch.randn(NW * KW, generator=g) * magnitude for _ in range(2))
    out = [torch.full((R, NW), float("nan"), device=device) for _ in range(4)]
    _word_dot_kernel[(1,)](raw.to(device), p.to(device), q.to(device), *out, R=R, NW=NW, KW=KW,
                           NVFP4=fmt == "nvfp4")
    for got, probe, widen in zip(out, (p, p, q, p), (1, 1, 1, 8)):
        probe = probe.double().reshape(NW, KW)
        want = (vals * probe).sum(-1)
        if fmt == "nvfp4":
            amax = max(widen * probe.abs().max().item(), 2.0 ** -120)   # (word_probe_scale's floor)
            bound = ((0.5 + 2.0 ** -16) * amax / 127 * vals.abs().sum(-1) * (1 + 2.0 ** -20)
                     + 2.0 ** -20 * (vals.abs() * probe.abs()).sum(-1) + 1e-300)
        else:
            bound = 10 * 2.0 ** -11 * (vals.abs() * probe.abs()).sum(-1) + 1e-300
        err = (got.cpu().double() - want).abs()
        assert bool((err <= bound).all()), (err / bound).max()
    if magnitude == 0.0:
        assert all(bool((o == 0).all()) for o in out)


SR_CASES = {   # (kernel selector, target dtype, unit in the last place at 1)
    "fp16": (3, torch.float16), "bf16": (4, torch.bfloat16)}


@pytest.mark.parametrize("target", sorted(SR_CASES))
@pytest.mark.parametrize("where", ["normal", "negative", "subnormal", "tiny"])
def test_stochastic_rounding_is_unbiased(target, where):
    """4096 stochastic roundings of one value, 0.3 ulp above a representable one: their
    mean is within 0.05 ulp of the value (its standard error is 0.007 ulp), while round
    to nearest is off by 0.3 ulp every time, so the test fails without SR. Each rounding
    lands on one of the two neighbours. 'subnormal': inside fp16's subnormal range
    (2^-20; bf16 has fp32's range there); 'tiny': below fp16's smallest subnormal."""
    what, dtype = SR_CASES[target]
    if where == "tiny" and target == "bf16":
        pytest.skip("bf16 has fp32's exponent range: nothing is below its smallest value")
    base = {"normal": 1.0, "negative": -3.0, "subnormal": 2.0 ** -20, "tiny": 0.0}[where]
    if base and not (where == "subnormal" and target == "fp16"):
        ulp = torch.finfo(dtype).eps * 2.0 ** math.floor(math.log2(abs(base)))
    else:   # fp16's subnormal step
        ulp = 2.0 ** -24
    x = torch.full((4096,), base + 0.3 * ulp, dtype=torch.float32)
    got = apply(what, x, dtype, key=12345).double()
    lo, hi = base, base + ulp
    assert bool(((got == lo) | (got == hi)).all()), got.unique()
    mean = got.mean().item()
    assert abs(mean - x[0].item()) < 0.05 * ulp, (mean, x[0].item(), ulp)
    nearest = x.to(dtype).double()[0].item()
    assert abs(nearest - x[0].item()) > 0.2 * ulp   # what SR is for


def test_random_bits_of_a_tile_are_all_distinct():
    """random_bits_tile draws four keys' bits per Philox call: every element of a [4, 64]
    tile gets its own 32 bits (a repeated counter or output would repeat values; 256
    distinct draws collide by chance with probability ~1e-5)."""
    bits = apply(5, torch.zeros(256), torch.int64, key=777)
    assert bits.unique().numel() == 256 and bool((bits >= 0).all() & (bits < 2 ** 32).all())


def test_stochastic_rounding_depends_on_the_key():
    """Different Philox keys (flushes, slots) give different draws; the same key repeats."""
    x = torch.full((256,), 1.0 + 0.5 * 2.0 ** -10, dtype=torch.float32)
    a, b, c = (apply(3, x, torch.float16, key=k) for k in (1, 2, 1))
    assert torch.equal(a, c) and not torch.equal(a, b)


# -- quantisation through the generated quantize kernel (load_state) ---------------------
READ_CASES = [("fp8", "row"), ("fp8", "col"), ("fp8", "tile"), ("nvfp4", None)]


@pytest.mark.parametrize("fmt,scale", READ_CASES)
@pytest.mark.parametrize("variant,K,V", [("gla", 20, 18), ("gla", 7, 3), ("gla", 33, 16),
                                         ("gla", 64, 18), ("gdn", 64, 18)])
def test_load_state_quantises_exactly(fmt, scale, variant, K, V):
    """load_state fills the read copy with exactly the reference quantisation of S: values
    spanning 2^-12 .. 2^6 in magnitude with both signs, an all-zero row and an all-zero
    slot (zero scales, zero values), odd K (a padding nibble), K < 16 (one NVFP4 block
    per row) and K > 32 (a partial block), V not a multiple of the tile. GDN at K = 64
    with FP8 row or tile scales: the key-chunk decode's copy, stored in 32-key blocks
    (StateFormat.key_block: [K / 32, V, 32] per value head), its storage checked element
    by element against the reference's rows, and read back through read_copy; GLA's
    value-tile decode and NVFP4 copies keep rows at K = 64."""
    import replaygen
    device = "cuda" if CUDA else "cpu"
    kern = replaygen.load(variant, H=1, HV=2, K=K, V=V, L=2, state_dtype="fp32",
                          read_dtype=fmt, fp8_scale=scale)
    g = torch.Generator().manual_seed(K * V)
    S = torch.randn(3, 2, V, K, generator=g) * torch.exp2(torch.randint(-12, 6, (3, 2, V, K), generator=g).float())
    S[0, 1, 1] = 0.0
    S[2] = 0.0
    params = VARIANTS[variant].params(g, 1, 2, K, V)
    state = kern.new_state(3, device, **{n: t.to(device) for n, t in params.items()})
    kern.load_state(state, torch.tensor([2, 0, 1], device=device), S.to(device))
    order = torch.tensor([1, 2, 0])   # slot s holds S[order[s]]
    want = F.quantize(S[order], fmt, scale, kern.plan.BV, kern.plan.BK)
    f = kern.plan.read
    blocked = variant == "gdn" and fmt == "fp8" and scale != "col"
    assert f.key_block == (32 if blocked else 0)
    # (units per block: an NVFP4 copy's 32-key blocks would hold 16 packed bytes and 2
    # block scales, bench/proto/s41_nvfp4_key_blocks.diff)
    block_units = {"": 32} if fmt == "fp8" else {"": 16, "_bscale": 2}
    for suffix, B in block_units.items() if blocked else ():
        # [slot, HV, n / B, V, B]: unit u of row v at block u // B, column u % B
        stored, rows = state.aux["read" + suffix].cpu().float(), want[suffix].float()
        n = rows.shape[-1]
        assert stored.shape == (3, 2, n // B, V, B), suffix
        for u in (0, B - 1, B, n - 1):
            assert torch.equal(stored[:, :, u // B, :, u % B], rows[:, :, :, u]), (suffix, u)
    copy = kern.read_copy(state)
    for suffix, ref in want.items():
        got = copy[suffix].cpu()
        assert got.dtype == ref.dtype and got.shape == ref.shape, suffix
        if got.dtype == torch.float8_e4m3fn:   # as bytes: zeros keep their sign (to_e4m3)
            got, ref = got.view(torch.uint8), ref.view(torch.uint8)
        assert torch.equal(got, ref), suffix
    back = F.dequantize(want, fmt, scale, K, kern.plan.BV)
    rel = ((back - S[order]).norm() / S.norm()).item()
    assert rel < {"fp8": 2.0 ** -4, "nvfp4": 0.25}[fmt]


@pytest.mark.parametrize("fmt", ["fp8", "nvfp4"])
def test_shared_checkpoint_dequantises_exactly(fmt):
    """A quantised checkpoint read back (materialize with an empty ring multiplies by
    exp(0) = 1 and adds nothing) equals the reference dequantisation bit for bit."""
    import replaygen
    device = "cuda" if CUDA else "cpu"
    kern = replaygen.load("gla", H=1, HV=2, K=20, V=18, L=2, state_dtype=fmt,
                          fp8_scale="row" if fmt == "fp8" else None)
    S = torch.randn(2, 2, 18, 20, generator=torch.Generator().manual_seed(4))
    state = kern.new_state(2, device)
    slots = torch.arange(2, device=device)
    kern.load_state(state, slots, S.to(device))
    parts = F.quantize(S, fmt, "row", kern.plan.BV, kern.plan.BK)
    M = kern.materialize(state, slots).cpu()
    assert torch.equal(M, F.dequantize(parts, fmt, "row", 20, kern.plan.BV))
