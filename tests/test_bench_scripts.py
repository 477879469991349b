"""The GPU scripts import and parse their arguments on a CPU machine (they run only on
the H200, so a broken import would otherwise surface there, costing a device run)."""
from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
import torch

from harness import CUDA
from replaygen import load
from replaygen.runtime import order_flags

BENCH = Path(__file__).resolve().parent.parent / "bench"


def _load(name):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_precision_bench_imports_and_parses(tmp_path, capsys):
    pb = _load("precision_bench")
    args = pb.parse(["--out", str(tmp_path), "--variants", "gdn,kda", "--accuracy", "gdn"])
    assert args.variants == "gdn,kda" and args.accuracy == "gdn" and args.accuracy_tokens == 32768
    with pytest.raises(SystemExit):
        pb.parse(["--out", str(tmp_path), "--variants", "nope"])
    assert "unknown variant" in capsys.readouterr().err
    assert set(pb.TIMED) <= set(pb.CONFIGS) and set(pb.CHECK_EVERY_VARIANT) <= set(pb.CONFIGS)
    # limits grow with the format: fp32 < fp8 read < nvfp4 read < shared nvfp4
    assert pb.limit("fp32") < pb.limit("fp32+fp8row") < pb.limit("fp32+nvfp4") < pb.limit("shared-nvfp4")
    row = {"variant": "gdn", "conventional_fp32": 0.3, "peak_tbs": 4.3, "batch": 256,
           "skipped": ["launch/x"]}
    for n in pb.TIMED:
        row.update({f"nonflush/{n}": 0.1, f"ratio_nonflush/{n}": 2.0, f"cap_nonflush/{n}": 3.0,
                    f"amortised/{n}": 0.1, f"ratio_amortised/{n}": 3.0, f"cap_amortised/{n}": 4.0,
                    f"decode/{n}": "replay_decode_kchunks", f"bound_nonflush/{n}": 0.5,
                    f"bound_amortised/{n}": 0.25, f"bytes/{n}": {"step_n8": 8.4e5}})   # 215 MB for 256 rows: 0.05 ms
    # --compare rows: the value-tile twin and another launch of a key-chunk read copy
    row.update({"vtiles_nonflush/fp32+nvfp4": 0.2, "ratio_vtiles_nonflush/fp32+nvfp4": 0.5,
                "vtiles_amortised/fp32+nvfp4": 0.3, "launch_nonflush/fp32+nvfp4/128x32x2": 0.05,
                "ratio_launch_nonflush/fp32+nvfp4/128x32x2": 4.0,
                "launch_nonflush/fp32+nvfp4/64x32x1+sf": 0.04,
                "ratio_launch_nonflush/fp32+nvfp4/64x32x1+sf": 5.0,
                "launch_amortised/fp32+nvfp4/64x32x1+sf": 0.06})
    args = pb.parse(["--out", str(tmp_path), "--quick", "--compare", "--budget-s", "100",
                     "--checks", "fp32+nvfp4,fp16sr"])
    assert args.compare and args.budget_s == 100 and args.checks == "fp32+nvfp4,fp16sr"
    with pytest.raises(SystemExit):
        pb.parse(["--out", str(tmp_path), "--checks", "fp64"])
    assert "unknown configuration" in capsys.readouterr().err
    assert set(pb.QUICK_CHECKS) <= set(pb.CONFIGS)
    md = pb.markdown(dict(gpu="x", date="d", commit="c", command="cmd", timings=[row],
                          checks=[dict(variant="gdn", config="fp32", err_out=1e-3, err_state=1e-3,
                                       tol=2e-2, ok=True)]))
    assert "| gdn | fp32+nvfp4 | kchunks | 0.1000 | 2.00x (3.00x) | 50% | 0.1000" in md
    assert "| gdn | fp32+nvfp4 | vtiles (before) | 0.2000 | 0.50x |" in md
    assert ("| gdn | fp32+nvfp4 | kchunks 128x32x2 (DBVxBKTxwarps[+sf: separate flush]) | 0.0500 "
            "| 4.00x | 100% |  | |") in md
    assert ("| gdn | fp32+nvfp4 | kchunks 64x32x1+sf (DBVxBKTxwarps[+sf: separate flush]) | 0.0400 "
            "| 5.00x | 125% | 0.0600 | 5.00x |") in md
    assert pb.launch_tag((64, 32, 1, True)) == "64x32x1+sf" and pb.launch_tag((64, 32, 1)) == "64x32x1"
    assert "skipped (budget): launch/x" in md
    # the byte bound's bandwidth: a copy measured in the run unless given, and said which
    assert args.peak_tbs is None and pb.parse(["--out", str(tmp_path), "--peak-tbs", "3.3"]).peak_tbs == 3.3
    md = pb.markdown(dict(gpu="x", date="d", commit="c", command="cmd", timings=[row], checks=[],
                          peak_tbs=3.21, peak_source="a 1 GiB device copy measured in this run"))
    assert "bytes at 3.21 TB/s (a 1 GiB device copy measured in this run)" in md
    if not CUDA:
        with pytest.raises(SystemExit, match="needs a CUDA GPU"):
            pb.main(["--out", str(tmp_path)])


