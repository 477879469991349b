"""Shared pieces of the GPU scripts: the geometries, random inputs, graph timing."""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for p in (str(ROOT), str(ROOT / "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)

import torch  # noqa: E402
import triton  # noqa: E402

def use_templates(folder) -> None:
    """Render kernels from the templates in `folder` from now on (replaygen.render's
    template directory re-pointed and its Jinja environment rebuilt): the A/B versions of
    bench/template_ab.py. The modules' names carry their text's hash, so versions load
    side by side."""
    from replaygen import render
    render.TEMPLATE_DIR = Path(folder).resolve()
    render._environment.cache_clear()


def launch_fields(pairs, where: str) -> dict:
    """Launch fields from (name, text) pairs, as the scripts' launch overrides give them
    (bench/template_ab.py's `folder@k=v+...`, bench/flush_tail.py's `tab+k=v,...`): ints;
    booleans as 1 / 0 or True / False; None. A name that is not a Launch field fails
    with the fields there are, before any GPU time is spent."""
    import dataclasses
    from replaygen.tuning import Launch
    types = {f.name: f.type for f in dataclasses.fields(Launch)}
    out = {}
    for key, text in pairs:
        if key not in types:
            raise SystemExit(f"{where}: {key!r} is not a Launch field ({', '.join(types)})")
        out[key] = (None if text == "None" else text in ("1", "True") if types[key] in (bool, "bool")
                    else int(text))
    return out


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


def new_pool(kern, batch, device, gen):
    """A pool of `batch` slots with random parameters and N(0, 0.25) states, bf16 inputs
    for every row and an output buffer: (params, slots, state, inputs, out)."""
    params = random_params(kern, device, gen)
    slots = torch.arange(batch, device=device, dtype=torch.int32)
    state = kern.new_state(batch, device, **params)
    kern.load_state(state, slots, torch.randn((batch,) + kern.state_shape, device=device,
                                              generator=gen) * 0.5)
    inputs = random_inputs(kern, batch, device, torch.bfloat16, gen)
    out = torch.empty((batch, kern.plan.HV, kern.plan.V), device=device, dtype=torch.bfloat16)
    return params, slots, state, inputs, out


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


def launch_override(table_path, config: str, kernel: str, gpu: str, batch: int) -> str:
    """Every field of a tuning table's launch for (config, kernel, gpu, batch) as a
    template_ab.py override (`k=v+k=v...`, None fields included), so that one A/B folder
    runs a launch tuned elsewhere, e.g. before a layout change retuned the table."""
    import dataclasses
    from replaygen.tuning import TuningTable
    table = TuningTable.from_json(json.loads(Path(table_path).read_text()), str(table_path))
    launch = table.lookup(config, kernel, gpu, batch)
    if launch is None:
        raise SystemExit(f"{table_path}: no {kernel} launch of {config} at batch {batch} on {gpu}")
    def text(v) -> str:   # (as launch_fields reads them back)
        return "None" if v is None else str(int(v)) if isinstance(v, bool) else str(v)
    return "+".join(f"{f.name}={text(getattr(launch, f.name))}" for f in dataclasses.fields(launch))
