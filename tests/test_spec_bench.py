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
