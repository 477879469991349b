"""Kernel correctness against the independent float64 reference (tests/reference.py).

Hypothesis draws a configuration (heads, GQA ratio, K and V including non-powers of
two, ring length, state / record / input precisions, optional inputs, batch strides),
a pool and a schedule: which slots sit in which batch rows at every step (with padding
rows, so rows at different ring positions share one launch), explicit flushes and
reloads at random points. After every operation `harness.Harness` checks outputs,
materialised states, cursors, padding rows, untouched slots (bit for bit), and a
parallel pool stepped by the conventional kernel; tolerances are derived in
`harness.tolerance`.

The variant is a pytest parameter rather than a draw, so that every spec in specs/
(and every fixture spec in tests/fixtures/) gets the same number of examples.

Budget: the interpreter costs ~3-6 ms per kernel program (one row, value head and value
tile), so every example is sized to at most BUDGET program-units (~4-6 s on this CPU
machine; 8 examples of each variant took 31-52 s, the largest share of CI's interpreter
time (session 16: CI at 18.8 min), so CI runs 5; the draws differ from run to run, so
coverage still accumulates): a config with many heads or
value tiles gets fewer slots, rows and steps, never fewer than L + 1 steps (a slot in
every step flushes at least once). On a GPU the budget is lifted and there are 4x the
examples (REPLAYGEN_EXAMPLES=factor overrides, see harness.scale).
"""
from __future__ import annotations

import dataclasses

import pytest
import torch
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from harness import (ALL_CASES, CUDA, FIXTURES, VARIANTS, Config, Harness, Step, examples,
                     snapshot)
from replaygen.runtime import order_flags
from replaygen.spec import available_variants
from replaygen.tuning import Launch

BUDGET = 800 * (60 if CUDA else 1)
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])


def test_every_spec_has_a_case():
    """Each spec in specs/ must be mapped to a reference in harness.VARIANTS."""
    assert sorted(VARIANTS) == available_variants()


# -- strategies ------------------------------------------------------------------------
@st.composite
def configs(draw, variant: str) -> Config:
    case = ALL_CASES[variant]
    return Config(
        variant=variant,
        H=draw(st.integers(1, 3)), ratio=draw(st.integers(1, 3)),
        K=draw(st.integers(1, 12)), V=draw(st.integers(1, 12)),
        L=draw(st.integers(1, 6)),
        state_dtype=draw(st.sampled_from(["fp32", "bf16", "fp16"])),
        record_dtype=draw(st.sampled_from(["fp32", "bf16"])),
        input_dtype=draw(st.sampled_from(["fp32", "bf16", "fp16"])),
        optional=tuple(n for n in case.optional_inputs if draw(st.booleans())),
        strided=draw(st.booleans()),
    )


@st.composite
def schedules(draw, num_slots: int, batch: int, steps: int) -> list[Step]:
    """`steps` steps; every step puts a random subset of slots into random rows of a
    batch of `batch` rows (the rest padding), sometimes followed by an explicit flush
    of random slots (1 in 8), sometimes preceded by reloading a slot (a new sequence,
    1 in 10)."""
    out = []
    priority = draw(st.permutations(range(num_slots)))   # who gets a row when few fit
    for _ in range(steps):
        # slots that sit out this step (shrinks towards none: every slot every step);
        # the rest by priority, as many as the batch holds, in random rows
        absent = draw(st.sets(st.integers(0, num_slots - 1), max_size=num_slots - 1))
        queue = [s for s in priority if s not in absent]
        order = draw(st.permutations(range(batch)))
        rows = [-1] * batch
        for slot, pos in zip(queue, order):
            rows[pos] = slot
        flush = reload = None
        if draw(st.integers(0, 7)) == 7:   # shrinks towards no flush
            flush = tuple(draw(st.lists(st.integers(-1, num_slots - 1), unique=True,
                                        min_size=1, max_size=num_slots + 1)))
        if draw(st.integers(0, 9)) == 9:
            reload = draw(st.integers(0, num_slots - 1))
        out.append(Step(tuple(rows), flush, reload))
    return out


