"""Launch configurations as data (replaygen/tuning.py) and their use by the runtime.

* A table is validated on load: every malformed entry is reported with the file, the
  entry and the reason.
* Lookups pick the largest tuned batch <= rows; an untuned GPU, kernel or config falls
  back to the plan's choice (the module's CONSTEXPRS and NUM_WARPS).
* Kernels launched with tuned value tiles (BV smaller and larger than the plan's, so the
  fold switches between tl.dot and the broadcast sum) still match the float64 reference
  through decode, device flushes, explicit flushes and the conventional step: the
  harness checks everything after every operation. The interpreter keys tables by the
  device name "cpu", so a table with "cpu" entries drives these launches here.
* `warmup` compiles through padding rows only: the state is untouched, bit for bit.
"""
from __future__ import annotations

import dataclasses
import json

import pytest
import torch

from harness import ALL_CASES, Config, Harness, Step, same_bits, snapshot
from replaygen import load
from replaygen.emit import GENERATED_DIR, default_configs, orphans, table_configs
from replaygen.errors import ConfigError, TuningError
from replaygen.plan import (MAX_ORDERED_PROGRAMS, MAX_ORDERED_ROWS, decode_is_chunked,
                            launch_constants, plan_tiles, streams_first)
from replaygen.runtime import device_name
from replaygen.spec import available_variants, load_variant
from replaygen.tune import (SPLIT_BASE_PROGRAMS, flush_order_candidates, onepass_flush_candidates,
                            register_caps, split_candidates)
from replaygen.tuning import PINNED_OPTIONS, TUNING_FILE, Launch, TuningTable, bucket, compile_options


def entry(**over):
    e = dict(config="gdn__x", kernel="replay_decode", batch=8, BV=16, num_warps=2, num_stages=3)
    e.update(over)
    return e


def table_json(entries, gpu="NVIDIA H200", variant="gdn"):
    return {"format": 1, "variant": variant, "gpus": {gpu: {"meta": {}, "entries": entries}}}


def with_meta(data, **meta):
    """`data` (table_json's) with these keys in its one GPU's meta."""
    for section in data["gpus"].values():
        section["meta"].update(meta)
    return data


# -- the file -------------------------------------------------------------------------------
def test_round_trip_and_lookup(tmp_path):
    t = TuningTable()
    for b, bv in ((1, 8), (64, 16), (256, 32)):
        t.add("NVIDIA H200", "cfg", "replay_decode", b, Launch(bv, 2, 1), ms=0.1, plan_ms=0.2)
    path = tmp_path / TUNING_FILE
    t.write(path, "gdn")
    back = TuningTable.read(path, "gdn")
    assert list(back.entries()) == list(t.entries())
    got = {rows: back.lookup("cfg", "replay_decode", "NVIDIA H200", rows).BV
           for rows in (1, 7, 63, 64, 255, 256, 4096)}
    assert got == {1: 8, 7: 8, 63: 8, 64: 16, 255: 16, 256: 32, 4096: 32}
    assert back.lookup("cfg", "fold", "NVIDIA H200", 64) is None          # untuned kernel
    assert back.lookup("cfg", "replay_decode", "NVIDIA A100", 64) is None  # untuned GPU
    assert back.lookup("cfg", "replay_decode", None, 64) is None
    assert [bucket(r) for r in (0, 1, 9, 300, 600)] == [1, 1, 8, 256, 512]


def test_split_round_trips_and_is_checked(tmp_path):
    """A value-axis split is stored only when it is not 1, read back, and refused where it
    cannot apply: more programs than value tiles, or a kernel that does not split."""
    back = _stored_only_when_set(tmp_path, "replay_decode", Launch(32, 1, 3, BKT=32, split=4), "split")
    assert back.lookup("cfg", "replay_decode", "G", 1).split == 4
    plan = load("gdn", H=1, HV=1, K=16, V=32, L=2, tuning=False).plan
    assert launch_constants(plan, "replay_decode", 8, 16, 4)["NSPLIT"] == 4
    with pytest.raises(ConfigError, match="split of 8 programs exceeds the 4 value tiles"):
        launch_constants(plan, "replay_decode", 8, 16, 8)
    with pytest.raises(ConfigError, match="only the decode kernel splits"):
        launch_constants(plan, "fold", 8, None, 2)
    with pytest.raises(ConfigError, match="only the decode kernel has a flush to separate"):
        launch_constants(plan, "fold", 8, separate_flush=True)
    assert launch_constants(plan, "replay_decode", 8, 16, stages=2, separate_flush=True)[
        "STREAM_STAGES"] == 2
    sr = load("gdn", H=1, HV=1, K=16, V=32, L=2, state_dtype="fp16", stochastic=True,
              tuning=False).plan
    with pytest.raises(ConfigError, match="does not split rows"):
        launch_constants(sr, "replay_decode", 8, None, 2)



