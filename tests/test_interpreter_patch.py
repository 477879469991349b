"""conftest.py's speed-up of Triton's interpreter (`_skip_repatching_inside_launches`):
it must apply wherever the suite runs interpreted, or CI silently loses a third of its
interpreter time (session 35: 1089 -> 889 s of pytest on two cores)."""
from __future__ import annotations

import pytest
import torch

import conftest

triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402


@triton.jit
def _scaled_zeros(n: tl.constexpr):   # a helper calling triton.language.standard (tl.core alone)
    return tl.zeros([n], tl.float32) + 2.0


@triton.jit
def _helper_kernel(out_ptr, N: tl.constexpr):
    o = tl.arange(0, N)
    tl.store(out_ptr + o, _scaled_zeros(N) * o.to(tl.float32))


@pytest.mark.skipif(conftest.CUDA, reason="the patch is for the interpreter (no GPU)")
def test_interpreter_patches_once_per_launch():
    """Applied here (a Triton 3.6-3.9 interpreter), and a launch whose helper calls a
    standard-library function (which sees only `tl.core`, so it is patched once in the
    launch) computes the right thing; a second launch as well (the launch's patches were
    undone and are made again)."""
    from triton.runtime import interpreter
    assert conftest.INTERPRETER_PATCHED_ONCE and getattr(interpreter._patch_lang, "replaygen", False)
    for _ in range(2):
        out = torch.full((8,), float("nan"))
        _helper_kernel[(1,)](out, 8)
        assert out.tolist() == [2.0 * i for i in range(8)]
