"""Elementary functions the printed formulas call, as Triton device functions.

Input: fp32 tensors. Output: fp32 tensors of the same shape. The printer
(`printer.TritonPrinter`) writes `devmath.exp(...)` and `devmath.log(...)` for every exp
and log of a spec's formulas and of the replay weights; the templates call them for the
decays they write out.
Invariants: compiled, each function is the GPU's approximate instruction through
libdevice (an LLVM intrinsic, not inline assembly, so the compiler still schedules and
folds it), its error measured against float64 on the GPU (tests/test_devmath.py); in the
Triton interpreter, which runs no libdevice, it is Triton's own tl.exp / tl.log, so the
interpreter tests check the formulas and the GPU tests check the approximation.
One memory hint lives here too, `prefetch_l2`: compiled, inline PTX (there is no
intrinsic for it in Triton); in the interpreter, which has no cache, nothing.
"""
import os

import triton
import triton.language as tl
from triton.language.extra import libdevice

_NATIVE = tl.constexpr(os.environ.get("TRITON_INTERPRET", "0") != "1")


@triton.jit
def exp(x):
    """e^x of fp32 x. Compiled: libdevice's fast_expf, x log2(e) and ex2.approx.ftz.f32 (one
    MUFU.EX2), two instructions per element where `tl.exp` takes five: its non-ftz ex2 is
    wrapped in a compare and two predicated multiplies that keep results below 2^-126 as
    denormals; here they are 0, an absolute change below 1.2e-38. Otherwise bit for bit
    tl.exp. (KDA's T = 8 verify computes 64 replay weights exp(G_t - G_j) per thread for
    its records alone, at one warp.)"""
    if _NATIVE:
        return libdevice.fast_expf(x)
    else:
        return tl.exp(x)


@triton.jit
def log(x):
    """Natural log of fp32 x. Compiled: libdevice's fast_logf, lg2.approx.ftz.f32 (one
    MUFU.LG2) times ln 2, two instructions per element where `tl.log` lowers to libdevice's
    logf, ~28 (sm_90): the softplus of KDA's per-channel gate, log(1 + exp(x)), was 1207 of
    the 7050 SASS instructions a T = 8 verify program ran before its first checkpoint
    tile. Error (tests/test_devmath.py): absolute below 2^-21 on [0.5, 2], where a
    softplus of a weak gate (1 + e^z, z << 0) evaluates, relative below 2^-21 beyond."""
    if _NATIVE:
        return libdevice.fast_logf(x)
    else:
        return tl.log(x)


@triton.jit
def prefetch_l2(ptrs):
    """Ask L2 for the 128-byte lines holding `ptrs` (any pointer tensor, every address
    valid): `prefetch.global.L2`, a hint with no result, so nothing waits for it and
    ptxas has no register to save by sinking it (it sank a hand prefetch into registers
    behind the work it was meant to overlap: session 13). The later loads of those lines
    hit L2 instead of DRAM. Interpreter: nothing."""
    if _NATIVE:
        tl.inline_asm_elementwise("prefetch.global.L2 [$1];\n\tmov.u32 $0, 0;", "=r,l", [ptrs],
                                  dtype=tl.int32, is_pure=False, pack=1)