def test_verify_bench_imports_parses_and_tabulates(tmp_path):
    vb = _load("verify_bench")
    args = vb.parse_args(["--out", str(tmp_path), "--variants", "gdn", "--drafts", "2,8"])
    assert args.variants == ["gdn"] and args.drafts == [2, 8] and args.batch == 256
    with pytest.raises(SystemExit):
        vb.parse_args(["--drafts", "16"])   # more than --max-drafts
    timing = dict(variant="gdn", T=8, verify_new=0.2, verify_old=0.6, verify_commit_new=0.35,
                  verify_commit_old=0.8, snapshots=1.9, conventional_decode=0.3,
                  x_decode_new=1.17, x_decode_old=2.67, x_snapshots_new=5.4, x_snapshots_old=2.4,
                  bytes_x_decode=1.1, bytes_x_snapshots=5.0,
                  verify_new_alternatives={"64x32/w4/s3": 0.25})
    text = vb.table(dict(checks=[dict(variant="gdn", what="vs value tiles", ok=False, err_out=1.0,
                                      err_records=0.0, tol=0.02)], bench=[timing]))
    assert "FAIL" in text and "0.2000 / 0.6000" in text and "64x32/w4/s3 0.2500" in text
    if not CUDA:
        with pytest.raises(SystemExit, match="needs a CUDA GPU"):
            vb.main(["--out", str(tmp_path)])


def test_channel_gates_check_runs_and_reports(capsys):
    """bench/channel_gates.py's correctness check, on small dims in the interpreter (the
    real geometries run on the H200 only): every alternative passes, the cumulative
    records differ from the old decode only by rounding, and the summary prints."""
    import replaygen
    from harness import ALL_CASES
    cg = _load("channel_gates")

    def small(variant, alt, L):
        dims = ALL_CASES[variant].dims(1, 2, 40, 16)
        return replaygen.load(variant, L=L, state_dtype="fp32", record_dtype="bf16",
                              **cg.ALTS[alt], **dims)

    device = "cuda" if CUDA else "cpu"
    # the interpreter truncates bf16 casts: twice the rounding error of the GPU's RNE
    tol = cg.TOL * (1 if CUDA else 2)
    r = cg.check("kda", device, L=4, num_slots=3, rows=3, loader=small, tol=tol)
    assert r["ok"], r
    assert r["new_vs_old"] < tol
    cg.summarize(dict(checks=[r], timings=[dict(variant="kda", L=4, alt=a, batch=1, nonflush=0.1,
                                                 flush_step=0.2, amortised=0.12, conventional=0.15)
                                            for a in cg.ALTS], sweep=[], seconds=1))
    assert "kda L=4: PASS" in capsys.readouterr().out


def test_fold_probe_imports_and_its_cases_are_launches():
    """Each probe case is (L, T_MAX, BV, warps, stages) of a fold the runtime can be forced
    to; the T_MAX > 1 cases stay within launch_constants' limit (wider ones are refused)."""
    from replaygen import load
    from replaygen.plan import launch_constants
    probe = _load("fold_probe")
    assert probe.CASES and all(len(c) == 5 for c in probe.CASES)
    for L, t_max, bv, warps, stages in probe.CASES:
        kern = load("gdn", H=1, HV=2, K=32, V=128, L=L, max_drafts=t_max, tuning=False)
        assert launch_constants(kern.plan, "fold", bv)["BV"] == bv


@pytest.mark.skipif(CUDA, reason="the GPU run times every case: a device script's job")
def test_read_pattern_probe_reads_every_block_both_ways(tmp_path):
    """Both kernels of bench/read_pattern_probe.py (pointer loads, tensor descriptors) sum
    every program's block as torch does, for each case that fits a [32, 32] block."""
    probe = _load("read_pattern_probe")
    assert probe.main(["--out", str(tmp_path), "--programs", "3", "--V", "32", "--K", "32"]) == 0
    import json
    rows = json.loads((tmp_path / "read_pattern.json").read_text())["rows"]
    assert {r["mode"] for r in rows} == {"ptr", "tma"} and all(r["ok"] for r in rows), rows


