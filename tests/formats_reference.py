"""Independent references for the number formats of replaygen/formats.py (test oracle).

Written from the format definitions, in torch on the CPU, importing nothing from
replaygen: e4m3 rounding is torch's own float8_e4m3fn cast (round to nearest even, on
values clamped to ±448, i.e. saturating); e2m1 rounding is a nearest-neighbour search over
the eight magnitudes (ties to the even code); packing, scales and tiles follow the
layouts documented in replaygen/runtime.py (ReplayState) and replaygen/formats.py. Every
fp32 operation that decides a rounding is done in the order the format defines it (amax,
then the scale by a correctly rounded division, then the product), so results are
bit-exact.
"""
from __future__ import annotations

import torch

E2M1_GRID = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0])


def e4m3(x: torch.Tensor) -> torch.Tensor:
    """fp32 -> e4m3 (float8_e4m3fn), nearest even, saturating."""
    return x.float().clamp(-448.0, 448.0).to(torch.float8_e4m3fn)


def e2m1_codes(x: torch.Tensor) -> torch.Tensor:
    """fp32 -> 4-bit codes (uint8; bit 3 the sign, set for x < 0), nearest, ties to even."""
    a = x.float().abs().clamp(max=6.0)
    dist = (a[..., None] - E2M1_GRID).abs()
    best = dist.min(dim=-1, keepdim=True).values
    ties = dist == best
    # of the nearest codes, take the even one when two tie (codes are 0..7 in grid order)
    even = ties & (torch.arange(8) % 2 == 0)
    code = torch.where(even.any(-1), even.float().argmax(-1), ties.float().argmax(-1))
    return (code + 8 * (x < 0).long()).to(torch.uint8)


def e2m1_values(codes: torch.Tensor) -> torch.Tensor:
    mag = E2M1_GRID[(codes & 7).long()]
    return torch.where((codes & 8) > 0, -mag, mag)


def _tiles(S: torch.Tensor, BV: int):
    """[..., V, K] -> list of (row slice) value tiles of BV rows."""
    V = S.shape[-2]
    return [slice(i, min(i + BV, V)) for i in range(0, V, BV)]


def quantize_fp8(S: torch.Tensor, scale: str, BV: int):
    """S [..., V, K] fp32 -> (e4m3 values [..., V, K], fp32 scales): per row [..., V],
    per column of each BV-row tile [..., NV, K], or per tile [..., NV]."""
    S = S.float()
    vals = torch.empty(S.shape, dtype=torch.float8_e4m3fn)
    tiles = _tiles(S, BV)
    if scale == "row":
        scales = torch.empty(S.shape[:-1])
    elif scale == "col":
        scales = torch.empty(S.shape[:-2] + (len(tiles), S.shape[-1]))
    else:
        scales = torch.empty(S.shape[:-2] + (len(tiles),))
    for i, rows in enumerate(tiles):
        x = S[..., rows, :]
        if scale == "row":
            amax = x.abs().amax(-1, keepdim=True)
        elif scale == "col":
            amax = x.abs().amax(-2, keepdim=True)
        else:
            amax = x.abs().amax((-2, -1), keepdim=True)
        inv = torch.where(amax > 0, 448.0 / amax, torch.zeros_like(amax))
        vals[..., rows, :] = e4m3(x * inv)
        sc = amax / 448.0
        if scale == "row":
            scales[..., rows] = sc[..., 0]
        elif scale == "col":
            scales[..., i, :] = sc[..., 0, :]
        else:
            scales[..., i] = sc[..., 0, 0]
    return vals, scales


def dequantize_fp8(vals, scales, scale: str, BV: int) -> torch.Tensor:
    out = vals.float()
    for i, rows in enumerate(_tiles(out, BV)):
        if scale == "row":
            out[..., rows, :] *= scales[..., rows, None]
        elif scale == "col":
            out[..., rows, :] *= scales[..., i, None, :]
        else:
            out[..., rows, :] *= scales[..., i, None, None]
    return out


def nvfp4_block_scales(b_amax: torch.Tensor, t: torch.Tensor):
    """The block scales b (e4m3) of blocks whose largest magnitudes are b_amax under the
    tile scale t (broadcast), b_amax / (6 t) in fp32 then rounded to e4m3 (0 where t is
    0), and inv = 1 / (b t) in fp32 (0 where b t is 0): torch's IEEE fp32 division."""
    b = e4m3(torch.where(t > 0, b_amax / (6.0 * t), torch.zeros_like(b_amax)))
    bt = b.float() * t
    return b, torch.where(bt > 0, 1.0 / bt, torch.zeros_like(bt))


def quantize_nvfp4(S: torch.Tensor, BV: int, BK: int):
    """S [..., V, K] fp32 -> (packed uint8 [..., V, ceil(K/2)], e4m3 block scales
    [..., V, ceil(K/16)], fp32 tile scales [..., NV]). Blocks are 16 consecutive K
    elements (the whole padded row when BK < 16); the tile scale is amax / (6 * 448)."""
    S = S.float()
    V, K = S.shape[-2:]
    QB = min(16, BK)
    padded = torch.zeros(S.shape[:-1] + (BK,))
    padded[..., :K] = S
    tiles = _tiles(S, BV)
    codes = torch.empty(padded.shape, dtype=torch.uint8)
    bscale = torch.empty(S.shape[:-1] + (BK // QB,), dtype=torch.float8_e4m3fn)
    tscale = torch.empty(S.shape[:-2] + (len(tiles),))
    for i, rows in enumerate(tiles):
        x = padded[..., rows, :]
        t = x.abs().amax((-2, -1)) / 2688.0
        blocks = x.reshape(x.shape[:-1] + (BK // QB, QB))
        b_amax = blocks.abs().amax(-1)
        b, inv = nvfp4_block_scales(b_amax, t[..., None, None])
        codes[..., rows, :] = e2m1_codes(blocks * inv[..., None]).reshape(x.shape)
        bscale[..., rows, :] = b
        tscale[..., i] = t
    packed = codes[..., 0::2] | (codes[..., 1::2] << 4)
    KH, KS = -(-K // 2), -(-K // 16)
    return packed[..., :KH].contiguous(), bscale[..., :KS].contiguous(), tscale


def dequantize_nvfp4(packed, bscale, tscale, K: int, BV: int) -> torch.Tensor:
    codes = torch.stack([packed & 15, packed >> 4], dim=-1).flatten(-2)[..., :K]
    vals = e2m1_values(codes)
    scale = bscale.float().repeat_interleave(16, dim=-1)[..., :K]
    for i, rows in enumerate(_tiles(scale, BV)):   # x = value * (block scale * tile scale)
        scale[..., rows, :] *= tscale[..., i, None, None]
    return vals * scale


def quantize(S, fmt: str, scale: str | None, BV: int, BK: int) -> dict[str, torch.Tensor]:
    """The tensors of one quantised copy, named as in ReplayState.aux without the prefix:
    "" (values), "_scale", "_bscale"."""
    if fmt == "fp8":
        v, s = quantize_fp8(S, scale, BV)
        return {"": v, "_scale": s}
    p, b, t = quantize_nvfp4(S, BV, BK)
    return {"": p, "_bscale": b, "_scale": t}


def dequantize(parts: dict, fmt: str, scale: str | None, K: int, BV: int) -> torch.Tensor:
    if fmt == "fp8":
        return dequantize_fp8(parts[""], parts["_scale"], scale, BV)
    return dequantize_nvfp4(parts[""], parts["_bscale"], parts["_scale"], K, BV)
