"""Every kernel launch pins tuning.PINNED_OPTIONS (FMA contraction on).

Triton 3.9 warns that 3.10 turns FMA contraction off by default; the kernels' tolerances
and tuned times were measured with it on, so each launch passes it explicitly. The
interpreter drops compile options, so no output here can show a launch that forgot
them: the test records each launch's keyword arguments instead. A launch site that
built its options by hand (`num_warps=...` alone) would fail it.
"""
from __future__ import annotations

import torch

from harness import ALL_CASES, Config, load_case
from test_speculative import SpecDriver, run_schedule

from replaygen.tuning import PINNED_OPTIONS


class _Recorder:
    """Stands in for a module's @triton.jit kernel: records the keyword arguments of each
    launch, then launches the kernel."""

    def __init__(self, name, kernel, calls):
        self.name, self.kernel, self.calls = name, kernel, calls

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.calls.append((self.name, kwargs))
            return self.kernel[grid](*args, **kwargs)
        return launch


def _record_launches(monkeypatch, module, calls) -> set[str]:
    names = {n for n in vars(module) if n.endswith("_kernel")}
    for n in names:
        monkeypatch.setattr(module, n, _Recorder(n, getattr(module, n), calls))
    return names


def _unpinned(calls) -> list[str]:
    return [name for name, kwargs in calls
            if any(kwargs.get(k) != v for k, v in PINNED_OPTIONS.items())]


def test_every_launch_pins_the_compile_options(monkeypatch, device):
    # decode, flush, materialize, verify, commit and the conventional paths: the
    # speculative schedule reaches every kernel of a plain checkpoint's module
    cfg = Config("gdn", H=1, ratio=2, K=8, V=8, L=4, state_dtype="fp32", record_dtype="fp32",
                 input_dtype="fp32", max_drafts=3)
    d = SpecDriver(cfg, device, seed=11)
    calls = []
    kernels = _record_launches(monkeypatch, d.kern.module, calls)
    run_schedule(d)
    assert {name for name, _ in calls} == kernels, "the schedule left a kernel unlaunched"
    assert not _unpinned(calls)

    # a read copy's own kernel (its quantisation at load_state)
    kern = load_case("gdn", H=1, HV=2, K=8, V=8, L=4, read_dtype="fp8", fp8_scale="row")
    calls = []
    _record_launches(monkeypatch, kern.module, calls)
    gen = torch.Generator().manual_seed(12)
    params = ALL_CASES["gdn"].params(gen, 1, 2, 8, 8)
    state = kern.new_state(2, device, **{n: t.to(device) for n, t in params.items()})
    S = torch.randn((2,) + kern.state_shape, generator=gen).to(device)
    kern.load_state(state, torch.arange(2, dtype=torch.int32, device=device), S)
    assert [name for name, _ in calls] == ["quantize_kernel"] and not _unpinned(calls)
