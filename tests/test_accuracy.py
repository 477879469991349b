"""`replaygen accuracy`: the study's float64 recurrence and the command, tiny.

The study's truth is a float64 recurrence evaluated from the spec's formulas
(replaygen.accuracy.Recurrence); here it is checked against the independent reference
(tests/reference.py) for every spec. The command runs end to end on a tiny geometry
(interpreter: 12 tokens, two modes) and writes its data; the plot's missing-matplotlib
error is clear.
"""
from __future__ import annotations

import csv
import json
import sys

import pytest
import torch

from harness import VARIANTS
from replaygen import ConfigError
from replaygen.accuracy import Recurrence, draw, plot_result
from replaygen.cli import main
from replaygen.spec import load_variant


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_recurrence_matches_the_reference(variant):
    """Three steps of two rows, inputs drawn with the spec's [study] statistics."""
    case = VARIANTS[variant]
    spec = load_variant(variant)
    dims = case.dims(2, 4, 5, 3)
    shape = lambda q: tuple(dims[d] for d in q.shape)  # noqa: E731
    gen = torch.Generator().manual_seed(1)
    params = {q.name: draw(spec, q, shape(q), gen, "cpu").double() for q in spec.params()}
    rec = Recurrence(spec, dims, params, 2, "cpu")
    S = [torch.zeros(4, 3, 5, dtype=torch.float64) for _ in range(2)]
    for _ in range(3):
        x = {q.name: draw(spec, q, (2,) + shape(q), gen, "cpu").double()
             for q in spec.inputs() if not q.optional}
        out = rec.step(x)
        for r in range(2):
            S[r], o = case.step(S[r], **{n: t[r] for n, t in x.items()}, **params)
            assert torch.allclose(out[r], o, rtol=1e-12, atol=1e-12), variant
            assert torch.allclose(rec.S[r], S[r], rtol=1e-12, atol=1e-12), variant


def test_accuracy_command_tiny(tmp_path, capsys, device):
    out = tmp_path / "acc"
    code = main(["accuracy", "--variant", "gdn", "--dims", "H=1,HV=2,K=16,V=16", "--tokens", "12",
                 "--rows", "1", "--buffer-length", "4", "--modes", "fp32+nvfp4,fp16",
                 "--no-plot", "--out", str(out), "--device", device])
    assert code == 0, capsys.readouterr().err
    data = json.loads((out / "result.json").read_text())
    assert data["modes"] == ["fp32", "fp32+nvfp4", "fp16"]
    s = data["summary"]
    assert s["fp32"]["rel_vs_fp32"]["final_bin"] == 0.0
    # fp32's own error: bf16 records (2^-9 per rounding) and fp32 arithmetic
    assert 0 < s["fp32"]["rel_vs_fp64"]["final_bin"] < 2e-2
    # an NVFP4 read copy errs by a few percent, an fp16 checkpoint by ~2^-11 per flush
    assert 1e-3 < s["fp32+nvfp4"]["rel_vs_fp32"]["final_bin"] < 0.3
    assert 0 < s["fp16"]["rel_vs_fp32"]["final_bin"] < s["fp32+nvfp4"]["rel_vs_fp32"]["final_bin"]
    assert s["fp32+nvfp4"]["kl_vs_fp32"]["final_bin"] > 0
    with open(out / "per_token.csv") as fh:
        rows = list(csv.reader(fh))
    assert len(rows) == 13 and rows[0][0] == "position"
    assert "fp32+nvfp4" in capsys.readouterr().out


def test_accuracy_budget_stops_early_with_data(tmp_path, capsys, device):
    """A time budget (a GPU call has a wall-clock limit) ends the study after the token
    that exhausted it, and what was decoded is still written: a budget of 0 s gives one
    token of data, not nothing."""
    out = tmp_path / "acc"
    code = main(["accuracy", "--variant", "gdn", "--dims", "H=1,HV=2,K=4,V=4", "--tokens", "50",
                 "--rows", "1", "--buffer-length", "4", "--modes", "fp16", "--no-plot",
                 "--out", str(out), "--device", device, "--budget-s", "0"])
    assert code == 0, capsys.readouterr().err
    data = json.loads((out / "result.json").read_text())
    assert data["stopped_early"] is True and data["tokens"] == 1
    with open(out / "per_token.csv") as fh:
        assert len(list(csv.reader(fh))) == 2   # header and the one token
    assert "time budget of 0 s reached after 1 tokens" in capsys.readouterr().out


def test_plot_without_matplotlib_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ConfigError, match=r"needs matplotlib: pip install 'replaygen\[bench\]'"):
        plot_result({}, tmp_path / "x.png")


def test_unknown_mode_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["accuracy", "--variant", "gdn", "--modes", "fp64"])
    assert info.value.code == 2 and "unknown mode 'fp64'" in capsys.readouterr().err


def test_cpu_device_selects_the_interpreter(monkeypatch):
    """`accuracy --device cpu` runs Triton's interpreter (the only way kernels run on a CPU):
    it sets TRITON_INTERPRET before any kernel module loads, and refuses with a clear error
    when one was already compiled in this process (kernels and helpers would be mixed)."""
    from replaygen import cli
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    for name in cli.KERNEL_MODULES:
        monkeypatch.delitem(sys.modules, name, raising=False)
    cli.interpret_kernels()
    assert cli.os.environ["TRITON_INTERPRET"] == "1"
    monkeypatch.delenv("TRITON_INTERPRET")
    monkeypatch.setitem(sys.modules, "replaygen.formats", object())
    with pytest.raises(ConfigError, match="TRITON_INTERPRET=1"):
        cli.interpret_kernels()
