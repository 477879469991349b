"""The sympy bytes model (replaygen/traffic.py) against hand counts and its own proofs.

The hand counts below are written from the design notes' byte accounting, independently
of the model: a Qwen3.5-4B GDN layer (16 key heads, 32 value heads, K = V = 128), fp32
checkpoint, bf16 records, inputs and outputs.
"""
from __future__ import annotations

import pytest
import sympy

from replaygen.cli import main
from replaygen.derive import derive
from replaygen.plan import make_config, make_plan
from replaygen.spec import load_variant
from replaygen.traffic import L, check_cap, check_speculative, speculative, traffic

STATE = 32 * 128 * 128 * 4                    # [HV, V, K] fp32
RECORD = 16 * 128 * 2 + 32 * 128 * 2 + 32 * 2  # k_hat per key head, u and g per value head
IO = 2 * 16 * 128 * 2 + 32 * 128 * 2 + 2 * 32 * 2 + 32 * 128 * 2   # q, k, v, a, b in; o out


def gdn_model(max_drafts=1):
    spec = load_variant("gdn")
    config = make_config(spec, dict(spec.configs[0].dims), 16, "fp32", "bf16",
                         max_drafts=max_drafts)
    return traffic(make_plan(derive(spec), config))


def test_decode_cycle_by_hand():
    t = gdn_model()
    assert t.evaluate(t.conventional) == 2 * STATE + IO
    assert t.evaluate(t.step, 5) == STATE + 6 * RECORD + IO
    steps = sum(STATE + (k + 1) * RECORD + IO for k in range(15))
    flush_step = 2 * STATE + 15 * RECORD + IO
    assert t.evaluate(t.amortised) == sympy.Rational(steps + flush_step, 16)


def test_speculative_step_by_hand():
    """T = 8 drafts, all accepted, L = 16: three verifies (at 0, 8 and 16 committed records)
    and one commit per cycle that folds 24 records (the third: 16 + 8 would pass CAP = L);
    the snapshot step writes one state per draft."""
    numbers = speculative(gdn_model(8), 8)
    verify = [STATE + n * RECORD + 8 * RECORD + 8 * IO for n in (0, 8, 16)]
    fold = 2 * STATE + 24 * RECORD
    amortised = sympy.Rational(sum(verify) + fold, 3)
    # (the model evaluates to floats: the thirds are not exact)
    assert numbers["verify_amortised"] == pytest.approx(float(amortised), rel=1e-12)
    assert numbers["snapshots"] == 11 * STATE + 8 * IO
    assert numbers["conventional_decode"] == 2 * STATE + IO
    assert numbers["vs_decode"] == pytest.approx(float(amortised / (2 * STATE + IO)), rel=1e-12)
    assert numbers["vs_snapshots"] == pytest.approx(float((11 * STATE + 8 * IO) / amortised), rel=1e-12)
    # (5/3 of a state per step where the conventional decode moves 2: under the issue's
    # 1.1x, and above its 5x of the snapshot step)
    assert numbers["vs_decode"] < 1.0 and numbers["vs_snapshots"] > 5.0
    # with committed = n, one verify's bytes at n records; without it, none
    assert "verify" not in numbers
    assert speculative(gdn_model(8), 8, committed=8)["verify"] == verify[1]


def test_model_proofs():
    assert sympy.simplify(check_cap() - 2 / (1 + 1 / L)) == 0
    check_speculative()


def test_show_and_build_take_max_drafts(tmp_path, capsys):
    assert main(["show", "--variant", "gdn", "--config", "qwen3.5-4b", "--max-drafts", "8"]) == 0
    out = capsys.readouterr().out
    assert "gdn__H16_HV32_K128_V128__L16__T8__state_fp32__rec_bf16" in out
    assert "speculative step of T = 8 drafts" in out and "verify / decode" in out
    assert main(["build", "--variant", "gdn", "--config", "qwen3.5-4b", "--state-dtype", "fp32",
                 "--max-drafts", "4", "--out", str(tmp_path)]) == 0
    assert [p.name for p in (tmp_path / "gdn").iterdir()] == [
        "gdn__H16_HV32_K128_V128__L16__T4__state_fp32__rec_bf16.py"]


def test_show_lists_inputs_and_says_why_no_speculative_model(capsys):
    """The README sends users to `show` for each spec's model-native input names and
    shapes; and a --max-drafts that the speculative bytes model does not cover (L not a
    multiple of T, or a read copy) says so instead of printing nothing."""
    assert main(["show", "--variant", "mamba2", "--config", "nemotron3-nano-4b", "--max-drafts", "3"]) == 0
    out = capsys.readouterr().out
    spec = load_variant("mamba2")
    for q in spec.inputs() + spec.params():
        assert f"  {q.name} " in out
    assert "z          input  [nheads=" in out and "(optional)" in out
    assert "no speculative bytes model for T = 3" in out and "not a multiple of T" in out
    assert main(["show", "--variant", "gdn", "--max-drafts", "8", "--read-dtype", "fp8"]) == 0
    assert "this configuration has a read copy" in capsys.readouterr().out
