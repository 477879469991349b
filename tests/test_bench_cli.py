"""`replaygen tune` and `replaygen bench` on a CPU machine: argument parsing, the refusal
without a GPU, the report writer on synthetic rows, and a dry run of both commands.

The dry runs replace the CUDA-event timer and the copy bandwidth (and on a CPU machine
the device check) with stand-ins and shrink the spec's named geometry to a tiny one, so the
commands' own logic runs end to end in the interpreter: workloads with real records,
launches through the entry points with forced and tuned launch configurations, the
selection of the fastest launch, the merge into tuning.json and the report files. The
stand-in times are made up; nothing here measures anything.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
import json
import types
from pathlib import Path

import pytest
import torch

from replaygen import ConfigError, bench as B
from replaygen import perf, runtime, spec as spec_mod, tune as T
from replaygen.cli import main, make_parser
from replaygen.spec import NamedConfig, load_variant
from replaygen.tuning import TUNING_FILE, TuningTable

CUDA = torch.cuda.is_available()


def test_parse_bench_and_tune():
    a = make_parser().parse_args(["bench", "--variants", "gdn,kda", "--batches", "1,8,8",
                                  "--L", "16", "--eager", "--quick", "--out", "x"])
    assert (a.variants, a.batches, a.L, a.eager, a.quick, str(a.out)) == (
        ("gdn", "kda"), (1, 8), (16,), True, True, "x")
    d = make_parser().parse_args(["bench"])
    assert d.variants == ("mamba2", "gdn", "kda") and d.batches is None and not d.eager
    t = make_parser().parse_args(["tune", "--all", "--batches", "1,512", "--L", "8,16"])
    assert (t.all, t.batches, t.L, t.state_dtype, t.record_dtype) == (True, (1, 512), (8, 16),
                                                                     ["fp32"], "bf16")


@pytest.mark.parametrize("argv,message", [
    (["bench", "--batches", "0"], "'0' is not an integer >= 1"),
    (["bench", "--variants", "mamba3"], "unknown variant 'mamba3'"),
    (["tune"], "one of the arguments --variant --all is required"),
])
def test_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.skipif(CUDA, reason="the refusal is what a machine without a GPU gets")
@pytest.mark.parametrize("command", [["bench", "--quick"], ["tune", "--variant", "gdn"]])
def test_refuses_without_a_gpu(command, capsys, tmp_path):
    out = tmp_path / "out"   # (bench: a refused run leaves no results folder behind)
    assert main(command + (["--out", str(out)] if command[0] == "bench" else [])) == 1
    err = capsys.readouterr().err
    assert f"`replaygen {command[0]}` times kernels on a CUDA GPU" in err
    assert not out.exists()


def synthetic_report():
    rows = []
    for v, batch, L in itertools.product(("gdn", "kda"), (1, 256), (8, 16)):
        r = dict(variant=v, config=f"{v}-geo", kernel=f"{v}__k", L=L, batch=batch,
                 conventional=0.3 * batch / 256 + 0.01, nonflush=0.2 * batch / 256 + 0.01,
                 flush_step=0.5 * batch / 256, amortised=0.17 * batch / 256 + 0.012,
                 baselines={"fla x": dict(ms=0.25 * batch / 256 + 0.01, ok=True, err_out=1e-3,
                                          err_state=1e-6, source="fla.x")},
                 per_step={"conventional": 4.2e6 * batch, "amortised": 2.4e6 * batch,
                           "nonflush": 2.2e6 * batch, "flush_step": 4.4e6 * batch},
                 speedup_cap=1.79)
        B.derive_ratios(r, 4.3e12)
        rows.append(r)
    meta = dict(gpu="NVIDIA H200", driver="580", torch="2.11", triton="3.6", python="3.12",
                commit="abc", command="replaygen bench", date="2026-11-29T12:00:00+00:00")
    return dict(schema=1, meta=meta, copy_bytes_per_s={"eager": 4.3e12, "graph": 2.8e12, "best": 4.3e12},
                rows=rows, notes=["a note"], settings={}, seconds=12.0)


def test_report_writer(tmp_path):
    report = synthetic_report()
    r = report["rows"][-1]
    assert r["speedup"] == pytest.approx(r["conventional"] / r["amortised"])
    assert r["best_conventional"] == "fla x"          # faster than ours in these rows
    assert r["speedup_vs_best"] == pytest.approx(r["baselines"]["fla x"]["ms"] / r["amortised"])
    assert r["copy_fraction"]["amortised"] == pytest.approx(
        r["per_step"]["amortised"] / (r["amortised"] * 1e-3) / 4.3e12)
    written = B.write_report(report, tmp_path, log=lambda *_: None)
    names = {p.name for p in written}
    assert {"bench.json", "bench.csv", "bench.md"} <= names
    md = (tmp_path / "bench.md").read_text()
    assert "NVIDIA H200" in md and "| kda | kda-geo | 16 | 256 |" in md and "a note" in md
    header = (tmp_path / "bench.csv").read_text().splitlines()[0].split(",")
    assert {"meta.gpu", "meta.commit", "amortised", "speedup", "copy_fraction.amortised",
            "baselines.fla x.ms"} <= set(header)
    assert json.loads((tmp_path / "bench.json").read_text())["rows"][0]["variant"] == "gdn"
    # --replot rewrites the derived files from bench.json alone
    (tmp_path / "bench.md").unlink()
    assert main(["bench", "--replot", str(tmp_path)]) == 0
    assert (tmp_path / "bench.md").read_text() == md


def test_a_replot_without_matplotlib_keeps_the_data(tmp_path, monkeypatch):
    """A replot where matplotlib is missing logs that the plot was not redrawn; the
    measured bench.json (and the plot its run wrote) stay as they were."""
    monkeypatch.setattr(B, "plot", lambda report, path: None)     # the GPU run drew its plot
    B.write_report(synthetic_report(), tmp_path, log=lambda *_: None)
    data, md = (tmp_path / "bench.json").read_text(), (tmp_path / "bench.md").read_text()
    monkeypatch.setattr(B, "plot", lambda report, path: "speedup.png not written: no matplotlib")
    logged = []
    B.write_report(json.loads(data), tmp_path, log=logged.append, replot=True)
    assert (tmp_path / "bench.json").read_text() == data
    assert (tmp_path / "bench.md").read_text() == md
    assert "speedup.png not written: no matplotlib" in logged


def test_crossover_table_reports_where_the_replay_step_pays():
    """The crossover is the smallest batch from which the replay step is never slower than
    the best conventional step beyond the noise band (B.EVEN), and the table marks the
    cells: slower in bold, even in italics; the dispatch column lists the batches at which
    decode folds every step."""
    assert B.crossover([(1, 1.2), (8, 0.9), (64, 1.1), (256, 1.6)]) == 64   # 8 is slower
    assert B.crossover([(1, 1 - B.EVEN / 2), (8, 1.5)]) == 1                 # 1 is even
    assert B.crossover([(1, 1.2), (256, 0.5)]) is None                       # slower at the top
    rows = synthetic_report()["rows"]
    slow = [r for r in rows if r["variant"] == "kda" and r["L"] == 8 and r["batch"] == 1][0]
    slow["speedup_vs_best"], slow["fold_every_step"] = 0.8, True
    md = "\n".join(B.crossover_lines(rows))
    assert "| batch 1 | batch 256 | crossover | dispatch folds at |" in md
    kda8 = [line for line in md.splitlines() if line.startswith("| kda | kda-geo | 8 |")][0]
    assert "**0.80×**" in kda8 and kda8.endswith("| 256 | 1 |")
    gdn16 = [line for line in md.splitlines() if line.startswith("| gdn | gdn-geo | 16 |")][0]
    # (the synthetic fla step beats the replay step at batch 1: 0.0110 vs 0.0127 ms)
    assert gdn16.endswith("| 256 | none |") and "**0.87×**" in gdn16
    assert B.crossover_lines([]) == []


# -- dry runs ----------------------------------------------------------------------------------
class FakeTimer:
    """Runs setup and fn once (so every launch really happens, in the interpreter) and
    returns a made-up time that differs per call."""

    def __init__(self, *args, **kwargs):
        self.calls = 0

    def __call__(self, fn, setup=None, graph=True, steps=1):
        if setup:
            setup()
        fn()
        self.calls += 1
        return (1.0 + (self.calls * 7919 % 13) / 10) / steps


@pytest.fixture
def tiny(monkeypatch, device):
    """gdn with one tiny named geometry; stand-ins for the timer and the copy bandwidth
    (and, on a CPU machine, for the GPU check)."""
    real = load_variant("gdn")
    small = dataclasses.replace(real, configs=(NamedConfig("tiny", {"H": 1, "HV": 2, "K": 16, "V": 20}),))

    def fake_load_variant(name, *a, **k):
        return small if name == "gdn" else load_variant(name, *a, **k)
    for mod in (spec_mod, runtime):
        monkeypatch.setattr(mod, "load_variant", fake_load_variant)
    monkeypatch.setattr(perf, "require_cuda", lambda command: torch.device(device))
    monkeypatch.setattr(perf, "Timer", FakeTimer)
    monkeypatch.setattr(perf, "copy_bandwidth", lambda device, timer: {"eager": 1e12, "graph": 1e12, "best": 1e12})
    monkeypatch.setattr(T, "BLOCK_VS", (8, 16))      # a small grid: the interpreter is slow
    monkeypatch.setattr(T, "WARPS", (1, 2))
    # Each phase after the first on each batch's (or, phase 3, the smallest batch's) fastest
    # launch only: every phase still measures and competes (the assertions below see
    # several launches picked), at ~30% fewer interpreted candidates than keeping 2-3 each.
    monkeypatch.setattr(T, "stage_candidates",           # phase 2
                        functools.partial(T.stage_candidates, keep=1))
    monkeypatch.setattr(T, "split_candidates",           # phase 3
                        functools.partial(T.split_candidates, keep=1))
    # phase 4 (the sweep's default tries three to ten per batch)
    monkeypatch.setattr(T, "separate_flush_candidates",
                        functools.partial(T.separate_flush_candidates, keep=1, within=1.0))
    monkeypatch.setattr(T, "fold_warps_candidates",   # phase 5 on each batch's fastest only
                        functools.partial(T.fold_warps_candidates, keep=1))
    monkeypatch.setattr(T, "fold_split_candidates",   # phase 6 likewise, one other split
                        functools.partial(T.fold_split_candidates, keep=1))
    monkeypatch.setattr(T, "FOLD_SPLITS", (1,))
    monkeypatch.setattr(T, "fold_stages_candidates",   # phase 7 likewise, one depth
                        functools.partial(T.fold_stages_candidates, keep=1))
    monkeypatch.setattr(T, "FOLD_STAGES", (3,))
    monkeypatch.setattr(T, "ELEMENTS_PER_THREAD", (1, 64))   # tiny tiles: keep 4 candidates
    monkeypatch.setattr(T, "DECODE_BLOCK_VS", (16, 32))
    monkeypatch.setattr(T, "BKT_CHOICES", (8, 16))
    monkeypatch.setattr(T, "CHUNK_ELEMENTS_PER_THREAD", (1, 64))
    return small


def test_tune_dry_run(tiny, tmp_path, device):
    out = tmp_path / "gen"
    # an entry of another GPU already in the file is kept
    old = TuningTable()
    old.add("NVIDIA A100", "other", "fold", 1, T.Launch(16, 2, 3))
    old.write(out / "gdn" / TUNING_FILE, "gdn")
    args = make_parser().parse_args(["tune", "--variant", "gdn", "--batches", "1,3", "--L", "3",
                                     "--out", str(out), "--jobs", "1"])
    assert T.run(args, log=lambda *_: None) == 0
    table = TuningTable.read(out / "gdn" / TUNING_FILE, "gdn")
    gpu = runtime.device_name(torch.device(device))
    assert set(table.gpus()) == {gpu, "NVIDIA A100"}
    kern = runtime.load("gdn", config="tiny", L=3, state_dtype="fp32", record_dtype="bf16", tuning=False)
    mine = [e for e in table.entries() if e[0] == gpu]
    assert {(c, k, b) for _, c, k, b, _, _ in mine} == {
        (kern.name, k, b) for k in ("replay_decode", "fold", "conventional_decode") for b in (1, 3)}
    for _, _, _, _, launch, info in mine:
        assert info["ms"] <= info["plan_ms"]     # the plan's choice is always a candidate
    assert len({launch for *_, launch, _ in mine}) > 1, "the fake times should pick several"
    # the runtime now launches the tuned choices, and still computes the right thing
    tuned = runtime.load("gdn", config="tiny", L=3, state_dtype="fp32", record_dtype="bf16",
                         tuning=out / "gdn" / TUNING_FILE)
    assert tuned.launch_args("fold", 3, device)[0]["BV"] == table.lookup(kern.name, "fold", gpu, 3).BV


def test_tune_passes_the_gate_layout(tiny, tmp_path, device):
    """`tune --gate-records` reaches the configurations it builds (bench/spec_bench.py takes
    the same option): GDN's scalar decay has no cumulative layout, and says so before any
    launch is timed; the default is the plan's choice."""
    argv = ["tune", "--variant", "gdn", "--batches", "4", "--L", "3", "--out", str(tmp_path)]
    assert make_parser().parse_args(argv).gate_records is None
    args = make_parser().parse_args(argv + ["--gate-records", "cumulative"])
    with pytest.raises(ConfigError, match="gate_records='cumulative' needs a per-channel decay"):
        T.run(args, log=lambda *_: None)