def test_table_audit_lists_the_tabled_entries_and_tabulates(tmp_path, capsys):
    """bench/table_audit.py --list (no GPU): one line per tabled decode entry of a default
    configuration at the batches asked for (that each is the runtime's launch there is
    test_tuning's; the audit asserts it again before timing), and the report's table
    from a synthetic row."""
    from replaygen.emit import table_configs
    from replaygen.spec import load_variant
    ta = _load("table_audit")
    assert ta.main(["--out", str(tmp_path), "--list", "--gpu", "NVIDIA H200", "--variants",
                    "gla,kda", "--batches", "1,256", "--match", "__L16__"]) == 0
    lines = capsys.readouterr().out.splitlines()
    known = {**table_configs(load_variant("gla")), **table_configs(load_variant("kda"))}
    assert lines and all(line.split()[0] in known and "__L16__" in line for line in lines)
    assert {line.split()[2] for line in lines} == {"1:", "256:"}
    assert any(line.startswith("kda__") and "read_nvfp4" in line for line in lines)
    row = {"config": "c", "kernel": "replay_decode", "batch": 256, "launch": {"BV": 16, "split": 2},
           "table_ms": 0.185, "runtime_ms": 0.291, "plan_ms": 0.272, "bench_ms": 0.292,
           "flag": "stale"}
    md = ta.markdown({"gpu": "G", "date": "d", "commit": "x", "command": "cmd", "rows": [row]}, 0.1)
    assert "| c | replay_decode | 256 | BV=16 split=2 | G | 0.1850 | 0.2910 | 0.2720 | 0.93x | 0.2920 | stale |" in md
    row.update(table_gpu="H", flag="plan")   # a stand-in's entry (another GPU's)
    md = ta.markdown({"gpu": "G", "date": "d", "commit": "x", "command": "cmd", "rows": [row]}, 0.1)
    assert "| c | replay_decode | 256 | BV=16 split=2 | H | 0.1850 | 0.2910 | 0.2720 | 0.93x | 0.2920 | plan |" in md


def test_table_audit_retune_commands_rebuild_the_flagged_configurations():
    """The `replaygen tune` command the audit writes for a flagged entry parses, and the
    configuration `replaygen tune` builds from it (as tune.run does) is the flagged one,
    for every default configuration the tables hold (read copies, stochastic rounding,
    speculative, verify_folds), at the flagged batches and kernels only."""
    from replaygen.cli import make_parser
    from replaygen.emit import GENERATED_DIR, table_configs
    from replaygen.runtime import load
    from replaygen.spec import available_variants, load_variant
    from replaygen.tuning import TUNING_FILE, TuningTable
    ta = _load("table_audit")
    for variant in available_variants():
        known = table_configs(load_variant(variant))
        tabled = {e[1] for e in TuningTable.read(GENERATED_DIR / variant / TUNING_FILE, variant).entries()}
        assert tabled & set(known)
        for name in sorted(tabled & set(known)):
            rows = [{"config": name, "kernel": "replay_decode", "batch": 8, "flag": "stale"},
                    {"config": name, "kernel": "fold", "batch": 256, "flag": "plan"},
                    {"config": name, "kernel": "fold", "batch": 64, "flag": ""}]
            (argv,) = ta.retune_commands(rows, known, 90)
            a = make_parser().parse_args(argv)
            assert (a.variant, a.batches, a.kernels, a.budget_s) == (
                variant, (8, 256), ("fold", "replay_decode"), 90.0), argv
            kern = load(a.variant, config=a.config, L=a.L[0], state_dtype=a.state_dtype[0],
                        record_dtype=a.record_dtype, tuning=False, max_drafts=a.max_drafts,
                        read_dtype=a.read_dtype, fp8_scale=a.fp8_scale, stochastic=a.stochastic,
                        decode_structure=a.decode_structure, verify_folds=a.verify_folds)
            assert kern.name == name, argv
    assert ta.retune_commands([{"config": name, "kernel": "fold", "batch": 1, "flag": ""}], known, 9) == []


