"""The approximate elementary functions the generated kernels call (replaygen/devmath.py).

Compiled, devmath.exp and devmath.log are the GPU's ex2.approx.ftz / lg2.approx.ftz
instructions (libdevice's fast_expf / fast_logf); their errors are measured here against
float64 over fp32's range and held to bounds far below what a kernel's results are
stored at (bf16 records: 2^-9 relative; fp32 records: the tests' fp32 tolerances, ~1e-5). GPU only: the Triton interpreter runs
no libdevice, so there devmath is tl.exp / tl.log (numpy) and there is no
approximation to measure; the interpreter's kernel tests check the formulas instead.
"""
from __future__ import annotations

import pytest
import torch
import triton
import triton.language as tl

from harness import CUDA
from replaygen import devmath

pytestmark = pytest.mark.skipif(not CUDA, reason="GPU only: the interpreter runs no libdevice "
                                "(devmath is tl.exp / tl.log there)")


@triton.jit
def _apply_kernel(x_ptr, out_ptr, n, WHAT: tl.constexpr, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + o, mask=o < n, other=1.0)
    if WHAT == 0:
        y = devmath.exp(x)
    elif WHAT == 1:
        y = devmath.log(x)
    else:
        y = tl.exp(x)   # Triton's own, compiled: the same multiply and MUFU.EX2, non-ftz
    tl.store(out_ptr + o, y, mask=o < n)


def _apply(what: int, x: torch.Tensor) -> torch.Tensor:
    x = x.to("cuda", torch.float32).contiguous()
    out = torch.full_like(x, float("nan"))
    _apply_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), WHAT=what, BLOCK=1024)
    return out.double().cpu()


def test_exp_error():
    """Bit for bit Triton's tl.exp wherever e^x is a normal fp32 number (the same x log2(e)
    and MUFU.EX2, without tl.exp's denormal wrapper), so within 2^-21 + |x| 2^-23 of e^x
    (the product x log2(e) is rounded to fp32: at x = -80 its error alone moves e^x by
    ~5e-6 relative, for tl.exp just the same); where e^x is below 2^-126 the result is 0
    (an absolute change below 1.2e-38); e^0 = 1 exactly, so a zero log decay keeps a
    weight of exactly 1."""
    x = torch.cat([torch.linspace(-87.0, 88.0, 1 << 20), torch.randn(1 << 16) * 4,
                   torch.tensor([0.0, -0.0])])
    got, triton_exp, ref = _apply(0, x), _apply(2, x), x.double().exp()
    normal = triton_exp >= 2.0 ** -126
    assert torch.equal(got[normal], triton_exp[normal])
    rel = ((got - ref).abs() / ref)[normal]
    bound = 2.0 ** -21 + x.double().abs()[normal] * 2.0 ** -23
    assert (rel <= bound).all(), f"exp: relative error {rel.max().item():.3g}"
    assert got[-2:].eq(1.0).all()
    tiny = torch.linspace(-120.0, -87.5, 4096)
    assert _apply(0, tiny).eq(0.0).all()


def test_log_error():
    """Absolute error below 2^-21 on [0.5, 2] (where log is near 0: what a softplus
    log(1 + e^z) of a strong decay z << 0 evaluates), relative error below 2^-21 beyond;
    log(1) = 0 exactly (a softplus of -inf is no decay)."""
    near_one = torch.cat([torch.linspace(0.5, 2.0, 1 << 20), torch.tensor([1.0])])
    got, ref = _apply(1, near_one), near_one.double().log()
    err = (got - ref).abs().max().item()
    assert err < 2.0 ** -21, f"log on [0.5, 2]: absolute error {err:.3g}"
    assert got[-1].item() == 0.0
    wide = torch.cat([2.0 ** torch.linspace(-126.0, -1.0, 1 << 18), 2.0 ** torch.linspace(1.0, 126.0, 1 << 18)])
    got, ref = _apply(1, wide), wide.double().log()
    rel = ((got - ref).abs() / ref.abs()).max().item()
    assert rel < 2.0 ** -21, f"log beyond [0.5, 2]: relative error {rel:.3g}"
