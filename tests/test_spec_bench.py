"""bench/spec_bench.py (a GPU script) at least imports, parses its arguments and writes its
tables on a CPU machine; its measurements run on the H200 only."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))

import spec_bench  # noqa: E402


def test_arguments():
    args = spec_bench.parse_args(["--out", "x", "--variants", "gdn,kda", "--drafts", "2,8"])
    assert args.variants == ["gdn", "kda"] and args.drafts == [2, 8] and args.batches == [256, 512]
    assert spec_bench.parse_args([]).variants == list(spec_bench.GEOMS)
    with pytest.raises(SystemExit):
        spec_bench.parse_args(["--variants", "nope"])
    assert spec_bench.parse_args([]).gate_records is None   # the plan's layout
    assert spec_bench.parse_args(["--gate-records", "step"]).gate_records == "step"
    with pytest.raises(SystemExit):
        spec_bench.parse_args(["--gate-records", "running"])


def test_markdown_tables():
    meta = dict(gpu="cpu", date="d", commit="c" * 40, command="python bench/spec_bench.py",
                torch="t", triton="t")
    timing = dict(variant="gdn", batch=256, T=8, verify_commit=0.2, verify_only=0.15,
                  conventional_spec=1.2, conventional_decode=0.2, ratio_to_decode=1.0,
                  speedup_vs_snapshots=6.0)
    text = spec_bench.markdown(dict(
        meta=meta, checks=[dict(variant="gdn", err_out=1e-3, err_state=2e-3, ok=True)],
        bench=[timing, dict(variant="kda", batch=256, T=8, error="boom")],
        accuracy=[dict(variant="gdn", records="bf16", windows=16, T=8, final_replay=1e-3,
                       final_conventional=1e-6, worst_replay=2e-3, worst_conventional=1e-6)]))
    assert "| gdn | 256 | 8 | 0.2000 |" in text and "error: boom" in text and "6.00" in text


def test_bandwidth_table():
    """Each timed quantity's model bytes over its time, against the run's copy: 1 GB in
    0.5 ms is 2 TB/s, half of a 4 TB/s copy; rows without model bytes (T not dividing L)
    are left out."""
    meta = dict(gpu="cpu", date="d", commit="c" * 40, command="x", torch="t", triton="t",
                copy_bytes_per_s={"eager": 4e12, "graph": 3e12, "best": 4e12})
    row = dict(variant="kda", batch=256, T=8, verify_commit=0.5, verify_only=0.25,
               conventional_decode=0.4, model_bytes=dict(verify_commit=1e9, verify_only=7.5e8,
                                                         conventional_decode=1.2e9,
                                                         cap_to_decode=1.088))
    text = "\n".join(spec_bench.bandwidth_table(dict(meta=meta, bench=[row, dict(row, T=3, model_bytes={})])))
    assert "copy: 4.00 TB/s" in text
    assert "| kda | 256 | 8 | 1.088 | verify + commit | 1000 | 2.00 | 50% |" in text
    assert "| kda | 256 | 8 | 1.088 | verify | 750 | 3.00 | 75% |" in text
    assert "| kda | 256 | 8 | 1.088 | conv. decode | 1200 | 3.00 | 75% |" in text
    assert "| 3 |" not in text
    assert spec_bench.bandwidth_table(dict(meta=meta, bench=[])) == []


@pytest.mark.parametrize("verify_folds", [False, True])
def test_model_bytes_of_the_timed_cycle(verify_folds):
    """model_bytes: the verify alone at the staggered cycle's mean cursor is the mean of
    the verify's bytes over the cycle's cursors 0, T, .., L (the rows' positions in
    StaggeredCycle), the decode and the cap are the traffic model's, and T = 3 (not
    dividing L = 16) has no cycle to model."""
    from replaygen.traffic import speculative, traffic
    kern = spec_bench.load_kernels("kda", 8, verify_folds=verify_folds)
    got = spec_bench.model_bytes(kern, 4, 8)
    t = traffic(kern.plan)
    cycle = speculative(t, 8)
    assert got["conventional_decode"] == 4 * cycle["conventional_decode"]
    if verify_folds:
        assert "verify_only" not in got
        assert got["verify_commit"] == 4 * cycle["verify_folds_amortised"]
        assert got["cap_to_decode"] == cycle["verify_folds_vs_decode"] < 1
    else:
        period = spec_bench.cycle_period(kern.plan, 8)
        mean = sum(speculative(t, 8, committed=8 * k)["verify"] for k in range(period)) / period
        assert period == 3 and got["verify_only"] == pytest.approx(4 * mean, rel=1e-12)
        assert got["verify_commit"] == 4 * cycle["verify_amortised"]
        assert got["cap_to_decode"] == cycle["vs_decode"] > 1
    assert spec_bench.model_bytes(kern, 4, 3) == {}


@pytest.mark.parametrize("verify_folds", [False, True])
def test_staggered_cycle_positions(verify_folds, device):
    """The timed cycle (spec_bench's time_step, spec_breakdown's profile) starts with row r
    at cursor (r % period) * T, and in every step of full acceptance one row in each
    period folds: without verify_folds the commit's fold takes a row at 16 to 0 (16 + 8 >
    CAP = 16), so the cursors cycle 0 / 8 / 16; with verify_folds a row at 16 folds in the
    verify and commits to 8, so they alternate 8 / 16. A wrong stagger (every row folding
    in the same step) fails. Small dims; the interpreter, or the GPU where there is one
    (the cycle's tensors live on the device it is given)."""
    import torch
    import replaygen
    L, T, batch = spec_bench.L, 8, 4
    kern = replaygen.load("gdn", H=1, HV=2, K=16, V=16, L=L, state_dtype="fp32",
                          record_dtype="fp32", max_drafts=T, verify_folds=verify_folds)
    gen = torch.Generator().manual_seed(1)
    params = {q.name: (torch.randn(kern.shape_of(q), generator=gen) * 0.5).to(device)
              for q in kern.spec.params()}
    cyc = spec_bench.StaggeredCycle(kern, params, batch, T, device)
    if verify_folds:
        assert cyc.period == 2 and cyc.state.cursor[:, 0].tolist() == [0, 8, 0, 8]
        steps = [[8, 16, 8, 16], [16, 8, 16, 8]] * 2
    else:
        assert cyc.period == 3 and cyc.state.cursor[:, 0].tolist() == [0, 8, 16, 0]
        steps = [[8, 16, 0, 8], [16, 0, 8, 16], [0, 8, 16, 0], [8, 16, 0, 8]]
    for i, expect in enumerate(steps):
        cyc.step()
        cursors = cyc.state.cursor.tolist()   # [slots, HV]: every head alike
        assert cursors == [[c] * 2 for c in expect], (i, cursors)
    assert not torch.isnan(cyc.out.float()).any()