def test_tune_dry_run_of_the_commit(tiny, tmp_path, device):
    """`tune --max-drafts 2 --kernels commit`: the commit's launch of the fold kernel, timed
    as a commit of T_MAX drafts per row at staggered cursors (perf.Workload.committing),
    where the rows at the cycle's last phase fold and the others move their cursors; its
    entry then drives Kernels.commit's launch."""
    out = tmp_path / "gen"
    args = make_parser().parse_args(["tune", "--variant", "gdn", "--batches", "4", "--L", "3",
                                     "--max-drafts", "2", "--kernels", "commit",
                                     "--out", str(out), "--jobs", "1"])
    assert T.run(args, log=lambda *_: None) == 0
    table = TuningTable.read(out / "gdn" / TUNING_FILE, "gdn")
    gpu = runtime.device_name(torch.device(device))
    kern = runtime.load("gdn", config="tiny", L=3, max_drafts=2, tuning=out / "gdn" / TUNING_FILE)
    assert {(c, k) for _, c, k, *_ in table.entries()} == {(kern.name, "commit")}
    assert kern.launch_args("commit", 4, device)[0]["BV"] == table.lookup(kern.name, "commit", gpu, 4).BV
    work = perf.Workload(kern, 4, device)
    work.committing()()
    assert work.state.cursor[:, 0].tolist() == [0, 2, 0, 2]   # CAP = L = 3: period 2
    work.commit_all(4)
    assert work.state.cursor[:, 0].tolist() == [2, 0, 2, 0]   # 2 + 2 > CAP folded