def test_flush_tail_places_one_flushing_program_in_L():
    """bench/flush_tail.py's cursor placements: one (row, value head) program in L at L - 1
    (flushing), the rest at L // 2; `first` and `last` are the ends of the launch order
    (grid (rows, heads), rows fastest), `spread` every L-th row with all its heads."""
    ft = _load("flush_tail")
    rows, heads, L = 32, 4, 8
    order = [(r, h) for h in range(heads) for r in range(rows)]   # the grid's launch order
    for placement in ("first", "spread", "last"):
        c = ft.cursors(rows, heads, L, placement)
        assert c.shape == (rows, heads) and c.dtype.is_floating_point is False
        assert set(c.unique().tolist()) == {L // 2, L - 1}
        assert int((c == L - 1).sum()) == rows * heads // L
    flushing = lambda p: [i for i, (r, h) in enumerate(order) if ft.cursors(rows, heads, L, p)[r, h] == L - 1]  # noqa: E731
    assert flushing("first") == list(range(rows * heads // L))
    assert flushing("last") == list(range(rows * heads - rows * heads // L, rows * heads))
    assert all(order[i][0] % L == L - 1 for i in flushing("spread"))
    assert (ft.cursors(rows, heads, L, "none") == L // 2).all() and (ft.cursors(rows, heads, L, "all") == L - 1).all()
    assert ft.parse(["--out", "x", "--variants", "gdn"]).batch == 256


def test_flush_tail_sets_the_launch_order_flags_with_the_cursors():
    """bench/flush_tail.py's single-launch runs set, with the cursors, the launch order's
    flags (Launch.flush_order) of those slots in both epochs' buffers, as the decode before
    would have left them: flagged exactly where value head 0 flushes; other slots' flags
    and cursors untouched."""
    ft = _load("flush_tail")
    kern = load("gdn", H=1, HV=2, K=16, V=16, L=4, tuning=False)
    state = kern.new_state(9, "cpu", A_log=torch.randn(2), dt_bias=torch.randn(2))
    flags = order_flags(state, kern.plan)
    flags[:, 6:] = 1
    c = ft.cursors(6, 2, 4, "spread")
    ft.set_cursors(state, kern.plan, c)
    assert state.cursor[:6].tolist() == c.tolist() and state.cursor[6:].eq(0).all()
    want = [int(n + 1 >= 4) for n in c[:, 0].tolist()] + [1, 1, 1]
    assert sum(want[:6]) == 1 and flags.tolist() == [want, want]


def test_flush_tail_launches_parse_before_any_gpu_time():
    """bench/flush_tail.py --launches: the table's launch, the table's with fields
    replaced, or a Launch of its own; a field that is not a Launch field fails at parse."""
    ft = _load("flush_tail")
    assert ft.parse_launch("tab") == (True, {})
    assert ft.parse_launch("tab+split=2,BV=32,stream_first=0") == (True, {"split": 2, "BV": 32, "stream_first": False})
    assert ft.parse_launch("BV=64,num_warps=1,num_stages=3") == (False, {"BV": 64, "num_warps": 1, "num_stages": 3})
    assert ft.parse(["--out", "x", "--launches", "tab;tab+split=2"]).launch_list == ["tab", "tab+split=2"]
    with pytest.raises(SystemExit, match="'splits' is not a Launch field"):
        ft.parse(["--out", "x", "--launches", "tab;tab+splits=2"])


def test_sass_count_counts_opcodes_lines_and_loops():
    """bench/sass_count.py's parser, on a hand-written nvdisasm listing: opcodes by their
    stem, instructions per source line (the kernel's file named by its stem), and a loop
    as the instructions from a label to the branch back to it (a forward branch is none);
    a conditional branch forward inside a loop is a skip of the instructions up to its
    label (one before the loop is not). Importing it leaves the process interpreting (a
    CPU suite's later tests need that)."""
    interpret = os.environ.get("TRITON_INTERPRET")
    sc = _load("sass_count")
    assert os.environ.get("TRITON_INTERPRET") == interpret
    listing = "\n".join([
        '\t//## File "/x/kda__H32__abc.py", line 10',
        "        /*0000*/                   MOV R1, c[0x0][0x28] ;",
        "        /*0010*/               @P0 BRA `(.L_x_1) ;",
        ".L_x_0:",
        '\t//## File "/y/standard.py", line 263',
        "        /*0020*/                   FADD R2, R2, R3 ;",
        "        /*0030*/              @!P1 FADD.FTZ R2, R2, R4 ;",
        "        /*0038*/              @!P3 BRA `(.L_x_2) ;",
        "        /*0039*/                   FADD R2, R2, R2 ;",
        ".L_x_2:",
        '\t//## File "/x/kda__H32__abc.py", line 12',
        "        /*0040*/                   HMMA.1688.F32.TF32 R4, R8, R12, R4 ;",
        "        /*0050*/               @P2 BRA `(.L_x_0) ;",
        ".L_x_1:",
        "        /*0060*/                   EXIT ;",
    ])
    ops, lines, loops, skips = sc.summarise(listing)
    assert ops == {"MOV": 1, "BRA": 3, "FADD": 3, "HMMA": 1, "EXIT": 1}
    assert lines == {"kda:10": 2, "standard:263": 4, "kda:12": 3}   # (EXIT: the last line seen)
    assert loops == [(".L_x_0", 6)]
    assert skips == [(".L_x_0", 1)]


def test_config_ab_launches_and_configurations_parse_before_any_gpu_time():
    """bench/config_ab.py's launch strings (BV/warps/stages, then flags or k=v fields) and
    configuration strings (load options, record field precisions), as session 37's scripts
    write them: a wrong flag or field fails before any GPU time is spent."""
    from replaygen.tuning import Launch
    ab = _load("config_ab")
    assert ab.launch("tab") is None
    assert ab.launch("64/4/2/sep/mma/fold_warps=4") == Launch(
        64, 4, 2, separate_flush=True, read_mma=True, fold_warps=4)
    assert ab.launch("8/1/1/sep/words/fold_warps=None") == Launch(8, 1, 1, separate_flush=True,
                                                                  read_words=True)
    with pytest.raises(SystemExit, match="not a Launch field"):
        ab.launch("64/4/2/mmaa=1")
    with pytest.raises(SystemExit, match="neither a flag"):
        ab.launch("64/4/2/sep/mmaa")
    kern = ab.load("gdn", "qwen3.5-4b", "read_dtype=fp8+decode_structure=vtiles")
    assert kern.plan.read.kind == "fp8" and kern.plan.vtile_read_mma
    assert ab.load("gdn", "qwen3.5-4b", "").plan.read is None


def test_ncu_phases_splits_the_samples_at_the_first_cp_async(tmp_path):
    """A synthetic ncu source page: two head instructions, the stream's first LDGSTS, a
    barrier; the head and stream totals and the reasons are summed on each side."""
    ncu_phases = _load("ncu_phases")
    header = ["Address", "Source", "Warp Stall Sampling (All Samples)", "Instructions Executed",
              "stall_long_sb", "stall_lg", "stall_long_sb (Not Issued)"]
    rows = [["0x0", "LDG.E R1, desc[UR4][R2.64]", "7", "8", "2", "5", "9"],
            ["0x10", "FMUL R3, R1, R1", "11", "8", "11", "0", "9"],
            ["0x20", "LDGSTS.E.BYPASS.128 [R4], desc[UR4][R6.64]", "3", "64", "1", "2", "9"],
            ["0x30", "BAR.SYNC.DEFER_BLOCKING 0x0", "29", "64", "29", "0", "9"]]
    page = tmp_path / "page.csv"
    page.write_text("\n".join(",".join(f'"{c}"' for c in r)
                              for r in [["Kernel Name", "verify_kernel"], header, *rows]) + "\n")
    text = ncu_phases.summarise(ncu_phases.read_rows(str(page)), top=2)
    assert "50 samples; the stream starts at instruction 2" in text
    assert "head: 18 samples (36.0%), 16 warp instructions executed; long_sb 13, lg 5" in text
    assert "stream: 32 samples (64.0%), 128 warp instructions executed; long_sb 30, lg 2" in text
    assert text.splitlines()[-2].split()[:3] == ["3", "S", "29"]   # the barrier, then the FMUL
    assert text.splitlines()[-1].split()[:3] == ["1", "H", "11"]


def test_merge_tables_takes_each_calls_changed_entries_and_provenance(tmp_path):
    """bench/merge_tables.py: calls chained on one machine each tuned from the committed
    table; the merge takes, in run order, the entries whose launch a call changed (with
    its times), keeps entries a call only re-timed as committed, chains each call's new
    provenance records ahead of the committed ones, and refuses two calls that change one
    entry differently, naming it."""
    import json
    mt = _load("merge_tables")

    def entry(config, BV, ms, **more):
        return {"config": config, "kernel": "replay_decode", "batch": 256, "BV": BV,
                "num_warps": 1, "num_stages": 1, **more, "ms": ms}

    def meta(command, earlier=()):
        return {"gpu": "G", "command": command, "earlier": [{"gpu": "G", "command": c} for c in earlier]}

    base = {"format": 1, "variant": "gdn", "gpus": {"G": {
        "meta": meta("old", ["older"]), "entries": [entry("a", 16, 1.0), entry("b", 16, 2.0)]}}}
    call1 = {"format": 1, "variant": "gdn", "gpus": {"G": {
        "meta": meta("tune a", ["old", "older"]),
        "entries": [entry("a", 32, 0.9), entry("b", 16, 2.1)]}}}          # a changed, b re-timed
    call2 = {"format": 1, "variant": "gdn", "gpus": {"G": {
        "meta": meta("tune b2", ["tune b1", "old", "older"]),
        "entries": [entry("a", 16, 1.01), entry("b", 16, 1.5, head_scores=True)]}}}
    for name, table in (("base", base), ("c1", call1), ("c2", call2)):
        folder = tmp_path / name / "tables"
        folder.mkdir(parents=True)
        (folder / "gdn.json").write_text(json.dumps(table))
    path = tmp_path / "base" / "tables" / "gdn.json"
    assert mt.main(["gdn", str(tmp_path / "c1"), str(tmp_path / "c2"), "--table", str(path)]) == 0
    out = json.loads(path.read_text())["gpus"]["G"]
    assert out["entries"] == [entry("a", 32, 0.9), entry("b", 16, 1.5, head_scores=True)]
    assert [out["meta"]["command"]] + [m["command"] for m in out["meta"]["earlier"]] == [
        "tune b2", "tune b1", "tune a", "old", "older"]
    # nothing changed: the committed table as it was
    again, lines = mt.merge(base, [("c0", base)])
    assert again == base and lines == []
    clash = json.loads(json.dumps(call2))
    clash["gpus"]["G"]["entries"][0] = entry("a", 64, 0.8)
    with pytest.raises(SystemExit, match="a/replay_decode/256 changed by both c1 and c3, differently"):
        mt.merge(base, [("c1", call1), ("c3", clash)])


def test_template_ab_checks_the_conventional_step_of_each_version(device):
    """bench/template_ab.py --kernel conventional_decode: one conventional step per version
    from the same pool and inputs; two launches of one kernel agree exactly, and a
    version whose state update differs is seen in the states."""
    from replaygen.plan import plan_tiles
    from replaygen.tuning import Launch
    ab = _load("template_ab")
    ab.BATCH = 2
    kerns = [load("gdn", H=1, HV=2, K=16, V=16, L=4, tuning=False) for _ in range(3)]
    bv, _, warps = plan_tiles(kerns[0].plan, "conventional_decode")
    kerns[1].forced["conventional_decode"] = Launch(bv // 2, warps, 1)
    wrong = kerns[2].conventional_decode

    def off_by_a_bit(pool, slots, **kw):   # the state written 1% too large
        out = wrong(pool, slots, **kw)
        pool[slots.long()] *= 1.01
        return out
    kerns[2].conventional_decode = off_by_a_bit
    got = ab.check_conventional(kerns, torch.device(device))
    assert got["out"][:2] == [0.0, 0.0] and got["state"][:2] == [0.0, 0.0]
    assert got["state"][2] > 1e-3 and not any(got["nan"])
    assert "conventional_decode" in ab.KERNEL_CHECKS


def test_template_ab_checks_the_snapshot_baseline_of_each_version(device):
    """bench/template_ab.py --kernel conventional_spec: from the same pool and drafts, two
    versions of the snapshot baseline agree exactly; one whose snapshots are off is seen in
    them, and the pool after the install follows from them."""
    ab = _load("template_ab")
    ab.BATCH = 3
    kerns = [load("gdn", H=1, HV=2, K=16, V=16, L=4, max_drafts=3, tuning=False) for _ in range(2)]
    wrong = kerns[1].conventional_verify

    def off_by_a_bit(pool, slots, snapshots, **kw):   # every snapshot 1% too large
        out = wrong(pool, slots, snapshots, **kw)
        snapshots *= 1.01
        return out
    kerns[1].conventional_verify = off_by_a_bit
    got = ab.check_conventional_spec(kerns, torch.device(device))
    assert got["out"] == [0.0, 0.0] and got["snapshots"][0] == 0.0
    assert got["snapshots"][1] > 1e-3 and not any(got["nan"])
    assert "conventional_spec" in ab.KERNEL_CHECKS and "conventional_spec" in ab.SPECULATIVE_KERNELS
