"""Shared pieces of the GPU scripts: the geometries, random inputs, graph timing."""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (str(ROOT), str(ROOT / "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)

import torch  # noqa: E402
import triton  # noqa: E402

# One real geometry per variant (the spec's named configurations).
GEOMS = {"mamba2": "nemotron3-nano-4b", "gdn": "qwen3.5-4b", "kda": "kimi-linear-48b",
         "gla": "gla-1.3b"}


def random_inputs(kern, rows, device, dtype, gen):
    """Fresh N(0, 1) draws for every per-token input, in model-native shapes."""
    return {q.name: torch.randn((rows,) + kern.shape_of(q), device=device, generator=gen).to(dtype)
            for q in kern.spec.inputs()}


def random_params(kern, device, gen):
    return {q.name: torch.randn(kern.shape_of(q), device=device, generator=gen) * 0.5
            for q in kern.spec.params()}


def bench(fn, steps=1, graph=True):
    """Median ms per step of fn (which runs `steps` steps); with graph=True fn is captured
    in a CUDA graph, as a serving engine runs decode, so host launch overhead is out."""
    if not graph:
        return triton.testing.do_bench(fn, warmup=30, rep=200, return_mode="median") / steps
    fn()   # compile and warm up outside the capture
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        with torch.cuda.graph(g, stream=stream):
            fn()
    torch.cuda.synchronize()
    return triton.testing.do_bench(g.replay, warmup=30, rep=200, return_mode="median") / steps