def test_bench_dry_run(tiny, tmp_path):
    args = make_parser().parse_args(["bench", "--variants", "gdn", "--batches", "1,2", "--L", "2,3",
                                     "--out", str(tmp_path), "--jobs", "1", "--eager"])
    assert B.run(args, log=lambda *_: None) == 0
    report = json.loads((tmp_path / "bench.json").read_text())
    rows = report["rows"]
    assert [(r["L"], r["batch"]) for r in rows] == [(2, 1), (2, 2), (3, 1), (3, 2)]
    for r in rows:
        for k in ("conventional", "nonflush", "flush_step", "amortised", "amortised_eager",
                  "conventional_eager", "speedup", "speedup_cap"):
            assert isinstance(r[k], float) and r[k] > 0, (k, r)
        assert r["per_step"]["amortised"] == r["per_token"]["amortised"] * r["batch"]
        # whose launches ran: the tiny configuration has no tuning entries
        assert {r["launch"][k]["table"] for k in ("replay_decode", "conventional_decode")} == {"plan"}
    # the conventional step is measured once per batch and shared by every L
    assert rows[0]["conventional"] == rows[2]["conventional"]
    assert (tmp_path / "bench.md").is_file() and (tmp_path / "bench.csv").is_file()


def test_precompile_workers(device):
    """The spawned compile workers import replaygen, load a configuration and launch it on
    padding rows with forced launches (in the interpreter here: the spawn, pickling and
    worker path is what is checked; on a GPU the same launches fill Triton's cache)."""
    dims = dict(H=1, HV=2, K=16, V=20, L=2, state_dtype="fp32", record_dtype="bf16")
    tasks = [("gdn", dims, [("replay_decode", T.Launch(8, 1, 1)), ("fold", None),
                            ("conventional_decode", T.Launch(16, 2, 3))], (1, 3), device)] * 2
    lines, keys = [], set()
    assert perf.precompile(tasks, 2, lines.append, keys=keys) == 0, lines
    if torch.device(device).type == "cuda":   # (the interpreter compiles nothing: no keys)
        assert {name for name, _ in keys} >= {"replay_decode_kernel", "fold_kernel"}
    broken = [("gdn", {**dims, "K": 0}, [("fold", None)], (1,), device)]
    assert perf.precompile(broken, 2, lines.append) == 1 and "ConfigError" in lines[-1]