@pytest.mark.parametrize("read,scale", [("nvfp4", None), ("fp8", "tile"), ("fp8", "col")])
def test_value_tiles_of_tile_scaled_copies_are_the_scale_tile(read, scale):
    """Tile and column scales are stored per plan.BV-row tile: a fold, value-tile decode
    or verify launched at another value tile would write them in another layout (the
    decode reads them per plan.BV rows): silent wrong reads, so launch_constants refuses
    (and the tuner's _launchable skips such candidates). Row scales carry no tile."""
    kw = dict(H=1, HV=1, K=32, V=64, L=2, tuning=False, read_dtype=read, fp8_scale=scale)
    plan = load("gdn", **kw).plan
    assert launch_constants(plan, "fold", plan.BV)["NV"] == -(-64 // plan.BV)
    with pytest.raises(ConfigError, match=f"fold value tile {2 * plan.BV} must be the {read} "
                                          f"copy's scale tile, {plan.BV} rows"):
        launch_constants(plan, "fold", 2 * plan.BV)
    rows = load("gdn", **{**kw, "read_dtype": "fp8", "fp8_scale": "row"}).plan
    assert launch_constants(rows, "fold", 2 * rows.BV)["BV"] == 2 * rows.BV


def test_stream_first_round_trips_and_is_checked(tmp_path):
    """Launch.stream_first: kept by a table; taken by the key-chunk decode of scalar decays
    and the value-tile decode of a plain checkpoint (fp32, or fp16 with stochastic
    rounding); refused for another kernel, for key chunks of per-channel decays and for a
    value-tile decode that reads a read copy or a quantised checkpoint."""
    gdn = load("gdn", H=1, HV=2, K=16, V=32, L=4, tuning=False).plan
    assert launch_constants(gdn, "replay_decode", 16, 8, stream_first=True)["STREAM_FIRST"] is True
    assert launch_constants(gdn, "replay_decode", 16, 8)["STREAM_FIRST"] is False
    kda = lambda **o: load("kda", H=1, HV=1, K=16, V=32, L=4, tuning=False, **o).plan   # noqa: E731
    for plan in (kda(), kda(state_dtype="fp16", stochastic=True)):
        assert launch_constants(plan, "replay_decode", 16, stream_first=True)["STREAM_FIRST"] is True
    for plan, kernel in ((gdn, "fold"), (kda(decode_structure="kchunks"), "replay_decode"),
                         (kda(), "fold"), (kda(read_dtype="nvfp4"), "replay_decode"),
                         (kda(state_dtype="fp8"), "replay_decode")):
        with pytest.raises(ConfigError, match="stream first"):
            launch_constants(plan, kernel, 16, 8 if kernel == "replay_decode" and decode_is_chunked(plan)
                             else None, stream_first=True)
    _flag_round_trips(tmp_path, Launch(16, 1, 3, BKT=8, stream_first=True), "stream_first")


def test_head_scores_round_trips_and_is_checked(tmp_path):
    """Launch.head_scores: kept by a table; taken by the key-chunk decode of scalar decays
    (plan.scores_at_head), split or not, its flush fused or separate; refused for another
    kernel, for key chunks of per-channel decays, for value tiles, and with the stream
    first or a one-pass flush (each named)."""
    gdn = load("gdn", H=1, HV=2, K=16, V=32, L=4, tuning=False).plan
    assert gdn.scores_at_head
    assert launch_constants(gdn, "replay_decode", 16, 8, 2, separate_flush=True,
                            head_scores=True)["HEAD_SCORES"] is True
    assert launch_constants(gdn, "replay_decode", 16, 8)["HEAD_SCORES"] is False
    kda = lambda **o: load("kda", H=1, HV=1, K=16, V=32, L=4, tuning=False, **o).plan   # noqa: E731
    for plan, kernel, extra, why in (
            (gdn, "fold", {}, ""), (gdn, "verify", {}, ""),
            (kda(decode_structure="kchunks"), "replay_decode", {}, ""), (kda(), "replay_decode", {}, ""),
            (gdn, "replay_decode", {"stream_first": True}, " streaming first"),
            (gdn, "replay_decode", {"onepass_flush": True}, " folding in one pass")):
        assert not plan.scores_at_head or plan is gdn
        chunked = kernel == "replay_decode" and decode_is_chunked(plan)
        with pytest.raises(ConfigError, match="records' scores at the head, not the "
                                              f"{kernel} kernel of {plan.name}{why}"):
            launch_constants(plan, kernel, 16, 8 if chunked else None, head_scores=True, **extra)
    _flag_round_trips(tmp_path, Launch(16, 1, 3, BKT=8, head_scores=True), "head_scores")


def test_record_block_round_trips_and_is_checked(tmp_path):
    """Launch.record_block: kept by a table (absent when 0); taken by the key-chunk decode
    whose records' code reads only ring fields (plan.record_blocks: GDN, Mamba-2) with
    head_scores and its flush in the fold launch, in powers of two up to the ring tile;
    refused for another kernel, without head_scores, with the flush fused, past the ring
    tile, and for a plan whose records' code reads a token's quantity (each named)."""
    import dataclasses as dc
    gdn = load("gdn", H=1, HV=2, K=16, V=32, L=4, tuning=False).plan
    assert gdn.record_blocks and load("mamba2", tuning=False).plan.record_blocks
    ok = launch_constants(gdn, "replay_decode", 16, 8, separate_flush=True, head_scores=True,
                          record_block=4)
    assert ok["RECORD_BLOCK"] == 4 and launch_constants(gdn, "replay_decode", 16, 8)["RECORD_BLOCK"] == 0
    kda = load("kda", H=1, HV=1, K=16, V=32, L=4, decode_structure="kchunks", tuning=False).plan
    assert not kda.record_blocks
    for plan, kernel, extra, why in (
            (gdn, "fold", {"head_scores": False}, ""),
            (gdn, "replay_decode", {"head_scores": False}, " without head_scores"),
            (gdn, "replay_decode", {"separate_flush": False}, " with its flush fused"),
            (kda, "replay_decode", {"head_scores": False}, " without head_scores")):
        args = {"separate_flush": kernel == "replay_decode", "head_scores": True, **extra}
        with pytest.raises(ConfigError, match=f"walks its records in blocks, not the {kernel} "
                                              f"kernel of {plan.name}{why}"):
            launch_constants(plan, kernel, 16, 8 if kernel == "replay_decode" else None,
                             record_block=4, **args)
    for bad, why in ((3, "must be 0 or a power of two"), (32, "exceeds the ring tile of 16 rows")):
        with pytest.raises(ConfigError, match=why):
            launch_constants(gdn, "replay_decode", 16, 8, separate_flush=True, head_scores=True,
                             record_block=bad)
    # a spec whose records' value code reads a token quantity has no record blocks
    odd = dc.replace(gdn, record_tile_code=gdn.record_tile_code[:-1] + (
        dc.replace(gdn.record_tile_code[-1], expr="r_u * t_beta"),))
    assert not odd.record_blocks
    launch = Launch(16, 1, 3, BKT=8, separate_flush=True, head_scores=True, record_block=8)
    assert "record_block" not in dc.replace(launch, record_block=0).as_dict()
    table = TuningTable()
    table.add("G", "cfg", "replay_decode", 8, launch, ms=1.0)
    path = tmp_path / TUNING_FILE
    table.write(path, "gdn")
    assert TuningTable.read(path, "gdn").lookup("cfg", "replay_decode", "G", 8).record_block == 8


def test_phase_4d_takes_the_records_scores_at_the_head():
    """Phase 4d: at each batch the `keep` fastest launches that do not fold in one pass,
    with head_scores (their stream not first), at their own register cap and at each of
    register_caps(num_warps), and one-warp launches at HEAD_SCORE_CAPS; none already
    timed; nothing for a decode of per-channel decays or of value tiles."""
    from replaygen.tune import HEAD_SCORE_CAPS, head_scores_candidates
    gdn = load("gdn", H=1, HV=2, K=16, V=32, L=4, tuning=False).plan
    a = Launch(64, 1, 3, BKT=32, separate_flush=True, maxnreg=168)
    b = Launch(128, 2, 1, BKT=32, stream_first=True)
    c = Launch(64, 1, 3, BKT=32, onepass_flush=True)
    times = {a: {256: 0.20, 8: 0.02}, b: {256: 0.19, 8: 0.03}, c: {256: 0.10, 8: 0.01}}
    hs = lambda x, cap: dataclasses.replace(x, head_scores=True, stream_first=False, maxnreg=cap)  # noqa: E731
    got = head_scores_candidates(gdn, times, keep=1)
    assert got == ([hs(a, 168)] + [hs(a, cap) for cap in register_caps(1) if cap != 168]   # batch 8
                   + [hs(a, cap) for cap in HEAD_SCORE_CAPS]
                   + [hs(b, None)] + [hs(b, cap) for cap in register_caps(2)])            # batch 256
    times.update({x: {256: 0.3, 8: 0.03} for x in got})
    assert head_scores_candidates(gdn, times, keep=1) == []
    for plan in (load("kda", H=1, HV=1, K=16, V=32, L=4, tuning=False, decode_structure="kchunks").plan,
                 load("kda", H=1, HV=1, K=16, V=32, L=4, tuning=False).plan):
        assert head_scores_candidates(plan, {a: {256: 0.2}}) == []


def test_phase_4e_serves_a_key_groups_value_heads_per_program():
    """Phase 4e: at each batch the `keep` fastest unsplit launches with head_scores and
    one head per program, each with every divisor > 1 of the key group (up to MAX_HEADS);
    none already timed; nothing where the decode does not share its keys' scores."""
    from replaygen.tune import decode_heads_candidates
    plan = load("gdn", H=1, HV=6, K=16, V=32, L=4, tuning=False).plan
    a = Launch(16, 1, 3, BKT=8, head_scores=True)
    b = Launch(16, 1, 3, BKT=8, head_scores=True, split=2)
    c = Launch(32, 1, 3, BKT=8)
    times = {a: {256: 0.3}, b: {256: 0.1}, c: {256: 0.05}}
    got = decode_heads_candidates(plan, times, keep=1)
    assert got == [dataclasses.replace(a, heads=d) for d in (2, 3, 6)]
    times.update({x: {256: 0.2} for x in got})
    assert decode_heads_candidates(plan, times, keep=1) == []
    assert decode_heads_candidates(load("gdn", H=2, HV=2, K=16, V=32, L=4, tuning=False).plan,
                                   {a: {256: 0.3}}) == []   # a key group of one head


def test_onepass_flush_round_trips_and_is_checked(tmp_path):
    """Launch.onepass_flush: kept by a table; taken by the key-chunk decode of a plain
    round-to-nearest checkpoint with scalar decays, its flush fused and its rows unsplit
    (plan.onepass_flushes); refused for another kernel, a read copy, stochastic rounding,
    value tiles, per-channel decays, a separate flush and a split; dropped where the
    runtime raises a split for fewer rows; tried by the tuner's phase 2d on the best
    unsplit launches at their own register cap and the caps that fit more programs."""
    gdn = lambda **o: load("gdn", H=1, HV=2, K=16, V=32, L=4, tuning=False, **o).plan   # noqa: E731
    plan = gdn()
    assert plan.onepass_flushes and launch_constants(plan, "replay_decode", 16, 8, onepass_flush=True)[
        "ONEPASS_FLUSH"] is True
    assert launch_constants(plan, "replay_decode", 16, 8)["ONEPASS_FLUSH"] is False
    kda = load("kda", H=1, HV=1, K=16, V=32, L=4, tuning=False, decode_structure="kchunks").plan
    refused = [(plan, "fold", {}), (plan, "replay_decode", {"separate_flush": True}),
               (plan, "replay_decode", {"split": 2}), (gdn(read_dtype="fp8"), "replay_decode", {}),
               (gdn(state_dtype="fp16", stochastic=True), "replay_decode", {}),
               (gdn(decode_structure="vtiles"), "replay_decode", {}), (kda, "replay_decode", {})]
    for p, kernel, extra in refused:
        assert not (p.onepass_flushes and kernel == "replay_decode" and not extra)
        with pytest.raises(ConfigError, match="folds in one pass"):
            launch_constants(p, kernel, 16, 8 if kernel == "replay_decode" and decode_is_chunked(p)
                             else None, onepass_flush=True, **extra)
    one = Launch(16, 1, 3, BKT=8, onepass_flush=True)
    assert one.for_fewer_rows(plan, 256, 1).split > 1 and not one.for_fewer_rows(plan, 256, 1).onepass_flush
    table = TuningTable()
    table.add("G", "cfg", "replay_decode", 8, one, ms=1.0)
    path = tmp_path / TUNING_FILE
    table.write(path, "gdn")
    assert TuningTable.read(path, "gdn").lookup("cfg", "replay_decode", "G", 8).onepass_flush is True
    data = json.loads(path.read_text())
    data["gpus"]["G"]["entries"][0]["kernel"] = "fold"
    path.write_text(json.dumps(data))
    with pytest.raises(TuningError, match="'onepass_flush' is true or absent, and only for replay_decode"):
        TuningTable.read(path, "gdn")
    fast, slow, split = Launch(16, 1, 3, BKT=8), Launch(32, 2, 3, BKT=8), Launch(16, 1, 3, BKT=8, split=2)
    cands = onepass_flush_candidates(plan, {fast: {256: 1.0}, slow: {256: 2.0}, split: {256: 0.5}}, keep=1)
    assert cands == [dataclasses.replace(fast, onepass_flush=True, maxnreg=c)
                     for c in (None, *register_caps(1))]
    assert onepass_flush_candidates(gdn(read_dtype="fp8"), {fast: {256: 1.0}}) == []
    # nor from a launch whose records' scores are taken at the head (launch_constants)
    heads = dataclasses.replace(fast, head_scores=True, BV=8)
    assert onepass_flush_candidates(plan, {heads: {256: 0.5}, fast: {256: 1.0}}, keep=1) == cands


def test_flush_order_round_trips_and_is_checked(tmp_path):
    """Launch.flush_order: kept by a table (absent: grid order); taken by the key-chunk
    decode with its flush fused, as a power of two; refused for another kernel, value
    tiles, a separate flush and a spacing that is no power of two; ROWS_P2 set by the
    runtime from the launch's rows, the choice dropped past MAX_ORDERED_ROWS rows or
    MAX_ORDERED_PROGRAMS programs; tried
    by the tuner's phase 2e on the best launches in grid order."""
    gdn = lambda **o: load("gdn", H=1, HV=2, K=16, V=32, L=4, tuning=False, **o)   # noqa: E731
    kern = gdn()
    plan = kern.plan
    consts = launch_constants(plan, "replay_decode", 16, 8, flush_order=2)
    assert (consts["FLUSH_ORDER"], consts["ROWS_P2"]) == (2, 1)
    assert launch_constants(plan, "replay_decode", 16, 8)["FLUSH_ORDER"] == 0
    refused = [(plan, "fold", {}, 1), (plan, "replay_decode", {"separate_flush": True}, 1),
               (gdn(decode_structure="vtiles").plan, "replay_decode", {}, 1),
               (plan, "replay_decode", {}, 3), (plan, "replay_decode", {}, True)]
    for p, kernel, extra, order in refused:
        with pytest.raises(ConfigError, match="flush order must be|orders its flushing programs"):
            launch_constants(p, kernel, 16, 8 if kernel == "replay_decode" and decode_is_chunked(p)
                             else None, flush_order=order, **extra)
    launch = Launch(16, 1, 3, BKT=8, flush_order=4)
    for rows, want in ((1, (4, 1)), (5, (4, 8)), (256, (4, 256)), (MAX_ORDERED_ROWS + 1, (0, 1))):
        c = kern.launch_args("replay_decode", rows, "cpu", launch)[0]
        assert (c["FLUSH_ORDER"], c["ROWS_P2"]) == want, rows
    # the epoch word counts a launch's programs in 24 bits: a launch of more keeps grid order
    wide = load("gdn", H=1, HV=1 << 14, K=16, V=32, L=4, tuning=False)
    for rows, order in ((MAX_ORDERED_ROWS - 1, 4), (MAX_ORDERED_ROWS, 0)):
        assert (rows * (1 << 14) <= MAX_ORDERED_PROGRAMS) == bool(order)
        assert wide.launch_args("replay_decode", rows, "cpu", launch)[0]["FLUSH_ORDER"] == order
    table = TuningTable()
    table.add("G", "cfg", "replay_decode", 8, launch, ms=1.0)
    path = tmp_path / TUNING_FILE
    table.write(path, "gdn")
    assert TuningTable.read(path, "gdn").lookup("cfg", "replay_decode", "G", 8).flush_order == 4
    data = json.loads(path.read_text())
    data["gpus"]["G"]["entries"][0]["flush_order"] = 3
    path.write_text(json.dumps(data))
    with pytest.raises(TuningError, match="'flush_order' is a power of two <= 64"):
        TuningTable.read(path, "gdn")
    fast, slow = Launch(16, 1, 3, BKT=8), Launch(32, 2, 3, BKT=8)
    assert flush_order_candidates(plan, {fast: {256: 1.0}, slow: {256: 2.0}}, keep=1) == [
        dataclasses.replace(fast, flush_order=s) for s in (1, 2, 4)]
    assert flush_order_candidates(gdn(decode_structure="vtiles").plan, {fast: {256: 1.0}}) == []
    # a launch with its flush separate gets no order (launch_constants refuses it one)
    separate = dataclasses.replace(fast, separate_flush=True)
    assert flush_order_candidates(plan, {separate: {256: 0.5}, slow: {256: 2.0}}, keep=1) == [
        dataclasses.replace(slow, flush_order=s) for s in (1, 2, 4)]


def test_verify_heads_round_trip_and_are_checked(tmp_path):
    """Value heads per verify program are stored only when not 1, read back, refused in a
    file for other kernels, and refused by launch_constants where they do not divide the
    key group or the kernel is not the key-chunked verify."""
    back = _stored_only_when_set(tmp_path, "verify", Launch(32, 1, 2, BKT=32, heads=2), "heads")
    assert back.lookup("cfg", "verify", "G", 1).heads == 2
    with pytest.raises(TuningError, match="'heads' is a positive integer, and only for verify or replay_decode"):
        TuningTable().add("G", "cfg", "fold", 1, Launch(32, 1, 2, heads=2))
    plan = load("gdn", H=2, HV=12, K=16, V=32, L=2, max_drafts=2, tuning=False).plan
    assert launch_constants(plan, "verify", 16, 16, heads=3)["HPP"] == 3
    assert launch_constants(plan, "verify", 16, 16)["HPP"] == 1
    with pytest.raises(ConfigError, match="4 value heads per program do not divide the key group of 6"):
        launch_constants(plan, "verify", 16, 16, heads=4)
    with pytest.raises(ConfigError, match="only the key-chunked verify, and the key-chunk decode"):
        launch_constants(plan, "fold", 16, heads=2)


def test_decode_heads_round_trip_and_are_checked(tmp_path):
    """Value heads per key-chunk decode program (plan.decode_shares_keys): taken with
    head_scores and unsplit rows, a divisor of the key group; refused without head_scores,
    with a split, for value tiles, for per-channel decays (KDA, whose key group is one
    head anyway at H = HV, and at H < HV too) and where they do not divide the group, each
    named; stored in a table only when not 1."""
    back = _stored_only_when_set(tmp_path, "replay_decode",
                                 Launch(16, 1, 2, BKT=8, head_scores=True, heads=3), "heads")
    assert back.lookup("cfg", "replay_decode", "G", 1).heads == 3
    gdn = lambda **o: load("gdn", H=2, HV=12, K=16, V=32, L=4, tuning=False, **o).plan  # noqa: E731
    plan = gdn()
    assert plan.decode_shares_keys and [st.target for st in plan.key_head_code][-2:] == ["t_query", "t_key"]
    assert launch_constants(plan, "replay_decode", 16, 8, head_scores=True, heads=6)["HPP"] == 6
    for extra, why in (({}, " without head_scores"), ({"head_scores": True, "split": 2}, " split 2 ways")):
        with pytest.raises(ConfigError, match=f"not the replay_decode kernel of {plan.name}{why}"):
            launch_constants(plan, "replay_decode", 16, 8, heads=2, **extra)
    with pytest.raises(ConfigError, match="4 value heads per program do not divide the key group of 6"):
        launch_constants(plan, "replay_decode", 16, 8, head_scores=True, heads=4)
    kda = load("kda", H=2, HV=4, K=16, V=32, L=4, tuning=False, decode_structure="kchunks").plan
    for p, kernel_plan in ((gdn(decode_structure="vtiles"), "vtiles"), (kda, "kda")):
        assert not p.decode_shares_keys, kernel_plan
        with pytest.raises(ConfigError, match="serve several value heads per program"):
            launch_constants(p, "replay_decode", 16, 8 if decode_is_chunked(p) else None,
                             heads=2)

def test_split_candidates_extend_the_fastest_small_batch_launches():
    plan = load("gdn", H=1, HV=1, K=16, V=32, L=2, tuning=False).plan
    times = {Launch(8, 1, 3, 16): {1: 3.0, 256: 1.0}, Launch(16, 1, 3, 16): {1: 1.0, 256: 2.0},
             Launch(32, 1, 3, 16): {1: 2.0, 256: 3.0}}
    got = split_candidates(plan, times, keep=2)
    # fastest at batch 1: BV 16 (2 tiles: split 2; or 8-row tiles, 4 of them: split 2),
    # then BV 32 (1 tile: split only with 16- or 8-row tiles); never below 8 rows
    assert got == [Launch(16, 1, 3, 16, 2), Launch(8, 1, 3, 16, 2), Launch(8, 1, 3, 16, 4)]
    # a value-tile decode splits too, unless its state has a format the split cannot walk
    vt = load("kda", H=1, HV=1, K=16, V=32, L=2, tuning=False).plan
    assert split_candidates(vt, {Launch(16, 1, 3): {1: 1.0}}) == [Launch(16, 1, 3, None, 2),
                                                                  Launch(8, 1, 3, None, 2)]
    sr = load("kda", H=1, HV=1, K=16, V=32, L=2, state_dtype="fp16", stochastic=True,
              tuning=False).plan
    assert split_candidates(sr, times) == []
    # the launch's other choices stay; no split past MAX_SPLIT_PROGRAMS programs at the
    # smallest batch (GLA-like: 4 value heads, 32 tiles of 16 rows)
    few = load("gla", H=4, HV=4, K=16, V=512, L=2, tuning=False).plan
    first = Launch(16, 8, 3, stream_first=True, maxnreg=128)
    got = split_candidates(few, {first: {1: 1.0}}, keep=1)
    assert {c.split for c in got} == {2, 4, 8, 16, 32}
    assert all(c.stream_first and c.maxnreg == 128 for c in got)
    assert max(c.split for c in split_candidates(few, {first: {64: 1.0}}, keep=1)) == 8
    # none where the smallest batch already has more than SPLIT_BASE_PROGRAMS programs
    many = load("gdn", H=1, HV=32, K=16, V=32, L=2, tuning=False).plan
    assert split_candidates(many, {Launch(16, 1, 3, 16): {32: 1.0}})
    assert 33 * many.HV > SPLIT_BASE_PROGRAMS >= 32 * many.HV
    assert split_candidates(many, {Launch(16, 1, 3, 16): {33: 1.0, 256: 1.0}}) == []


def test_verify_is_tuned_for_speculative_configurations():
    """A configuration built for drafts is tuned for its verify kernel (key chunks for
    GDN: the plan's launch first, then [DBV, BKT] chunks) and its commits' fold ([64, K]
    tiles included, as for a plain configuration); the others for the three decode
    kernels; a verify entry is a valid table entry and drives verify's launch. With
    plan.VERIFY_FOLDS the launch of the verify's folding rows (verify_fold) is tuned too,
    with the verify's candidates; untuned, it takes the verify's launch. Without it the
    commit's launch of the fold kernel is tuned on its own (with verify_folds a commit
    only moves records), with the fold's candidates; untuned, it takes the fold's."""
    from replaygen.tune import Job, candidates
    spec_kern = load("gdn", H=1, HV=2, K=32, V=32, L=4, max_drafts=4, tuning=False)
    job = Job("gdn", "x", spec_kern)
    assert job.kernels == ("verify", "fold", "commit")
    assert set(job.plan_launch) == {"verify", "fold", "commit"}
    assert job.plan_launch["commit"] == job.plan_launch["fold"]
    assert candidates(spec_kern.plan, "commit") == candidates(spec_kern.plan, "fold")
    folding = load("gdn", H=1, HV=2, K=32, V=32, L=4, max_drafts=4, verify_folds=True,
                   tuning=False)
    assert folding.plan.VERIFY_FOLDS and folding.name == spec_kern.name.replace("__T4", "__T4vf")
    assert Job("gdn", "z", folding).kernels == ("verify", "verify_fold", "fold")
    assert candidates(folding.plan, "verify_fold") == candidates(folding.plan, "verify")
    assert job.load_kwargs()["max_drafts"] == 4
    cands = candidates(spec_kern.plan, "verify")
    assert cands[0] == job.plan_launch["verify"] and len(cands) > 1
    assert all(c.BKT is not None for c in cands[1:])
    wide = load("gdn", H=1, HV=2, K=32, V=128, L=4, max_drafts=4, tuning=False)
    folds = candidates(wide.plan, "fold")
    assert folds and max(c.BV for c in folds) == 64
    assert max(c.BV for c in candidates(load("gdn", H=1, HV=2, K=32, V=128, L=4,
                                                  tuning=False).plan, "fold")) == 64
    assert Job("gdn", "y", load("gdn", H=1, HV=2, K=32, V=32, L=4, tuning=False)).kernels == (
        "replay_decode", "fold", "conventional_decode")
    t = TuningTable()
    t.add("G", spec_kern.name, "verify", 1, Launch(16, 2, 3, BKT=16))
    spec_kern.tuning = t
    got = spec_kern.launch_args("verify", 1, "cpu", launch=t.lookup(spec_kern.name, "verify", "G", 1))
    assert got[0]["DBV"] == 16 and got[0]["BKT"] == 16 and got[1]["num_warps"] == 2
    # the plain rows' verify of a verify_folds configuration: untuned, the launch of the
    # same configuration without verify_folds (the same kernel but for CAP and RING)
    cpu = TuningTable()   # ("cpu": the device name the interpreter's launches look up)
    cpu.add("cpu", spec_kern.name, "verify", 1, Launch(16, 2, 3, BKT=16))
    folding.tuning = cpu
    assert folding.launch_args("verify", 1, "cpu")[1]["num_warps"] == 2
    cpu.add("cpu", folding.name, "verify", 1, Launch(32, 4, 3, BKT=32))
    folding._launches.clear()
    assert folding.launch_args("verify", 1, "cpu")[1]["num_warps"] == 4
    # the folding rows' launch: the verify's while untuned, its own entry once tuned
    folding.forced["verify"] = Launch(16, 2, 3, BKT=16)
    assert folding.launch_args("verify_fold", 1, "cpu") == folding.launch_args("verify", 1, "cpu")
    folding.forced["verify_fold"] = Launch(32, 4, 2, BKT=32)
    got = folding.launch_args("verify_fold", 1, "cpu")
    assert (got[0]["DBV"], got[0]["BKT"], got[1]["num_warps"]) == (32, 32, 4)
    # the commit's launch: the fold's while untuned (a forced one too), its own entry once tuned
    spec_kern.tuning = cpu
    spec_kern.forced["fold"] = Launch(16, 2, 3)
    assert spec_kern.launch_args("commit", 1, "cpu") == spec_kern.launch_args("fold", 1, "cpu")
    cpu.add("cpu", spec_kern.name, "commit", 1, Launch(32, 8, 2))
    spec_kern._launches.clear()
    got = spec_kern.launch_args("commit", 1, "cpu")
    assert (got[0]["BV"], got[0]["NV"], got[1]["num_warps"], got[1]["num_stages"]) == (32, 1, 8, 2)


def test_merge_replaces_same_keys():
    a, b = TuningTable(), TuningTable()
    a.add("G", "cfg", "fold", 8, Launch(16, 2, 1))
    a.add("G", "cfg", "fold", 64, Launch(16, 2, 1))
    b.add("G", "cfg", "fold", 8, Launch(32, 4, 2))
    a.merge(b)
    assert a.lookup("cfg", "fold", "G", 8) == Launch(32, 4, 2)
    assert a.lookup("cfg", "fold", "G", 64) == Launch(16, 2, 1)


@pytest.mark.parametrize("data,where,reason", [
    ([], "top level", "JSON object"),
    ({"format": 2, "variant": "gdn", "gpus": {}}, "format", "must be 1"),
    (table_json([], variant="kda"), "variant", "expected 'gdn'"),
    ({**table_json([]), "extra": 1}, "top level", "unknown keys ['extra']"),
    (table_json([entry(kernel="decode")]), "entries[0]", "'kernel' must be one of"),
    (table_json([entry(BV=24)]), "entries[0]", "'BV' must be a power of two"),
    (table_json([entry(num_warps=64)]), "entries[0]", "'num_warps' must be a power of two"),
    (table_json([entry(num_stages=0)]), "entries[0]", "'num_stages' must be an integer"),
    (table_json([entry(batch=True)]), "entries[0]", "'batch' must be an integer"),
    (table_json([entry(), entry(BV=32)]), "entries[1]", "duplicate entry"),
    (table_json([{k: v for k, v in entry().items() if k != "num_warps"}]), "entries[0]",
     "missing keys ['num_warps']"),
    (table_json([entry(ms=-1.0)]), "entries[0]", "'ms' must be a positive number"),
    (table_json([entry(split=3)]), "entries[0]", "'split' must be a power of two"),
    (table_json([entry(separate_flush=False)]), "entries[0]", "'separate_flush' is true or absent"),
    (table_json([entry(kernel="fold", separate_flush=True)]), "entries[0]",
     "only for replay_decode, got True for 'fold'"),
    (table_json([entry(maxnreg=8)]), "entries[0]", "'maxnreg' must be an integer register count"),
    (table_json([entry(maxnreg=128.0)]), "entries[0]", "'maxnreg' must be an integer register count"),
    (table_json([entry(fold_warps=3)]), "entries[0]", "'fold_warps' is a power of two"),
    (table_json([entry(fold_stages=0)]), "entries[0]", "'fold_stages' is an integer in 1..8"),
    (table_json([entry(record_block=3)]), "entries[0]", "'record_block' is a power of two <= 256"),
    (table_json([entry(kernel="fold", record_block=4)]), "entries[0]",
     "'record_block' is a power of two <= 256 (absent: whole-ring tiles), and only for replay_decode"),
    (table_json([entry(kernel="fold", fold_stages=2)]), "entries[0]",
     "'fold_stages' is an integer in 1..8, and only for replay_decode"),
    (table_json([entry(kernel="fold", fold_warps=4)]), "entries[0]",
     "only for replay_decode, got 4 for 'fold'"),
    (table_json([entry(fold_split=6)]), "entries[0]", "'fold_split' is a power of two"),
    (table_json([entry(kernel="fold", fold_split=2)]), "entries[0]",
     "only for replay_decode, got 2 for 'fold'"),
    (table_json([entry(fold_programs=0)]), "entries[0]", "'fold_programs' is an integer in 1..32"),
    (table_json([entry(fold_programs=33)]), "entries[0]", "'fold_programs' is an integer in 1..32"),
    (table_json([entry(fold_programs=True)]), "entries[0]", "'fold_programs' is an integer in 1..32"),
    (table_json([entry(kernel="fold", fold_programs=8)]), "entries[0]",
     "(programs per multiprocessor), and only for replay_decode, got 8 for 'fold'"),
    (with_meta(table_json([entry()]), capability=9.0), "meta.capability",
     'must be a compute capability "major.minor", got 9.0'),
    (with_meta(table_json([entry()]), multiprocessors=0), "meta.multiprocessors",
     "must be an integer >= 1, got 0"),
])
def test_invalid_tables_name_file_entry_and_reason(tmp_path, data, where, reason):
    path = tmp_path / TUNING_FILE
    path.write_text(json.dumps(data))
    with pytest.raises(TuningError) as err:
        TuningTable.read(path, "gdn")
    msg = str(err.value)
    assert str(path) in msg and where in msg and reason in msg, msg


def test_not_json_is_reported_with_its_line(tmp_path):
    path = tmp_path / TUNING_FILE
    path.write_text('{"format": 1,\n "gpus": }')
    with pytest.raises(TuningError, match=r"line 2.*not valid JSON"):
        TuningTable.read(path)


def test_a_broken_table_given_to_load_is_reported(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(table_json([entry(BV=3)])))
    with pytest.raises(TuningError, match="'BV' must be a power of two"):
        load("gdn", H=1, HV=1, K=4, V=4, L=2, tuning=path)


# -- generated tree -------------------------------------------------------------------------
def test_committed_constants_follow_launch_constants():
    """The tile constants in every committed module are exactly what launch_constants
    derives from the plan's own tiles, for each kernel: tuned launches use the same
    function, so a table entry equal to the plan's choice launches the plan's code."""
    for v in available_variants():
        for cfg in default_configs(load_variant(v)):
            kern = load(v, L=cfg.buffer_length, state_dtype=cfg.state_dtype,
                        record_dtype=cfg.record_dtype, tuning=False, **cfg.dim_map)
            c, p = kern.module.CONSTEXPRS, kern.plan
            for kernel in ("replay_decode", "fold", "conventional_decode"):
                bv, bkt, warps = plan_tiles(p, kernel)
                derived = launch_constants(p, kernel, bv, bkt)
                assert {k: c[k] for k in derived} == derived, (cfg.name, kernel)
                consts, launch = kern.launch_args(kernel, 4, "cpu")
                assert consts == c and launch["num_warps"] == warps, (cfg.name, kernel)


def test_committed_tables_are_valid():
    """Every committed table reads, and each tuned GPU's meta names its compute capability
    and multiprocessors, so that GPUs without entries of their own find it as a stand-in
    (an H100 takes the H200's launches)."""
    for v in available_variants():
        path = GENERATED_DIR / v / TUNING_FILE
        if path.is_file():
            table = TuningTable.read(path, v)
            for gpu in table.gpus():
                assert {"capability", "multiprocessors"} <= set(table.meta[gpu]), (v, gpu)


def test_tuning_file_is_not_an_orphan(tmp_path):
    (tmp_path / TUNING_FILE).write_text("{}")
    (tmp_path / "stray.py").write_text("")
    assert [p.name for p in orphans(tmp_path, set())] == ["stray.py"]


def test_overrides_pin_the_launch():
    t = TuningTable()
    kern = load("gdn", H=1, HV=1, K=16, V=32, L=2, tuning=t)
    t.add(device_name(torch.device("cpu")), kern.name, "replay_decode", 1, Launch(8, 1, 1))
    assert kern.launch_args("replay_decode", 4, "cpu")[0]["DBV"] == 8    # key-chunked decode
    pinned = load("gdn", H=1, HV=1, K=16, V=32, L=2, block_v=32, num_warps=4)
    assert pinned.tuning is None and pinned.name.endswith("__bv32_w4")
    consts, launch = pinned.launch_args("replay_decode", 4, "cpu")
    assert consts["DBV"] == 32 and consts["DNV"] == 1 and launch == compile_options(4)
    consts, launch = pinned.launch_args("fold", 4, "cpu")
    assert consts["BV"] == 32 and consts["NV"] == 1 and launch == compile_options(4)
    assert load("gdn", H=1, HV=1, K=16, V=32, L=2, tuning=False).tuning is None


def test_tuning_gpu_names_another_gpus_table(monkeypatch):
    """REPLAYGEN_TUNING_GPU looks launches up under another GPU's name (an H100 reading the
    H200's tables); unset, a GPU with no entries of its own and no stand-in (the H200's
    meta names no compute capability here) gets the plan's launch."""
    t = TuningTable()
    t.add("NVIDIA H200", load("gdn", H=1, HV=1, K=16, V=32, L=2).name, "replay_decode", 1,
          Launch(8, 1, 1))
    monkeypatch.delenv("REPLAYGEN_TUNING_GPU", raising=False)
    assert load("gdn", H=1, HV=1, K=16, V=32, L=2, tuning=t).launch_args(
        "replay_decode", 4, "cpu")[0]["DBV"] != 8
    monkeypatch.setenv("REPLAYGEN_TUNING_GPU", "NVIDIA H200")   # (read as launches are chosen)
    assert load("gdn", H=1, HV=1, K=16, V=32, L=2, tuning=t).launch_args(
        "replay_decode", 4, "cpu")[0]["DBV"] == 8


def test_stand_ins_are_tuned_gpus_of_the_same_capability():
    """A GPU's lookup order: its own name, then the tuned GPUs of its compute capability,
    the nearest in multiprocessors first (ties by name). A GPU with a meta but no entries,
    or whose meta names no capability, stands in for nobody."""
    t = TuningTable()
    for gpu, cap, sms in (("h200", "9.0", 132), ("h20", "9.0", 78), ("a100", "8.0", 108),
                          ("twin", "9.0", 78), ("untuned", "9.0", 132), ("anonymous", None, 132)):
        if gpu != "untuned":
            t.add(gpu, "cfg", "replay_decode", 256, Launch(16, 1, 3))
        t.meta[gpu] = {"capability": cap, "multiprocessors": sms} if cap else {}
    assert t.stand_ins("h100", "9.0", 132) == ["h100", "h200", "h20", "twin"]
    assert t.stand_ins("card114", "9.0", 114) == ["card114", "h200", "h20", "twin"]   # 18 from 132, 36 from 78
    assert t.stand_ins("card100", "9.0", 100) == ["card100", "h20", "twin", "h200"]   # 22, 22, 32
    assert t.stand_ins("h20", "9.0", 132) == ["h20", "h200", "twin"]
    assert t.stand_ins("card108", "8.0", 108) == ["card108", "a100"]
    assert t.stand_ins("card84", "8.6", 84) == ["card84"]
    del t.meta["h200"]["capability"]
    assert t.stand_ins("h100", "9.0", 132) == ["h100", "h20", "twin"]


def test_launches_on_a_device_without_an_entry_take_its_stand_ins(monkeypatch):
    """The runtime looks a launch up under the device's own name, then its stand-ins' (the
    interpreter's device type is its capability, one multiprocessor), per configuration
    and kernel: another "GPU" of the same capability serves what the device has no entry
    for, and Kernels.tuned_gpu names whose entry each kernel takes; of another
    capability, the plan's launch."""
    monkeypatch.delenv("REPLAYGEN_TUNING_GPU", raising=False)
    kern = load("gdn", H=1, HV=1, K=16, V=32, L=2, tuning=False)
    plan = {k: kern.launch_args(k, 4, "cpu")[0] for k in ("replay_decode", "fold")}
    dbv = 8 if plan["replay_decode"]["DBV"] != 8 else 16
    bv = 8 if plan["fold"]["BV"] != 8 else 16
    for cap, stood_in in (("cpu", True), ("9.0", False)):
        t = TuningTable()
        t.add("cpu twin", kern.name, "replay_decode", 1, Launch(dbv, 1, 1))
        t.add("cpu twin", kern.name, "fold", 1, Launch(32, 1, 1))
        t.add("cpu", kern.name, "fold", 1, Launch(bv, 1, 1))   # the device's own: first
        t.meta["cpu twin"] = {"capability": cap, "multiprocessors": 1}
        tuned = load("gdn", H=1, HV=1, K=16, V=32, L=2, tuning=t)
        assert tuned.launch_args("replay_decode", 4, "cpu")[0]["DBV"] == (
            dbv if stood_in else plan["replay_decode"]["DBV"])
        assert tuned.launch_args("fold", 4, "cpu")[0]["BV"] == bv
        assert tuned.tuned_gpu("cpu") == ("cpu twin" if stood_in else None)
        assert tuned.tuned_gpu("cpu", "fold") == "cpu"
        assert tuned.tuned_gpu("cpu", "commit") is None
    assert kern.tuned_gpu("cpu") is None


def test_a_device_with_entries_at_some_batches_keeps_its_stand_ins_at_the_others(monkeypatch):
    """The device's own entries and its stand-ins' pool their batch buckets
    (TuningTable.serving_order): a launch takes the entry of the largest tabled batch <=
    rows among all of them (the smallest above, below them all), the device's own at equal
    batches. An H100 swept at batch 256 only ran its batch-256 launch, split raised, at
    batch 1 (and at 512) where the H200 has launches tuned for those sizes."""
    monkeypatch.delenv("REPLAYGEN_TUNING_GPU", raising=False)
    kern = load("gdn", H=1, HV=1, K=16, V=32, L=2, tuning=False)
    t = TuningTable()
    # distinct value tiles name each entry: the device's own at 4 and 8, the twin's at 2, 8, 16
    own = {4: Launch(8, 1, 1), 8: Launch(16, 1, 2)}
    twin = {2: Launch(32, 1, 1), 8: Launch(32, 1, 2), 16: Launch(16, 2, 1)}
    for b, launch in own.items():
        t.add("cpu", kern.name, "fold", b, launch)
    for b, launch in twin.items():
        t.add("cpu twin", kern.name, "fold", b, launch)
    t.meta["cpu twin"] = {"capability": "cpu", "multiprocessors": 1}
    tuned = load("gdn", H=1, HV=1, K=16, V=32, L=2, tuning=t)
    expect = {1: ("cpu twin", 2), 2: ("cpu twin", 2), 3: ("cpu twin", 2), 4: ("cpu", 4),
              7: ("cpu", 4), 8: ("cpu", 8), 15: ("cpu", 8), 16: ("cpu twin", 16), 99: ("cpu twin", 16)}
    for rows, (gpu, batch) in expect.items():
        launch = (own if gpu == "cpu" else twin)[batch]
        assert tuned.tuned_gpu("cpu", "fold", rows) == gpu, rows
        assert tuned.tabled_launch("fold", rows, "cpu") == launch, rows
        assert tuned.launch_args("fold", rows, "cpu")[0]["BV"] == launch.BV, rows
    # below every bucket the smallest tabled batch serves, the device's own at a tie
    t.add("cpu", kern.name, "fold", 2, Launch(8, 2, 2))
    tuned = load("gdn", H=1, HV=1, K=16, V=32, L=2, tuning=t)
    assert tuned.tuned_gpu("cpu", "fold", 1) == "cpu"
    assert tuned.tabled_launch("fold", 1, "cpu") == Launch(8, 2, 2)
    assert TuningTable.serving_order([("a", 64), ("b", 1), ("c", 512), ("d", 64)], 100) == [
        ("a", 64), ("d", 64), ("b", 1), ("c", 512)]


# -- tuned launches are correct ---------------------------------------------------------------
@pytest.mark.parametrize("variant,structure,chunked", [
    ("gdn", None, True), ("mamba2", None, True), ("kda", "kchunks", True), ("kda", None, False)])
def test_tuned_launches_match_the_reference(variant, structure, chunked, device):
    """V = 20 with tuned value tiles 8, 16 and 32 (2-3 tiles, or one masked tile; the dot
    fold off for 8) and, for the key-chunked decode kernel (gdn; kda's cumulative gate
    records forced into key chunks; its default is value tiles), key chunks 8 and 16, different per kernel and per batch
    bucket (launches of 2 and 3 rows), and a value-axis split of the decode with its flush
    in a separate fold launch (2 rows; that fold at 4 warps, Launch.fold_warps, its tile loop
    pipelined 2 deep, Launch.fold_stages), so rings
    fill and fold both ways. The key-chunk decodes of scalar decays (gdn, with the delta
    rule's second probe; mamba2) stream first (Launch.stream_first) in all three: 2 value
    tiles per program at 3 rows (the flush fused, so the second tile's stream and fold use
    the decays the first tile's computed), 2 of a split program's at 2, 1 at 1; so does
    kda's value-tile decode (its first tiles prefetched into L2: nothing in the
    interpreter, which checks that the launch computes the same)."""
    cfg = Config(variant, H=1, ratio=2, K=16, V=20, L=3, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16",
                 optional=ALL_CASES[variant].optional_inputs, decode_structure=structure)
    h = Harness(cfg, num_slots=3, device=device, seed=17)
    gpu = device_name(torch.device(device))
    table = TuningTable()
    name = h.kern.name
    # 2-row launches split each (row, value head) over 2 programs (3 tiles: tiles 0 and 2
    # in one, 1 in the other), so rows flush and publish cursors shared (both structures);
    # their fold launch splits each queued block over 2 programs too (the fold's 3 tiles
    # of 8 rows)
    first = streams_first(h.kern.plan)
    assert first is (variant != "kda" or not chunked)
    table.add(gpu, name, "replay_decode", 2, Launch(8, 1, 1, split=2, separate_flush=True,
                                                    fold_warps=4, fold_split=2, stream_first=first,
                                                    fold_stages=2))
    table.add(gpu, name, "replay_decode", 1, Launch(32, 1, 1, BKT=8, stream_first=first))
    table.add(gpu, name, "replay_decode", 3, Launch(16, 2, 2, BKT=8, stream_first=first))
    table.add(gpu, name, "fold", 1, Launch(8, 2, 1, maxnreg=128))   # a register cap too
    table.add(gpu, name, "conventional_decode", 1, Launch(16, 1, 1))
    h.kern.tuning = table
    h.kern._launches.clear()
    assert decode_is_chunked(h.kern.plan) == chunked, "the test means to cover both structures"
    dot, passes = ("DECODE_FOLD_DOT", "DNV") if chunked else ("FOLD_DOT", "NV")
    assert h.kern.launch_args("replay_decode", 2, device)[0][dot] is False
    assert h.kern.launch_args("replay_decode", 1, device)[0][passes] == 1
    assert h.kern.launch_args("replay_decode", 3, device)[0][passes] == 2
    assert h.kern.launch_args("replay_decode", 2, device)[0]["NSPLIT"] == 2
    assert h.kern.launch_args("replay_decode", 2, device)[0]["FUSED_FLUSH"] is False
    assert h.kern._launch("replay_decode", 2, device)[2].fold_warps == 4
    assert h.kern._launch("replay_decode", 2, device)[2].fold_split == 2
    assert h.kern._launch("replay_decode", 2, device)[2].fold_stages == 2
    assert h.kern.launch_args("replay_decode", 3, device)[0]["FUSED_FLUSH"] is True
    assert h.kern.launch_args("replay_decode", 3, device)[0]["STREAM_FIRST"] is first
    if chunked:
        assert h.kern.launch_args("replay_decode", 3, device)[0]["NK"] == 2
    assert h.kern.launch_args("conventional_decode", 3, device)[0]["NV"] == 2
    rows = [(0, 1), (0, 1, 2), (2, -1), (0, 1, 2), (1, 0), (2, 0, 1), (2, 0), (2, 1), (1, 0)]
    flushes = h.device_flushes
    h.run([Step(r, flush=(1, -1) if i == 3 else None) for i, r in enumerate(rows[:6])])
    h.run([Step(r) for r in rows[6:]])   # rings fill in 2-row (split, separate flush) launches
    h.run([Step((1,))] * 3)   # ... and in a 1-row launch (one masked tile): row 1 folds once
    assert h.device_flushes - flushes >= 6


def test_a_decode_tabled_at_a_larger_batch_splits_for_fewer_rows():
    """Below the smallest tabled batch the decode's entry keeps its program count: its
    split is raised in powers of two (up to one value tile per program), so a launch
    tuned at batch 256 does not run a handful of programs at batch 1. At or above a
    tabled batch, and for a configuration that cannot split (a read copy), the entry is
    taken as it is."""
    gpu = "NVIDIA H200"
    kern = load("gla", H=4, HV=4, K=16, V=512, L=4, tuning=False)   # [16, K] tiles: 32 of them
    kern.tuning = TuningTable()
    tabled = Launch(16, 2, 1, separate_flush=True, fold_warps=4)
    kern.tuning.add(gpu, kern.name, "replay_decode", 256, tabled)
    kern.tuning.add(gpu, kern.name, "fold", 256, Launch(16, 4, 1))
    assert kern.table_launch("replay_decode", 1, gpu) == dataclasses.replace(tabled, split=32)
    assert kern.table_launch("replay_decode", 64, gpu).split == 4      # 256 / 64 rows
    assert kern.table_launch("replay_decode", 100, gpu).split == 4     # ceil(2.56), a power of two
    assert kern.table_launch("replay_decode", 256, gpu) == tabled
    assert kern.table_launch("replay_decode", 512, gpu) == tabled
    assert kern.table_launch("fold", 1, gpu) == Launch(16, 4, 1)       # only the decode splits
    split8 = Launch(32, 1, 1, split=8)                                   # 16 tiles of 32 rows
    assert split8.for_fewer_rows(kern.plan, 8, 1).split == 16          # capped at the tiles
    assert split8.for_fewer_rows(kern.plan, 8, 4).split == 16          # 64 programs kept
    assert split8.for_fewer_rows(kern.plan, 8, 8) == split8            # at its own batch
    read = load("gla", H=4, HV=4, K=16, V=512, L=4, read_dtype="nvfp4", tuning=False).plan
    assert Launch(16, 2, 1, separate_flush=True).for_fewer_rows(read, 256, 1).split == 1
    # programs over 12 value heads (a key group's): first fewer heads per program, the
    # largest divisor that keeps the programs, then one head per program and a split
    gdn = load("gdn", H=1, HV=12, K=16, V=64, L=4, tuning=False).plan   # 4 tiles of 16 rows
    twelve = Launch(16, 1, 3, BKT=8, head_scores=True, heads=12)
    assert twelve.for_fewer_rows(gdn, 256, 128).heads == 6
    assert twelve.for_fewer_rows(gdn, 256, 64) == dataclasses.replace(twelve, heads=3)
    assert twelve.for_fewer_rows(gdn, 256, 30) == dataclasses.replace(twelve, heads=1)  # 12 x 30 >= 256: 1 divides
    assert twelve.for_fewer_rows(gdn, 256, 8) == dataclasses.replace(twelve, heads=1, split=4)
    assert twelve.for_fewer_rows(gdn, 256, 256) == twelve


@pytest.mark.parametrize("variant", ["gdn", "kda"])
def test_a_launch_split_for_fewer_rows_matches_the_reference(variant, device):
    """The runtime takes the raised split (key chunks: gdn; value tiles: kda) and the
    steps still match the float64 reference: a table entry at batch 3 only, run at 1 and
    2 rows (split 2, one value tile of 8 rows per program; rings fill and the split
    programs publish shared cursors)."""
    cfg = Config(variant, H=1, ratio=2, K=16, V=16, L=3, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16", optional=ALL_CASES[variant].optional_inputs)
    h = Harness(cfg, num_slots=3, device=device, seed=23)
    table = TuningTable()
    table.add(device_name(torch.device(device)), h.kern.name, "replay_decode", 3,
              Launch(8, 1, 1, BKT=8 if decode_is_chunked(h.kern.plan) else None))
    h.kern.tuning = table
    h.kern._launches.clear()
    assert h.kern.launch_args("replay_decode", 1, device)[0]["NSPLIT"] == 2   # 2 tiles of 8 rows
    assert h.kern.launch_args("replay_decode", 2, device)[0]["NSPLIT"] == 2
    assert h.kern.launch_args("replay_decode", 3, device)[0]["NSPLIT"] == 1
    h.run([Step(r) for r in [(0,), (1, 2), (0,), (2, 1), (0, 1, 2), (1,), (0,), (2,), (0, 2)]])


def test_warmup_touches_no_state(device):
    cfg = Config("mamba2", H=1, ratio=2, K=4, V=3, L=3, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16")
    h = Harness(cfg, num_slots=2, device=device, seed=2)
    h.run([Step((0, 1)), Step((1,))])
    before = snapshot(h.state)
    pool = h.pool.clone()
    assert h.kern.warmup(h.state, [1, 3], pool=h.pool) == 3   # plan's choice: one per kernel
    after = snapshot(h.state)
    assert same_bits(before["checkpoint"], after["checkpoint"])
    assert same_bits(before["cursor"], after["cursor"])
    assert all(same_bits(before["ring"][n], after["ring"][n]) for n in before["ring"])
    assert same_bits(pool, h.pool)
    h.run([Step((0, 1))])


def test_warmup_of_a_speculative_configuration_touches_no_state(device):
    """A configuration built for drafts also warms its verify and its commit (whose fold
    launch may split each (row, value head) at small batches: Kernels.fold_grid_split),
    on padding rows only: nothing changes, pending drafts included."""
    cfg = Config("gla", H=1, ratio=2, K=20, V=40, L=4, state_dtype="fp32", record_dtype="fp32",
                 input_dtype="fp32", max_drafts=3)
    h = Harness(cfg, num_slots=2, device=device, seed=2, speculative=True)
    h.run([Step((0, 1)), Step((1,))])
    before = snapshot(h.state)
    # the plan's launches, the same at 1 and 3 rows: decode, verify, and the fold and the
    # commit split in 2 (3 value tiles, a grid far below the limit)
    assert h.kern.fold_grid_split(3, device, "commit") == 2
    assert h.kern.warmup(h.state, [1, 3], dtype=torch.float32) == 4
    after = snapshot(h.state)
    assert all(same_bits(before[k], after[k]) for k in ("checkpoint", "cursor", "drafted"))
    assert all(same_bits(before["ring"][n], after["ring"][n]) for n in before["ring"])


def test_wide_folds_of_speculative_configurations_are_allowed():
    """[64, K] folds of T_MAX > 1 configurations were refused from session 4 to 17 after
    "illegal instruction" on the H200; since the control-word barrier (session 16) they
    run and match (bench/fold_probe.py, session 17), so the tuner may try them, as for a
    plain configuration."""
    spec8 = load("gdn", H=1, HV=1, K=16, V=64, L=4, max_drafts=8, tuning=False).plan
    assert launch_constants(spec8, "fold", 64)["BV"] == 64
    assert launch_constants(spec8, "fold", 32)["BV"] == 32
    plain = load("gdn", H=1, HV=1, K=16, V=64, L=4, tuning=False).plan
    assert launch_constants(plain, "fold", 64)["BV"] == 64


def test_merging_sweeps_keeps_their_provenance():
    """A table merged from several sweeps says where each came from: the newest sweep's
    meta, and the earlier ones under 'earlier' (the merged entries still come from them)."""
    old, new = TuningTable(), TuningTable()
    old.meta["G"] = {"commit": "aaa", "command": "tune --L 16"}
    old.add("G", "cfg", "fold", 1, Launch(16, 2, 3))
    new.meta["G"] = {"commit": "bbb", "command": "tune --L 8"}
    new.add("G", "cfg", "fold", 8, Launch(32, 2, 3))
    old.merge(new)
    assert old.meta["G"]["commit"] == "bbb"
    assert old.meta["G"]["earlier"] == [{"commit": "aaa", "command": "tune --L 16"}]
    third = TuningTable()
    third.meta["G"] = {"commit": "ccc"}
    old.merge(third)
    assert [m["commit"] for m in old.meta["G"]["earlier"]] == ["bbb", "aaa"]
    assert old.lookup("cfg", "fold", "G", 8) == Launch(32, 2, 3)


def test_merging_one_sweep_again_adds_no_provenance():
    """`replaygen tune` saves after every phase, merging the same sweep into the file it
    wrote before: its meta stays one entry, the earlier sweeps are kept once each (the
    session-5 tables had the same sweep repeated six times under 'earlier')."""
    table = TuningTable()
    table.meta["G"] = {"commit": "aaa"}
    for phase in range(3):
        sweep = TuningTable()
        sweep.meta["G"] = {"commit": "bbb"}
        sweep.add("G", "cfg", "fold", 1 + phase, Launch(16, 2, 3))
        table.merge(sweep)
    assert table.meta["G"] == {"commit": "bbb", "earlier": [{"commit": "aaa"}]}
    fresh = TuningTable()
    fresh.meta["G"] = {"commit": "bbb"}
    fresh.merge(table)   # a table carrying its own history, merged into an empty one
    assert fresh.meta["G"] == {"commit": "bbb", "earlier": [{"commit": "aaa"}]}


def test_a_launch_sets_the_stream_pipeline_depth():
    """The key-chunk decode's chunk loops take their software-pipeline depth
    (STREAM_STAGES) from the launch's num_stages; the plan's launch gets Triton's default
    3 (tests/test_compile_sm90.py checks the compiled stream is pipelined at 3, not at 1)."""
    kern = load("gdn", H=1, HV=2, K=32, V=32, L=4, tuning=False)
    consts, options = kern.launch_args("replay_decode", 1, "cpu")
    assert consts["STREAM_STAGES"] == 3 and "num_stages" not in options
    consts, options = kern.launch_args("replay_decode", 1, "cpu", launch=Launch(32, 2, 1, BKT=16))
    assert consts["STREAM_STAGES"] == 1 and options["num_stages"] == 1


def test_a_job_tunes_a_kernel_subset_of_its_whole_configuration():
    """`tune --kernels` narrows a job to those kernels; the compile workers load the job's
    whole configuration (a read copy's name included: workers given only the state and
    record dtypes compiled the fp32 configuration instead)."""
    from replaygen.tune import Job
    kern = load("gdn", H=1, HV=2, K=32, V=32, L=4, read_dtype="fp8", fp8_scale="row", tuning=False)
    job = Job("gdn", "x", kern, only=("replay_decode",))
    assert job.kernels == ("replay_decode",) and set(job.plan_launch) == {"replay_decode"}
    assert load("gdn", tuning=False, **job.load_kwargs()).name == kern.name
    sr = load("gdn", H=1, HV=2, K=32, V=32, L=4, state_dtype="fp16", stochastic=True,
              record_dtypes={"g": "fp32"}, tuning=False)
    assert load("gdn", tuning=False, **Job("gdn", "y", sr).load_kwargs()).name == sr.name


def test_a_sweep_keeps_the_tabled_launch_that_measures_fastest():
    """The launches a table holds for a configuration join phase 1 (Job.add_incumbents:
    per kernel, the entry serving each swept batch; then its siblings', the configuration at
    other ring lengths), and table_of keeps one that measured
    fastest: a sweep cut short before the phase that found it (here a separate flush with
    its fold at 4 warps) cannot write a slower launch over it."""
    from replaygen.tune import INCUMBENT_MARGIN, Job, _with, candidates, incumbent_report, table_of
    kern = load("gdn", H=1, HV=2, K=32, V=32, L=4, tuning=False)
    job = Job("gdn", "x", kern, only=("replay_decode",))
    small, sf = Launch(16, 1, 3, BKT=32), Launch(32, 1, 1, BKT=32, separate_flush=True, fold_warps=4)
    t = TuningTable()
    t.add("G", kern.name, "replay_decode", 1, small)   # serves batches 1..255
    t.add("G", kern.name, "replay_decode", 256, sf)
    t.add("G", "another__config", "replay_decode", 256, Launch(64, 2, 3, BKT=32))
    # the same configuration at L = 8 is a sibling (its launches join, after this one's);
    # at L = 8 with another record precision it is not, nor is another GPU's entry
    at_8 = load("gdn", H=1, HV=2, K=32, V=32, L=8, tuning=False).name
    other = load("gdn", H=1, HV=2, K=32, V=32, L=8, record_dtype="fp32", tuning=False).name
    wide = Launch(64, 4, 2, BKT=16, split=2)
    t.add("G", at_8, "replay_decode", 1, wide)
    t.add("G", at_8, "replay_decode", 256, sf)
    t.add("G", other, "replay_decode", 1, Launch(8, 1, 1, BKT=16))
    t.add("H", at_8, "replay_decode", 1, Launch(8, 2, 1, BKT=16))
    assert job.siblings(t, "G") == [at_8]
    job.add_incumbents(t, "G", (8, 64, 256, 512))
    assert job.incumbents["replay_decode"] == [small, sf, wide]
    first = candidates(kern.plan, "replay_decode")
    assert sf not in first and _with(first, job.incumbents["replay_decode"])[-2:] == [sf, wide]
    job.times["replay_decode"] = {c: {256: 1.0} for c in first} | {sf: {256: 0.5}}
    best = table_of([job], "G", {}, (256,))["gdn"].lookup(kern.name, "replay_decode", "G", 256)
    assert best == sf
    job.times["replay_decode"][sf] = {256: 2.0}   # slower now: the sweep's best replaces it
    assert table_of([job], "G", {}, (256,))["gdn"].lookup(kern.name, "replay_decode", "G", 256) != sf
    # a launch faster than the tabled one by INCUMBENT_MARGIN or less does not replace it
    near = Launch(64, 1, 1, BKT=32, separate_flush=True, fold_warps=4)
    job.times["replay_decode"][sf] = {256: 0.5}
    job.times["replay_decode"][near] = {256: 0.5 / (1 + INCUMBENT_MARGIN / 2)}
    assert table_of([job], "G", {}, (256,))["gdn"].lookup(kern.name, "replay_decode", "G", 256) == sf
    assert incumbent_report([job], (256,)) == [
        f"  {kern.name} replay_decode 256: tabled 0.5000 ms, best 0.4975 ms: kept"]
    job.times["replay_decode"][near] = {256: 0.5 / (1 + 2 * INCUMBENT_MARGIN)}
    assert table_of([job], "G", {}, (256,))["gdn"].lookup(kern.name, "replay_decode", "G", 256) == near
    assert incumbent_report([job], (256,))[0].endswith("best 0.4902 ms: replaced by the best")


def test_a_refining_sweep_starts_from_the_tabled_launches():
    """`tune --refine`: phase 1 is the plan's launch and the table's, not the grid, for a
    kernel the table holds; a kernel it does not hold still gets the whole grid."""
    from replaygen.tune import Job, candidates, first_candidates
    kern = load("gdn", H=1, HV=2, K=32, V=32, L=4, tuning=False)
    job = Job("gdn", "x", kern)
    sf = Launch(32, 1, 1, BKT=32, separate_flush=True, fold_warps=4)
    t = TuningTable()
    t.add("G", kern.name, "replay_decode", 256, sf)
    job.add_incumbents(t, "G", (256,))
    assert first_candidates(job, "replay_decode", refine=True) == [job.plan_launch["replay_decode"], sf]
    grid = candidates(kern.plan, "replay_decode")
    assert len(grid) > 2
    assert first_candidates(job, "replay_decode") == grid + [sf]
    assert first_candidates(job, "fold", refine=True) == candidates(kern.plan, "fold")


def test_a_sweep_runs_only_the_phases_named(monkeypatch):
    """`tune --refine --phases 7`: phase 1 times the plan's and the tabled launches, then
    phase 7 alone extends the fastest separate-flush launch with the fold pipelined."""
    from replaygen import tune as tune_mod
    from replaygen.tune import FOLD_STAGES, Job, phase_ids
    kern = load("gdn", H=1, HV=2, K=32, V=32, L=4, tuning=False)
    job = Job("gdn", "x", kern, only=("replay_decode",))
    sf = Launch(32, 1, 1, BKT=32, separate_flush=True, fold_warps=4)
    t = TuningTable()
    t.add("G", kern.name, "replay_decode", 256, sf)
    job.add_incumbents(t, "G", (256,))
    timed = []

    def measure(jobs, todo, batches, *args, **kwargs):   # (no GPU) the separate flush fastest
        for (_, kernel), launches in todo.items():
            timed.append(list(launches))
            for c in launches:
                job.times[kernel][c] = {256: 0.5 if c.separate_flush else 1.0}
    monkeypatch.setattr(tune_mod, "_measure", measure)
    log = []
    tune_mod.tune([job], (256,), None, None, 1, log.append, refine=True, phases={"7"})
    assert timed == [[job.plan_launch["replay_decode"], sf],
                     [dataclasses.replace(sf, fold_stages=s) for s in FOLD_STAGES]]
    assert [line.split(" (")[0] for line in log] == ["phase 1", "phase 7"]
    assert phase_ids()[0] == "1b" and phase_ids()[-1] == "7" and len(set(phase_ids())) == len(phase_ids())


def test_phase_four_tries_each_batch_best_with_a_separate_flush():
    """Phase 4 of the sweep: at each batch the decode launches within `within` of the
    fastest (at least `keep`, at most `most`), with their flush in a separate fold launch
    (once per distinct launch, never one already timed): without fold code the ranking
    changes, so not only the fastest."""
    from replaygen.tune import separate_flush_candidates
    a, b, c = Launch(64, 1, 3, BKT=32), Launch(128, 2, 1, BKT=32), Launch(16, 1, 3, BKT=32)
    times = {a: {1: 0.010, 256: 0.20}, b: {1: 0.012, 256: 0.19}, c: {1: 0.03, 256: 0.3}}
    sf = lambda x: dataclasses.replace(x, separate_flush=True)   # noqa: E731
    # b is within 1.5x of a at batch 1 (and fastest at 256); c is 3x / 1.58x behind
    assert separate_flush_candidates(times, keep=1) == [sf(a), sf(b)]
    assert separate_flush_candidates(times, keep=1, within=1.0) == [sf(a), sf(b)]
    assert separate_flush_candidates(times, keep=1, within=1.6) == [sf(a), sf(b), sf(c)]
    assert separate_flush_candidates(times, keep=3) == [sf(a), sf(b), sf(c)]
    assert separate_flush_candidates(times, keep=1, within=9.0, most=1) == [sf(a), sf(b)]
    times[sf(a)] = {1: 0.009}
    assert separate_flush_candidates(times, keep=1) == [sf(b)]


def test_phase_1b_streams_the_best_key_chunk_decodes_first():
    """Phase 1b: the `keep` best launches (ranked over the batches), each with its stream
    first, never one already timed; nothing for a decode that cannot stream first (KDA's
    key chunks: per-channel decays; its value tiles of a read copy), and the value-tile
    decode of a plain checkpoint too."""
    from replaygen.tune import stream_first_candidates
    gdn = load("gdn", H=1, HV=2, K=64, V=32, L=4, tuning=False).plan   # K: chunks of 32 launch
    a, b, c = Launch(64, 1, 3, BKT=32), Launch(128, 2, 1, BKT=32), Launch(16, 1, 3, BKT=32)
    times = {a: {256: 0.20}, b: {256: 0.19}, c: {256: 0.30}}
    first = lambda x: dataclasses.replace(x, stream_first=True)   # noqa: E731
    assert stream_first_candidates(gdn, times, keep=2) == [first(b), first(a)]
    times[first(b)] = {256: 0.18}
    assert stream_first_candidates(gdn, times, keep=2) == [first(a)]
    # a launch that takes its records' scores at the head cannot stream first
    # (plan.launch_constants): it takes no place among the `keep` (session 65's tune
    # offered one, and the timing refused it)
    heads = dataclasses.replace(a, head_scores=True)
    assert gdn.scores_at_head and Launch.constants(heads, gdn, "replay_decode")
    times = {heads: {256: 0.10}, a: {256: 0.20}, c: {256: 0.30}}
    assert stream_first_candidates(gdn, times, keep=1) == [first(a)]
    assert stream_first_candidates(gdn, times, keep=0) == []
    for kda in (load("kda", H=1, HV=1, K=16, V=32, L=4, tuning=False, read_dtype="nvfp4").plan,
                load("kda", H=1, HV=1, K=16, V=32, L=4, tuning=False, decode_structure="kchunks").plan):
        assert stream_first_candidates(kda, times) == []
    kda = load("kda", H=1, HV=1, K=16, V=32, L=4, tuning=False).plan
    tiles = {Launch(16, 1, 3): {256: 0.2}, Launch(32, 2, 3): {256: 0.1}}
    assert stream_first_candidates(kda, tiles, keep=1) == [Launch(32, 2, 3, stream_first=True)]


def test_phase_five_tries_the_separate_fold_at_every_warp_count(tmp_path):
    """Phase 5: at each batch the `keep` fastest decode launches whose flush is separate
    (marked, or every launch where the plan never fuses it), with the fold launch at each
    warp count, and where the default grid (4 programs per multiprocessor) holds other
    than 16 warps per multiprocessor, also with a grid that holds 16 (Launch.
    fold_programs: 16 one-warp, 8 two-warp, 2 eight-warp programs); Launch.fold_warps,
    fold_split and fold_programs round-trip through a table file (fold_programs absent
    when unset)."""
    from replaygen.tune import FOLD_WARPS_PER_SM, WARPS, fold_warps_candidates
    from replaygen.tuning import FOLD_PROGRAMS_PER_SM
    fused = load("gdn", H=1, HV=2, K=16, V=16, L=3, tuning=False).plan
    never = load("gdn", H=1, HV=2, K=32, V=16, L=3, read_dtype="nvfp4",
                 decode_structure="kchunks", tuning=False).plan
    assert fused.FUSED_FLUSH and not never.FUSED_FLUSH, "the test means to cover both plans"
    a, b = Launch(64, 1, 3, BKT=32), Launch(128, 2, 1, BKT=32, separate_flush=True)
    times = {a: {256: 0.20}, b: {256: 0.25}}
    assert WARPS == (1, 2, 4, 8) and FOLD_PROGRAMS_PER_SM == 4 and FOLD_WARPS_PER_SM == 16
    fw = lambda x: [dataclasses.replace(x, fold_warps=w, **extra)   # noqa: E731
                    for w, grids in ((1, (None, 16)), (2, (None, 8)), (4, (None,)), (8, (None, 2)))
                    for extra in ({"fold_programs": g} if g else {} for g in grids)]
    assert fold_warps_candidates(fused, times) == fw(b)
    assert fold_warps_candidates(never, times) == fw(a) + fw(b)
    assert fold_warps_candidates(never, times, keep=1) == fw(a)
    times[fw(a)[0]] = {256: 0.1}   # timed already, and not extended again
    assert fold_warps_candidates(never, times, keep=1) == fw(a)[1:]
    # a tabled launch with its fold warps set (a refining sweep's base) is varied too; one
    # with its own grid is not a base
    tabled = dataclasses.replace(b, fold_warps=4)
    assert fold_warps_candidates(fused, {tabled: {256: 0.1}}) == [
        c for c in fw(b) if c != tabled]
    assert fold_warps_candidates(fused, {fw(b)[1]: {256: 0.1}}) == []
    t = TuningTable()
    two = dataclasses.replace(b, fold_warps=2)
    assert "fold_programs" not in two.as_dict()
    t.add("G", "cfg", "replay_decode", 1, two)
    path = tmp_path / "tuning.json"
    t.write(path, "gdn")
    assert TuningTable.read(path, "gdn").lookup("cfg", "replay_decode", "G", 1) == two
    t.add("G", "cfg", "replay_decode", 1, dataclasses.replace(two, fold_split=8, fold_programs=8))
    t.write(path, "gdn")
    back = TuningTable.read(path, "gdn").lookup("cfg", "replay_decode", "G", 1)
    assert (back.fold_warps, back.fold_split, back.fold_programs) == (2, 8, 8)


def test_phase_seven_pipelines_the_separate_fold_and_the_depth_round_trips(tmp_path):
    """Phase 7: the `keep` fastest decode launches whose flush is separate, with the fold
    launch's tile loop at each of FOLD_STAGES; Launch.fold_stages is stored only when set
    and round-trips through a table file."""
    from replaygen.tune import FOLD_STAGES, fold_stages_candidates
    fused = load("gdn", H=1, HV=2, K=16, V=16, L=3, tuning=False).plan
    a, b = Launch(64, 1, 3, BKT=32), Launch(128, 2, 1, BKT=32, separate_flush=True)
    times = {a: {256: 0.20}, b: {256: 0.25}}
    assert fold_stages_candidates(fused, times) == [dataclasses.replace(b, fold_stages=s)
                                                     for s in FOLD_STAGES]
    assert "fold_stages" not in b.as_dict()
    t = TuningTable()
    t.add("G", "cfg", "replay_decode", 1, dataclasses.replace(b, fold_stages=3))
    path = tmp_path / "tuning.json"
    t.write(path, "gdn")
    assert TuningTable.read(path, "gdn").lookup("cfg", "replay_decode", "G", 1).fold_stages == 3


def test_phase_4f_takes_the_records_in_blocks():
    """Phase 4f (plan.record_blocks): at each batch the `keep` fastest launches with the
    records' scores at the head and the flush in the fold launch, with record blocks of
    RECORD_BLOCKS rows below the ring's length; launches without head scores, with the
    flush fused, or with blocks already are not bases; none for a plan without record
    blocks (KDA's key chunks: per-channel decays)."""
    from replaygen.tune import RECORD_BLOCKS, record_block_candidates
    gdn = load("gdn", H=1, HV=2, K=16, V=16, L=16, tuning=False).plan
    hs = Launch(128, 1, 1, BKT=32, separate_flush=True, head_scores=True)
    fused = Launch(64, 1, 1, BKT=32, head_scores=True)        # (gdn fp32's decode folds in its launch)
    plain = Launch(64, 1, 3, BKT=32, separate_flush=True)
    blocked = dataclasses.replace(hs, BV=64, record_block=4)
    times = {plain: {256: 0.10}, fused: {256: 0.11}, blocked: {256: 0.12}, hs: {256: 0.13}}
    got = record_block_candidates(gdn, times, keep=1)
    assert got == [dataclasses.replace(hs, record_block=b) for b in RECORD_BLOCKS]
    assert record_block_candidates(gdn, {**times, got[0]: {256: 0.2}}, keep=1) == got[1:]
    short = load("gdn", H=1, HV=2, K=16, V=16, L=6, tuning=False).plan
    assert [c.record_block for c in record_block_candidates(short, times, keep=1)] == [4]
    kda = load("kda", H=1, HV=1, K=16, V=32, L=16, decode_structure="kchunks", tuning=False).plan
    assert record_block_candidates(kda, times) == []


def test_register_caps_round_trip_and_extend_the_best_verify_and_decode_launches(tmp_path):
    """A register cap (Launch.maxnreg, Triton's maxnreg option) is stored only when set,
    read back, and passed to the launch; phase 2b tries the two best uncapped launches of
    the verify or decode under each cap of its warp count, once; each cap lets the
    programs per SM it names share the register file."""
    from replaygen.tune import programs_per_sm, register_cap_candidates, register_caps
    back = _stored_only_when_set(tmp_path, "verify", Launch(64, 1, 3, BKT=32, maxnreg=128), "maxnreg")
    assert back.lookup("cfg", "verify", "G", 1).options() == {"num_warps": 1, "num_stages": 3,
                                                               "maxnreg": 128, **PINNED_OPTIONS}
    assert "maxnreg" not in back.lookup("cfg", "verify", "G", 8).options()
    a, b, c = Launch(64, 1, 3, BKT=32), Launch(128, 2, 3, BKT=32), Launch(32, 1, 3, BKT=32)
    times = {a: {256: 0.23}, b: {256: 0.25}, c: {256: 0.30}}
    capped = lambda x, r: dataclasses.replace(x, maxnreg=r)   # noqa: E731
    # one warp: 255 registers fit 8 programs per SM, the caps 9, 10, 12 and 16
    assert [programs_per_sm(r, 1) for r in (255, 224, 200, 168, 128)] == [8, 9, 10, 12, 16]
    assert programs_per_sm(232, 1) == 8 and programs_per_sm(226, 1) == 8   # 226 allocates 232
    assert register_caps(1) == [224, 200, 168, 128]
    assert register_caps(2) == [200, 168, 128]   # 224: 4 two-warp programs, as at 255
    assert register_caps(4) == [168, 128]
    assert register_cap_candidates(times) == [capped(x, r) for x in (a, b)
                                              for r in register_caps(x.num_warps)]
    times[capped(a, 224)] = {256: 0.2}   # timed already; capped ones are not re-capped
    assert register_cap_candidates(times, keep=1) == [capped(a, r) for r in (200, 168, 128)]


@pytest.mark.parametrize("variant", available_variants())
def test_every_tabled_launch_is_the_one_the_runtime_takes(variant, monkeypatch):
    """For each committed entry of a default configuration (at L = 8 / 16 / 32, decode-only
    or speculative), the runtime launches exactly the tabled launch at the tabled batch on
    that GPU. A table entry that the runtime never consults is dead data: until session
    26, runtime._launch consulted no quantised configuration's entries but the key-chunk
    decode's of a read copy, so KDA's and GLA's read-copy decodes and the fold and
    conventional entries of GDN's and Mamba-2's read copies were measured and never used
    (this test fails for all four variants against that guard). The GPU's name is what
    runtime.device_name would say on it (patched: there is none here)."""
    import replaygen.runtime as runtime
    path = GENERATED_DIR / variant / TUNING_FILE
    table = TuningTable.read(path, variant)
    known = table_configs(load_variant(variant))
    loaded, checked = {}, set()
    for gpu, name, kernel, batch, launch, _ in table.entries():
        if name not in known:   # (a configuration outside the defaults: e.g. per-step gates)
            continue
        if name not in loaded:
            loaded[name] = load(variant, tuning=path, **known[name].load_options())
        kern = loaded[name]
        monkeypatch.setattr(runtime, "device_name", lambda device, gpu=gpu: gpu)
        kern._launches.clear()
        assert kern._launch(kernel, batch, "cpu")[2] == launch, (name, kernel, batch)
        checked.add(name)
    assert any("__read_" in n for n in checked), "no read-copy entry was checked"


def test_read_words_round_trip_and_are_checked(tmp_path):
    """Launch.read_words: kept by a table; refused for another kernel, for a key-chunk
    decode, for a read copy that is not in whole words (K = 20, or FP8 column scales), for
    a decode without a read copy, and with the flush fused (the word path never forms
    the fp32 checkpoint tile a flushing row folds)."""
    kda = lambda **o: load("kda", H=1, HV=1, K=32, V=32, L=4, tuning=False, **o).plan   # noqa: E731
    fp8 = kda(read_dtype="fp8", fp8_scale="row")
    assert fp8.vtile_read_words and kda(read_dtype="nvfp4").vtile_read_words
    c = launch_constants(fp8, "replay_decode", 16, separate_flush=True, read_words=True)
    assert c["READ_WORDS"] is True and c["FUSED_FLUSH"] is False
    assert launch_constants(fp8, "replay_decode", 16)["READ_WORDS"] is False
    refused = [(fp8, "replay_decode", {}), (fp8, "fold", {}),
               (kda(read_dtype="fp8", fp8_scale="col"), "replay_decode", {"separate_flush": True}),
               (load("kda", H=1, HV=1, K=20, V=32, L=4, tuning=False, read_dtype="nvfp4").plan,
                "replay_decode", {"separate_flush": True}),
               (kda(), "replay_decode", {"separate_flush": True}),
               (load("gdn", H=1, HV=2, K=32, V=32, L=4, tuning=False, read_dtype="nvfp4").plan,
                "replay_decode", {})]
    for plan, kernel, extra in refused:
        bkt = 16 if kernel == "replay_decode" and decode_is_chunked(plan) else None
        with pytest.raises(ConfigError, match="reads words"):
            launch_constants(plan, kernel, 16, bkt, read_words=True, **extra)
    _flag_round_trips(tmp_path, Launch(16, 1, 1, separate_flush=True, read_words=True), "read_words")


def _stored_only_when_set(tmp_path, kernel, launch, field: str) -> TuningTable:
    """`launch` (its `field` set) at batch 1 and the same launch with `field` at its
    default at batch 8, as `kernel` entries of a table written to a file: the file names
    the field in the first entry only. Returns the table read back."""
    table = TuningTable()
    table.add("G", "cfg", kernel, 1, launch)
    default = Launch.__dataclass_fields__[field].default
    table.add("G", "cfg", kernel, 8, dataclasses.replace(launch, **{field: default}))
    path = tmp_path / TUNING_FILE
    table.write(path, "gdn")
    entries = json.loads(path.read_text())["gpus"]["G"]["entries"]
    assert [e.get(field) for e in entries] == [getattr(launch, field), None]
    return TuningTable.read(path, "gdn")


def _flag_round_trips(tmp_path, launch, flag: str, kernel="replay_decode", other="fold"):
    """A `kernel` launch with the boolean `flag` set is kept by a table written and read
    back; the same entry as an `other` kernel's is refused, naming the flag."""
    table = TuningTable()
    table.add("G", "cfg", kernel, 8, launch, ms=1.0)
    path = tmp_path / TUNING_FILE
    table.write(path, "kda")
    assert getattr(TuningTable.read(path, "kda").lookup("cfg", kernel, "G", 8), flag) is True
    data = json.loads(path.read_text())
    data["gpus"]["G"]["entries"][0]["kernel"] = other
    data["gpus"]["G"]["entries"][0].pop("separate_flush", None)   # (refused for a fold too)
    path.write_text(json.dumps(data))
    with pytest.raises(TuningError, match=f"'{flag}' is true or absent, and only for {kernel}"):
        TuningTable.read(path, "kda")


def test_read_mma_round_trips_and_is_checked(tmp_path):
    """Launch.read_mma: kept by a table; refused for another kernel, for a key-chunk
    decode, for an NVFP4 read copy (no e4m3 tile), FP8 column scales, fewer than 32 keys,
    a decode without a read copy, the flush fused, value tiles of fewer than 16 rows
    (tl.dot's least), and together with read_words."""
    kda = lambda K=32, **o: load("kda", H=1, HV=1, K=K, V=32, L=4, tuning=False, **o).plan   # noqa: E731
    fp8 = kda(read_dtype="fp8", fp8_scale="row")
    assert fp8.vtile_read_mma and kda(read_dtype="fp8", fp8_scale="tile").vtile_read_mma
    c = launch_constants(fp8, "replay_decode", 16, separate_flush=True, read_mma=True)
    assert c["READ_MMA"] is True and c["READ_WORDS"] is False and c["FUSED_FLUSH"] is False
    assert launch_constants(fp8, "replay_decode", 16)["READ_MMA"] is False
    gdn = load("gdn", H=1, HV=2, K=32, V=32, L=4, tuning=False, read_dtype="fp8").plan
    refused = [(fp8, "replay_decode", 16, {}), (fp8, "fold", 16, {}),
               (fp8, "replay_decode", 8, {"separate_flush": True}),
               (fp8, "replay_decode", 16, {"separate_flush": True, "read_words": True}),
               (kda(read_dtype="nvfp4"), "replay_decode", 16, {"separate_flush": True}),
               (kda(read_dtype="fp8", fp8_scale="col"), "replay_decode", 16, {"separate_flush": True}),
               (kda(K=16, read_dtype="fp8"), "replay_decode", 16, {"separate_flush": True}),
               (kda(), "replay_decode", 16, {"separate_flush": True}),
               (gdn, "replay_decode", 16, {"separate_flush": True})]
    assert decode_is_chunked(gdn)
    for plan, kernel, bv, extra in refused:
        bkt = 16 if kernel == "replay_decode" and decode_is_chunked(plan) else None
        with pytest.raises(ConfigError, match="on tensor cores"):
            launch_constants(plan, kernel, bv, bkt, read_mma=True, **extra)
    _flag_round_trips(tmp_path, Launch(64, 4, 2, separate_flush=True, read_mma=True), "read_mma")


def test_phase_4c_times_tensor_core_reads_on_their_own_grid():
    """Phase 4c: every [64, K] and [128, K] tile up to the value dim at four warps per 64
    rows, at every stage count, flush separate, reading on tensor cores; never one
    already timed; nothing where the value-tile decode has no FP8 read copy to read so."""
    from replaygen.tune import DEFAULT_STAGES, EXTRA_STAGES, read_mma_candidates
    plan = load("kda", H=1, HV=1, K=128, V=128, L=4, tuning=False, read_dtype="fp8").plan
    got = read_mma_candidates(plan, {})
    stages = (DEFAULT_STAGES,) + EXTRA_STAGES
    assert got == [Launch(bv, w, s, separate_flush=True, read_mma=True)
                   for bv, ws in ((64, (4,)), (128, (4, 8))) for w in ws for s in stages]
    assert read_mma_candidates(plan, {got[0]: {256: 0.1}}) == got[1:]
    small = load("kda", H=1, HV=1, K=32, V=18, L=4, tuning=False, read_dtype="fp8").plan
    assert {c.BV for c in read_mma_candidates(small, {})} == {64}
    for other in (load("kda", H=1, HV=1, K=32, V=32, L=4, tuning=False).plan,
                  load("kda", H=1, HV=1, K=32, V=32, L=4, tuning=False, read_dtype="nvfp4").plan,
                  load("gdn", H=1, HV=2, K=32, V=32, L=4, tuning=False, read_dtype="fp8").plan):
        assert read_mma_candidates(other, {}) == []


def test_head_launch_round_trips_and_is_checked(tmp_path):
    """Launch.head_launch: kept by a table as a verify's (or a verify_fold's: the folding
    rows' workspace then holds the fold's weights too); refused for another kernel (in a
    table and by launch_constants) and for the key-chunk verify."""
    fp32 = dict(H=1, HV=1, K=16, V=16, L=4, max_drafts=2, tuning=False)
    kda = load("kda", **fp32, verify_folds=True).plan
    gdn = load("gdn", **fp32).plan
    c = launch_constants(kda, "verify", 16, head_launch=True)
    assert c["SPLIT_HEAD"] == 1 and c["WS"] == kda.BT * (kda.BK + c["BL"] + 3 * kda.BT)
    assert launch_constants(kda, "verify", 16)["WS"] == 0
    folding = launch_constants(kda, "verify_fold", 16, head_launch=True)
    assert folding["WS"] == c["WS"] + c["BL"] * kda.BK + kda.BK
    for plan, kernel in ((gdn, "verify"), (kda, "replay_decode"), (kda, "fold")):
        with pytest.raises(ConfigError, match="head phase in a launch of its own"):
            launch_constants(plan, kernel, 16, 16 if plan is gdn else None, head_launch=True)
    _flag_round_trips(tmp_path, Launch(16, 1, 2, head_launch=True), "head_launch",
                      kernel="verify", other="fold")
    # head_warps: the head launch's warps, kept; only with head_launch
    table = TuningTable()
    table.add("G", "cfg", "verify", 8, Launch(16, 1, 2, head_launch=True, head_warps=4), ms=1.0)
    path = tmp_path / TUNING_FILE
    table.write(path, "kda")
    assert TuningTable.read(path, "kda").lookup("cfg", "verify", "G", 8).head_warps == 4
    data = json.loads(path.read_text())
    del data["gpus"]["G"]["entries"][0]["head_launch"]
    path.write_text(json.dumps(data))
    with pytest.raises(TuningError, match="'head_warps' is a power of two <= 32, and only with head_launch"):
        TuningTable.read(path, "kda")
    with pytest.raises(ConfigError, match="head_warps=4 needs head_launch"):
        Launch(16, 1, 2, head_warps=4).constants(kda, "verify")


def test_phase_2f_splits_the_best_value_tile_verifies():
    """Phase 2f: the `keep` best verify launches so far that run in one launch, each with
    its head phase in a launch of its own at every stage count (never one already timed);
    nothing for the key-chunk verify."""
    from replaygen.tune import DEFAULT_STAGES, EXTRA_STAGES, head_launch_candidates
    plan = load("kda", H=1, HV=1, K=32, V=32, L=4, max_drafts=2, tuning=False).plan
    a, b, c = Launch(16, 1, 3), Launch(32, 2, 2), Launch(8, 1, 1)
    split = lambda x, s: dataclasses.replace(x, head_launch=True, num_stages=s)  # noqa: E731
    times = {a: {256: 0.20}, b: {256: 0.19}, c: {256: 0.30}, split(b, 1): {256: 0.18}}
    stages = sorted({DEFAULT_STAGES, *EXTRA_STAGES})
    got = head_launch_candidates(plan, times, keep=2)
    assert got == [split(b, s) for s in stages if s != 1] + [split(a, s) for s in stages]
    gdn = load("gdn", H=1, HV=2, K=32, V=32, L=4, max_drafts=2, tuning=False).plan
    assert head_launch_candidates(gdn, times) == []


def test_phase_2g_gives_the_best_split_verifies_head_launches_other_warps():
    """Phase 2g: the `keep` best two-launch verifies (head_warps unset) with their head
    launch at every other warp count; one-launch verifies and ones already timed left out;
    nothing for the key-chunk verify."""
    from replaygen.tune import WARPS, head_warps_candidates
    plan = load("kda", H=1, HV=1, K=32, V=32, L=4, max_drafts=2, tuning=False).plan
    a, b = Launch(16, 1, 3, head_launch=True), Launch(16, 2, 2, head_launch=True)
    one = Launch(16, 1, 1)
    times = {a: {256: 0.20}, b: {256: 0.22}, one: {256: 0.10},
             dataclasses.replace(a, head_warps=4): {256: 0.18}}
    got = head_warps_candidates(plan, times, keep=1)
    assert got == [dataclasses.replace(a, head_warps=w) for w in WARPS if w not in (1, 4)]
    gdn = load("gdn", H=1, HV=2, K=32, V=32, L=4, max_drafts=2, tuning=False).plan
    assert head_warps_candidates(gdn, times) == []


def test_phase_4b_reads_words_in_the_best_separate_flush_launches():
    """Phase 4b: at each batch the `keep` fastest decode launches whose flush is separate,
    each reading the read copy's words (never one already timed, never a fused one);
    nothing where the value-tile decode cannot read words (no read copy; key chunks)."""
    from replaygen.tune import read_words_candidates
    plan = load("kda", H=1, HV=1, K=32, V=32, L=4, tuning=False, read_dtype="nvfp4").plan
    a, b = Launch(16, 1, 1, separate_flush=True), Launch(16, 2, 3, separate_flush=True)
    fused = Launch(16, 1, 1)
    times = {a: {256: 0.20}, b: {256: 0.19}, fused: {256: 0.10}}
    words = lambda x: dataclasses.replace(x, read_words=True)   # noqa: E731
    assert read_words_candidates(plan, times, keep=2) == [words(b), words(a)]
    times[words(b)] = {256: 0.15}
    assert read_words_candidates(plan, times, keep=2) == [words(a)]
    for other in (load("kda", H=1, HV=1, K=32, V=32, L=4, tuning=False).plan,
                  load("gdn", H=1, HV=2, K=32, V=32, L=4, tuning=False, read_dtype="nvfp4").plan):
        assert read_words_candidates(other, times) == []