def units_per_step(HV, NV, num_slots, batch):
    """Kernel programs launched per step, weighted by cost: decode (~2 units per row and
    head tile), conventional decode (1), materialize of the pool (1 per slot, plus the
    flushes' extra materializations)."""
    return HV * NV * (3 * batch + 1.6 * (num_slots + 1))


def draw_run(data, cfg: Config, NV: int):
    """Pool size, batch size and schedule of one example, within BUDGET."""
    L, HV = cfg.L, cfg.HV

    def fits(S, B, steps):
        return units_per_step(HV, NV, S, B) * steps <= BUDGET

    S_max = max([2] + [S for S in range(2, 7) if fits(S, 1, L + 1)])
    num_slots = data.draw(st.integers(2, S_max), label="num_slots")
    B_max = max([1] + [B for B in range(1, num_slots + 2) if fits(num_slots, B, L + 1)])
    batch = data.draw(st.integers(1, B_max), label="batch")
    cap = int(BUDGET // units_per_step(HV, NV, num_slots, batch))
    hi = max(L + 1, min(3 * L + 2, cap))
    steps = data.draw(st.integers(L + 1, hi), label="steps")
    schedule = data.draw(schedules(num_slots, batch, steps), label="schedule")
    seed = data.draw(st.integers(0, 2 ** 31 - 1), label="seed")
    return num_slots, schedule, seed


# -- tests -------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", sorted(VARIANTS) + sorted(FIXTURES))
@settings(max_examples=examples(5), **SETTINGS)
@given(data=st.data())
def test_replay_decode_matches_reference(variant, device, data):
    cfg = data.draw(configs(variant), label="config")
    kern = cfg.load()
    num_slots, schedule, seed = draw_run(data, cfg, kern.plan.NV)
    h = Harness(cfg, num_slots, device, seed)
    h.run(schedule)
    # coverage, shown by --hypothesis-show-statistics
    event(f"device flushes: {min(h.device_flushes, 3)}{'+' if h.device_flushes >= 3 else ''}")
    event(f"launches mixing ring positions: {'yes' if h.mixed_launches else 'no'}")
    event(f"explicit flushes: {'yes' if any(s.flush for s in schedule) else 'no'}")


@pytest.mark.parametrize("variant", sorted(ALL_CASES))
@pytest.mark.parametrize("K,V", [(16, 16), (20, 16)])
def test_dot_path(variant, device, K, V):
    """K, V >= 16 take the tl.dot branch of the flush and the fold (fp32 operands at the
    plan's dot precision), which the small Hypothesis dims never reach; K = 20 also
    masks a padded key block inside the dot. Three slots at staggered ring positions,
    a padding row, two device flushes and one explicit flush."""
    cfg = Config(variant, H=1, ratio=2, K=K, V=V, L=4, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16",
                 optional=ALL_CASES[variant].optional_inputs)
    h = Harness(cfg, num_slots=3, device=device, seed=11)
    plan = h.kern.plan   # the fold takes tl.dot when every tile dim is at least 16
    assert plan.BK >= 16 and plan.BV >= 16, "this test is meant to cover the tl.dot branch"
    rows = [(0, -1, 1), (0, 1, 2), (2, 0, -1), (0, 1, 2), (-1, 1, 0), (2, 0, 1), (1, 2, 0),
            (0, 1, 2)]
    h.run([Step(r, flush=(2, -1) if i == 5 else None) for i, r in enumerate(rows)])


@pytest.mark.parametrize("variant", ["gla", "kda"])
@pytest.mark.parametrize("gates,structure,template", [
    (None, None, "vtiles"),              # the default: cumulative G_j on value tiles
    ("cumulative", "kchunks", "kchunks"),
    ("step", None, "vtiles"),            # per-step gates: value tiles, as before
    ("step", "kchunks", "kchunks"),      # per-step gates scanned per key chunk
])
def test_channel_gate_records(variant, gates, structure, template, device):
    """Per-channel decays with both gate records on both decode structures. K = 40: two
    key chunks of 32 (the second mostly masked), each continuing the cumulative gates
    from ring row n - 1 on its own columns; L = 4 with three staggered slots and a
    padding row: device flushes in mixed launches and one explicit flush. Cumulative
    records must look like running sums of log decays: <= 0 and non-increasing along
    the ring (the outputs and states against the reference check their values)."""
    cfg = Config(variant, H=1, ratio=2, K=40, V=16, L=4, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16", gate_records=gates,
                 decode_structure=structure)
    h = Harness(cfg, num_slots=3, device=device, seed=17)
    plan = h.kern.plan
    assert template in plan.decode_template
    assert (plan.gate_field == "g") == (gates != "step")
    assert h.state.ring["g"].dtype == (torch.float32 if gates != "step" else torch.bfloat16)
    rows = [(0, -1, 1), (0, 1, 2), (2, 0, -1), (0, 1, 2), (-1, 1, 0), (2, 0, 1), (1, 2, 0)]
    h.run([Step(r, flush=(2, -1) if i == 4 else None) for i, r in enumerate(rows)])
    assert h.device_flushes >= 2
    if plan.gate_field:
        for s in range(3):
            n = h.cursor[s]
            G = h.state.ring["g"][s, :, :n].cpu()
            assert bool((G[:, 1:] <= G[:, :-1]).all()) and bool((G <= 0).all())


@pytest.mark.parametrize("variant", sorted(ALL_CASES))
def test_fold_every_step(variant, device):
    """The small-batch dispatch (decode(fold_every_step=True)) folds every row: records
    committed by ordinary steps are folded with the token, cursors go to 0, and the
    states and outputs still follow the reference; rows at different ring positions
    and a padding row share the folding launches."""
    cfg = Config(variant, H=1, ratio=2, K=5, V=3, L=4, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16",
                 optional=ALL_CASES[variant].optional_inputs)
    h = Harness(cfg, num_slots=3, device=device, seed=13)
    h.run([Step((0, 1, 2)), Step((0, -1, 1)), Step((2, 0, 1), fold=True), Step((1, 0)),
           Step((0, 1, -1), fold=True), Step((0, 2, 1)), Step((1, 2, 0))])
    assert h.device_flushes == 5   # the folding launches fold every row; no ring filled


ONEPASS_CASES = [v for v in sorted(ALL_CASES)
                 if Config(v, H=1, ratio=2, K=16, V=16, L=4, state_dtype="fp32", record_dtype="bf16",
                           input_dtype="bf16").load().plan.onepass_flushes]


@pytest.mark.parametrize("variant", ONEPASS_CASES)
@pytest.mark.parametrize("K,V,DBV", [(16, 16, None), (5, 3, None), (16, 20, 8)])
def test_onepass_flush(variant, device, K, V, DBV):
    """Launch.onepass_flush (plan.onepass_flushes: the key-chunk decode of scalar decays):
    a flushing row folds its committed records into each chunk as it streams it and its
    token becomes ring row 0 (cursor 1), the key record shared by a key group of two
    value heads written by the last of them to finish streaming. K = V = 16 takes the
    fold's tl.dot, (5, 3) its broadcast sum; V = 20 in value tiles of 8 streams three
    tiles per program, each folding the records into its own rows. Three slots at
    staggered ring positions and a padding row: device flushes in launches that mix
    flushing and appending rows, an explicit flush, and a launch that folds every row (two
    passes: cursor 0). Every output, state, cursor and untouched ring row is checked
    against the reference (harness)."""
    cfg = Config(variant, H=1, ratio=2, K=K, V=V, L=4, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16",
                 optional=ALL_CASES[variant].optional_inputs)
    h = Harness(cfg, num_slots=3, device=device, seed=23)
    p = h.kern.plan
    h.kern.forced["replay_decode"] = Launch(DBV or p.DBV, 1, 2, BKT=p.BKT, onepass_flush=True)
    consts = h.kern.launch_args("replay_decode", 3, device)[0]
    assert consts["ONEPASS_FLUSH"] is True and consts["DNV"] == (3 if DBV else 1)
    rows = [(0, -1, 1), (0, 1, 2), (2, 0, -1), (0, 1, 2), (-1, 1, 0), (2, 0, 1), (1, 2, 0),
            (0, 1, 2), (2, 1, 0)]
    h.run([Step(r, flush=(2, -1) if i == 5 else None, fold=i == 7) for i, r in enumerate(rows)])
    assert h.device_flushes >= 5 and h.mixed_launches >= 3
    arrivals = h.state.fold_queue[2 + h.num_slots * p.HV:2 + h.num_slots * (p.HV + p.H)]   # per (slot, key head)
    assert arrivals.numel() == h.num_slots * p.H and int(arrivals.abs().sum()) == 0, \
        f"arrival counts left behind: {arrivals.tolist()}"


HEAD_SCORE_CASES = [v for v in sorted(ALL_CASES)
                    if Config(v, H=1, ratio=2, K=16, V=16, L=4, state_dtype="fp32", record_dtype="bf16",
                              input_dtype="bf16").load().plan.scores_at_head]


@pytest.mark.parametrize("variant", HEAD_SCORE_CASES)
@pytest.mark.parametrize("DBV,split,separate", [(8, 1, False), (8, 2, True), (16, 1, True)])
def test_head_scores(variant, DBV, split, separate, device):
    """Launch.head_scores (plan.scores_at_head: the key-chunk decode of scalar decays): the
    records' scores with q (and k) and the token's own score are taken once per program
    at the head, and no chunk of the stream loads the record keys. V = 20 in value tiles
    of 8: three tiles per program (two with a split of 2, whose programs share the rows'
    cursors); 16: two, the second partly masked; the flush fused (the flushing rows'
    first pass over the checkpoint takes the head's scores too, their fold its own record
    chunks) or in the fold launch. Three slots at staggered ring positions, a padding
    row, an explicit flush and a launch that folds every row; every output, state, cursor
    and ring row is checked against the reference (harness)."""
    cfg = Config(variant, H=1, ratio=2, K=16, V=20, L=4, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16",
                 optional=ALL_CASES[variant].optional_inputs)
    h = Harness(cfg, num_slots=3, device=device, seed=41 + DBV + split)
    p = h.kern.plan
    h.kern.forced["replay_decode"] = Launch(DBV, 1, 2, BKT=p.BKT, split=split,
                                            separate_flush=separate, head_scores=True)
    consts = h.kern.launch_args("replay_decode", 3, device)[0]
    assert consts["HEAD_SCORES"] is True and consts["NSPLIT"] == split
    assert consts["FUSED_FLUSH"] is (p.FUSED_FLUSH and not separate)
    rows = [(0, -1, 1), (0, 1, 2), (2, 0, -1), (0, 1, 2), (-1, 1, 0), (2, 0, 1), (1, 2, 0),
            (0, 1, 2)]
    h.run([Step(r, flush=(2, -1) if i == 5 else None, fold=i == 6) for i, r in enumerate(rows)])
    assert h.device_flushes >= 5 and h.mixed_launches >= 3


RECORD_BLOCK_CASES = [v for v in sorted(ALL_CASES)
                      if Config(v, H=1, ratio=2, K=16, V=16, L=4, state_dtype="fp32", record_dtype="bf16",
                                input_dtype="bf16").load().plan.record_blocks]


@pytest.mark.parametrize("variant", RECORD_BLOCK_CASES)
@pytest.mark.parametrize("block,DBV,split,heads", [(2, 8, 1, 1), (4, 8, 2, 1), (8, 16, 1, 2), (1, 16, 1, 1)])
def test_record_blocks(variant, block, DBV, split, heads, device):
    """Launch.record_block (plan.record_blocks, with head_scores, the flush in the fold
    launch): each value tile takes its records' output terms from the committed records
    only, `block` rows at a time (replay_decode_record_block), not from whole-ring tiles.
    L = 7: the ring's rows fill one by one, so every cursor 0..6 meets blocks of 1, 2, 4
    and 8 rows whole, partly past the cursor and (block 8 at DBV 16: a ring tile of 16
    rows) past the ring; V = 20 in value tiles of 8 or 16 (tiles per program: 3, or 2 with
    a split of 2, or 2 at 16 rows, the second partly masked); two value heads per program
    (heads 2, a key group of two). Three slots at staggered positions and a padding row,
    for 20 steps with an explicit flush; every output, state, cursor and ring row is
    checked against the reference (harness): a block that took a record past the cursor,
    skipped one, or weighted it with another row's decay would show."""
    cfg = Config(variant, H=1, ratio=2, K=16, V=20, L=7, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16",
                 optional=ALL_CASES[variant].optional_inputs)
    h = Harness(cfg, num_slots=3, device=device, seed=61 + block + DBV)
    p = h.kern.plan
    h.kern.forced["replay_decode"] = Launch(DBV, 1, 2, BKT=p.BKT, split=split, heads=heads,
                                            separate_flush=True, head_scores=True, record_block=block)
    consts = h.kern.launch_args("replay_decode", 3, device)[0]
    assert consts["RECORD_BLOCK"] == block and consts["HEAD_SCORES"] is True
    rows = [(0, -1, 1), (0, 1, 2), (2, 0, -1), (0, 1, 2), (-1, 1, 0)] * 4
    h.run([Step(r, flush=(2, -1) if i == 9 else None) for i, r in enumerate(rows)])
    assert h.device_flushes >= 3


HEADS_CASES = [v for v in sorted(ALL_CASES)
               if Config(v, H=1, ratio=4, K=16, V=16, L=4, state_dtype="fp32", record_dtype="bf16",
                         input_dtype="bf16").load().plan.decode_shares_keys]


@pytest.mark.parametrize("variant", HEADS_CASES)
@pytest.mark.parametrize("heads,separate,order", [(2, False, 0), (4, True, 0), (4, False, 1)])
def test_decode_programs_over_value_heads(variant, heads, separate, order, device):
    """Launch.heads in the key-chunk decode (plan.decode_shares_keys, with head_scores):
    each program serves `heads` value heads of one key group of four, the records' raw
    scores with the token's q (and k) taken once for all of them, each head weighting them
    by its own decays. V = 20 in value tiles of 8 (three per head); the flush fused (the
    flushing heads' second pass over their own checkpoints) or in the fold launch; the
    flushing rows' programs first (order 1: launch_order over HV / heads programs per
    row). Three slots at staggered ring positions, a padding row, an explicit flush and a
    launch that folds every row; every output, state, cursor and ring row of every head
    is checked against the reference (harness): a head that took another head's decays,
    a program that served the wrong heads or a key record written twice would show."""
    cfg = Config(variant, H=1, ratio=4, K=16, V=20, L=4, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16",
                 optional=ALL_CASES[variant].optional_inputs)
    h = Harness(cfg, num_slots=3, device=device, seed=53 + heads + order)
    p = h.kern.plan
    h.kern.forced["replay_decode"] = Launch(8, 1, 2, BKT=p.BKT, separate_flush=separate,
                                            head_scores=True, heads=heads, flush_order=order)
    consts = h.kern.launch_args("replay_decode", 3, device)[0]
    assert consts["HPP"] == heads and consts["HEAD_SCORES"] is True and consts["DNV"] == 3
    rows = [(0, -1, 1), (0, 1, 2), (2, 0, -1), (0, 1, 2), (-1, 1, 0), (2, 0, 1), (1, 2, 0),
            (0, 1, 2)]
    h.run([Step(r, flush=(2, -1) if i == 5 else None, fold=i == 6) for i, r in enumerate(rows)])
    assert h.device_flushes >= 5 and h.mixed_launches >= 3


CHUNK_CASES = [v for v in sorted(ALL_CASES)
               if "kchunks" in Config(v, H=1, ratio=2, K=16, V=16, L=4, state_dtype="fp32",
                                      record_dtype="bf16", input_dtype="bf16").load().plan.decode_template]


@pytest.mark.parametrize("variant", CHUNK_CASES)
@pytest.mark.parametrize("order", [0, 1, 4])
def test_flush_order(variant, order, device):
    """Launch.flush_order (the key-chunk decode): each program takes its (row, value head)
    from launch_order.flush_first, the flushing rows' programs first (order 1) or at every
    4th launch position, the others in grid order around them. Five slots at staggered
    ring positions, a padding row and duplicate-free batches of 3-6 rows, so most launches
    hold 1-2 flushing rows among appending ones; one launch folds every row; where the
    plan can fold in one pass, five more steps with both. Every output (in its own row),
    state, cursor and ring row is checked against the reference (harness): a program that
    served the wrong row or value head, or two programs serving one, would show."""
    cfg = Config(variant, H=1, ratio=2, K=16, V=16, L=4, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16",
                 optional=ALL_CASES[variant].optional_inputs)
    h = Harness(cfg, num_slots=5, device=device, seed=31 + order)
    p = h.kern.plan
    launch = Launch(p.DBV, 1, 2, BKT=p.BKT, flush_order=order)
    h.kern.forced["replay_decode"] = launch
    consts = h.kern.launch_args("replay_decode", 6, device)[0]
    assert consts["FLUSH_ORDER"] == order and consts["ROWS_P2"] == (8 if order else 1)
    rows = [(0, 1, 2), (3, 0, 1, 4, 2), (0, -1, 3, 1), (4, 2, 0, 1, 3, -1), (1, 0, 3),
            (2, 4, 3, 0, 1), (3, 1, -1, 4, 0, 2), (0, 1, 2, 3, 4), (4, 3, 2, 1, 0)]
    words = 2 + h.num_slots * (p.HV + p.H)   # the order words (launch_order)
    moved, decode = [], h.kern.decode

    def watched(state, slots, **kw):   # which launches had a flagged row that is not first
        epoch = int(state.fold_queue[words]) >> 24
        flags = order_flags(state, p)[epoch].tolist()
        flagged = [r for r, s in enumerate(slots.tolist()) if s >= 0 and flags[s]]
        moved.append(bool(flagged) and flagged != list(range(len(flagged))))
        return decode(state, slots, **kw)

    h.kern.decode = watched
    h.run([Step(r, fold=i == 6) for i, r in enumerate(rows)])
    assert h.device_flushes >= 5 and h.mixed_launches >= 3
    assert order == 0 or sum(moved) >= 3, f"launches that reordered: {moved}"
    if p.onepass_flushes:
        h.kern.forced["replay_decode"] = dataclasses.replace(launch, onepass_flush=True)
        h.run([Step(r) for r in rows[:5]])
    if order:   # a slot reloaded (a new request) is not flagged, whatever its ring held
        flagged = [s for s in range(h.num_slots) if order_flags(h.state, p)[:, s].any()]
        assert flagged, "no slot flagged after the run"
        h.kern.load_state(h.state, torch.tensor(flagged, dtype=torch.int32, device=device),
                          torch.randn(len(flagged), *h.kern.state_shape, device=device))
        assert not order_flags(h.state, p)[:, flagged].any()


def test_all_padding_launch_writes_nothing(device):
    """A launch whose rows are all padding writes zeros to out and nothing else."""
    cfg = Config("gdn", H=1, ratio=2, K=4, V=3, L=3, state_dtype="fp32",
                 record_dtype="fp32", input_dtype="fp32")
    Harness(cfg, num_slots=2, device=device, seed=3).run(
        [Step((0, 1)), Step((-1, -1)), Step((1, -1)), Step((-1,))])


def test_launch_with_no_rows(device):
    """A batch of zero rows (an idle engine step) is a no-op for every entry point."""
    cfg = Config("mamba2", H=1, ratio=2, K=4, V=3, L=3, state_dtype="fp32",
                 record_dtype="fp32", input_dtype="fp32")
    h = Harness(cfg, num_slots=2, device=device, seed=3)
    h.run([Step((0, 1))])
    none = torch.empty(0, dtype=torch.int32, device=device)
    inputs, _ = h.make_inputs(0)
    assert h.kern.decode(h.state, none, **inputs).shape == (0, 2, 3)
    assert h.kern.conventional_decode(h.pool, none, **inputs, **h.params).shape == (0, 2, 3)
    assert h.kern.materialize(h.state, none).shape == (0, 2, 3, 4)
    h.kern.flush(h.state, none)
    h.check_pool("after launches with no rows")


def test_slot_outside_the_pool_is_loud_and_harmless(device):
    """A slot index past the pool must not write out of bounds (a host check would cost a
    sync per launch): every entry point leaves all state bit-identical and answers NaN
    for that row, so the mistake is visible; the other rows are unaffected."""
    cfg = Config("kda", H=1, ratio=2, K=4, V=3, L=3, state_dtype="fp32",
                 record_dtype="fp32", input_dtype="fp32")
    h = Harness(cfg, num_slots=2, device=device, seed=5)
    h.run([Step((0, 1)), Step((1,))])
    before = snapshot(h.state)
    pool_before = h.pool.clone()
    bad = torch.tensor([2, -1, 7], dtype=torch.int32, device=device)
    inputs, _ = h.make_inputs(3)
    out = h.kern.decode(h.state, bad, **inputs)
    conv = h.kern.conventional_decode(h.pool, bad, **inputs, **h.params)
    for o in (out, conv):
        assert torch.isnan(o[0]).all() and torch.isnan(o[2]).all() and (o[1] == 0).all()
    m = h.kern.materialize(h.state, bad)
    assert torch.isnan(m[0]).all() and (m[1] == 0).all() and torch.isnan(m[2]).all()
    h.kern.flush(h.state, bad)
    after = snapshot(h.state)
    tensors = lambda snap: {"checkpoint": snap["checkpoint"], "cursor": snap["cursor"],  # noqa: E731
                            **{f"ring {n}": t for n, t in snap["ring"].items()}}
    for name, t in tensors(before).items():   # bitwise (the rings hold NaN past the cursor)
        assert torch.equal(t.view(torch.uint8), tensors(after)[name].view(torch.uint8)), name
    assert torch.equal(pool_before, h.pool)
    h.run([Step((1, 0))])   # the pool still behaves


@pytest.mark.cuda
@pytest.mark.skipif(not CUDA, reason="real geometries are too slow for the interpreter")
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_real_geometry(variant, device):
    """The first named config of each spec: batch 8 (7 slots and a padding row, in
    shuffled rows), L = 16, 20 steps; each step leaves out one slot in turn, so slots
    sit at different ring positions and flush in different launches; bf16 records and
    inputs, one explicit flush."""
    from replaygen.spec import load_variant
    spec_cfg = load_variant(variant).configs[0]
    case = VARIANTS[variant]
    d = spec_cfg.dims
    H, HV, K, V = (d[name] for name in load_variant(variant).dim_names)
    cfg = Config(variant, H=H, ratio=HV // H, K=K, V=V, L=16, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16", optional=case.optional_inputs)
    assert case.dims(H, HV, K, V) == dict(d)
    h = Harness(cfg, num_slots=8, device=device, seed=5)
    g = torch.Generator().manual_seed(7)
    schedule = []
    for t in range(20):
        rows = [s for s in range(8) if s != t % 8] + [-1]
        perm = torch.randperm(8, generator=g).tolist()
        schedule.append(Step(tuple(rows[i] for i in perm), flush=(3,) if t == 12 else None))
    h.run(schedule)