def test_compile_keys_name_what_sets_a_launch_apart():
    """CompileKeys records (kernel, on-disk cache key, cache hit) through Triton's
    compilation listener and restores the listener it found; the key holds the source,
    attributes, signature and constants, and each option and environment variable but
    the compile's outputs; key_difference names the parts of a key that the nearest key
    compiled ahead lacks (session 46: an FP8 sweep compiled its launches twice)."""
    from triton import knobs
    seen = []
    knobs.compilation.listener = lambda **kw: seen.append(kw["cache_hit"])
    src = types.SimpleNamespace(fn=types.SimpleNamespace(__name__="k", cache_key="abc"),
                                attrs={(0,): [["tt.divisibility", 16]]},
                                signature={"x_ptr": "*fp32", "n": "i32"}, constants={"BV": 16})
    try:
        with perf.CompileKeys() as keys:
            listener = knobs.compilation.listener
            listener(src=src, metadata={"num_warps": 1, "shared": 512, "hash": "h"},
                     metadata_group={}, times=None, cache_hit=False)
        assert knobs.compilation.listener is not listener   # restored
        assert seen == [False]   # the listener it found still runs
        [(name, key, hit)] = keys.keys
        assert (name, hit) == ("k", False)
        assert key.split(" | ") == ["source=abc", "attrs={(0,): [['tt.divisibility', 16]]}",
                                    "signature=[('n', 'i32'), ('x_ptr', '*fp32')]",
                                    "constants=[('BV', '16')]", "num_warps=1"]
    finally:
        knobs.compilation.listener = None
    ahead = ["a | b | c | d", "a | x | y | z"]
    assert perf.key_difference("a | b | c | e", ahead) == "here: e; ahead: d"
    assert perf.key_difference("a | b", []) == "no key of that kernel was compiled ahead"


_KEY_SCRIPT = """
import sys, triton
from replaygen.runtime import load
m = load("mamba2", config="nemotron3-nano-4b", L=16, tuning=False, read_dtype="fp8").module
if sys.argv[1] == "others-first":   # as the tuner's timing process: the workload's kernels first
    for name in sorted(vars(m)):
        if isinstance(getattr(m, name), triton.runtime.jit.JITFunction):
            getattr(m, name).cache_key
print(m.replay_decode_kernel.cache_key)
"""


def test_a_kernels_disk_cache_key_is_the_same_in_every_process():
    """The FP8 decode's source hash (the on-disk cache key's first part) is the same whether
    the process hashed the module's other kernels first (the tuner's timing process) or
    hashed the decode alone (a compile worker): runtime.settle_helper_cache_keys hashes the
    helpers before any kernel. Without it, Triton 3.6 (the GPU image's) gave two hashes
    and the timing process compiled every FP8 candidate again (session 47, calls 3-4);
    Triton 3.9 gives one either way. Compiled mode (no TRITON_INTERPRET): no GPU needed."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    root = str(Path(__file__).resolve().parent.parent)
    keys = {order: subprocess.run([sys.executable, "-c", _KEY_SCRIPT, order], env=env, cwd=root,
                                  capture_output=True, text=True, check=True).stdout.strip()
            for order in ("others-first", "decode-alone")}
    assert len(set(keys.values())) == 1 and len(keys["decode-alone"]) == 64, keys


def test_the_suite_holds_each_row_to_its_table_entry():
    """A suite row's amortised time against the decode entry the table recorded at that
    exact batch (TuningTable.recorded; lookup's bucket rule does not apply: a batch-8
    entry says nothing about batch 9): noted as stale past tuning.STALE, as GLA's fp32
    decode entries were (0.185 ms recorded, 0.291 measured on 2026-12-04)."""
    from types import SimpleNamespace
    from replaygen.tuning import STALE, Launch
    table = TuningTable()
    table.add("G", "cfg", "replay_decode", 8, Launch(16, 4, 3), ms=0.185, plan_ms=0.19)
    assert table.recorded("cfg", "replay_decode", "G", 8)["ms"] == 0.185
    assert table.recorded("cfg", "replay_decode", "G", 9) is None
    assert table.lookup("cfg", "replay_decode", "G", 9) == Launch(16, 4, 3)
    assert table.recorded("cfg", "fold", "G", 8) is None and table.recorded("cfg", "replay_decode", "H", 8) is None
    kern = SimpleNamespace(name="cfg", tuning=table)
    for measured, stale in ((0.291, True), (0.185 * STALE * 0.99, False), (0.15, False)):
        notes, row = [], {"batch": 8, "amortised": measured}
        B._check_against_table(kern, "G", row, notes)
        assert row["tabled_amortised"] == 0.185
        assert bool(notes) == stale and all("stale" in n and "cfg batch 8" in n for n in notes)
    notes, row = [], {"batch": 64, "amortised": 1.0}
    B._check_against_table(kern, "G", row, notes)
    assert notes == [] and "tabled_amortised" not in row
    B._check_against_table(SimpleNamespace(name="cfg", tuning=None), "G", row, notes)
    assert notes == []
