"""Speculative decoding against the independent float64 reference (tests/reference.py).

A Hypothesis state machine per variant (every spec in specs/ and every fixture spec)
interleaves decode, verify (random T <= T_MAX, a random draft count per row), commit
(random accepted counts, 0 included), explicit flushes and materialisation on one
pool whose slots sit at different cursor positions. The reference runs only the
accepted token stream: after every operation the machine checks every output (drafts
included), the materialised states and the cursors (`harness.Harness.check_pool`), and
that verify wrote nothing but the drafts' ring rows and the pending-draft counts: the
checkpoint bit-identical, committed records and unselected slots untouched, except in
the rows a verify folded (plan.VERIFY_FOLDS: drafts that would pass CAP = L committed
records), whose checkpoint is the fold, cursor 0, and materialised state the same. A
conventional pool follows the same stream through the conventional speculative path
(one snapshot per draft, select the accepted one), checked against the same reference.
Commits with invalid counts raise InputError and change nothing; with check=False the
kernel clamps them to the drafts actually verified.

Budget: each machine runs a few short programs with small dims (K, V in 3..6, or 16
and 20 for the tl.dot branch): 3 programs of 12 steps per variant in the interpreter
(5 took 20-44 s per variant, session 16; the fixed schedules below cover the cases a
short random run may miss); more examples on a GPU (harness.scale).
"""
from __future__ import annotations

import dataclasses

import pytest
import torch
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, precondition, rule,
                                 run_state_machine_as_test)

from harness import (ALL_CASES, CUDA, VARIANTS, Config, Harness, aux_changed, check, examples,
                     same_bits, snapshot)
from replaygen import ConfigError, InputError

SLOTS = 3
# no shrinking: a failing program is reported as drawn (shrinking a stateful run in the
# interpreter takes minutes)
PHASES = [Phase.explicit, Phase.reuse, Phase.generate]


def spec_config(variant: str, draw) -> Config:
    dot = draw(st.integers(0, 3)) == 3   # 1 in 4: the tl.dot branch
    dims = (st.sampled_from([16, 20]) if dot else st.integers(3, 6))
    L, T = draw(st.integers(1, 5)), draw(st.integers(1, 4))
    return Config(
        variant=variant, H=draw(st.integers(1, 2)), ratio=draw(st.integers(1, 2)),
        K=draw(dims), V=draw(dims), L=L,
        state_dtype=draw(st.sampled_from(["fp32", "bf16"])),
        record_dtype=draw(st.sampled_from(["fp32", "bf16"])),
        input_dtype=draw(st.sampled_from(["fp32", "bf16"])),
        optional=tuple(n for n in ALL_CASES[variant].optional_inputs if draw(st.booleans())),
        max_drafts=T, verify_folds=2 <= T <= L and draw(st.booleans()))


class SpecDriver:
    """One pool (`harness.Harness`, which checks decode, flush and materialize) driven
    through verify and commit; every method performs one operation and checks it."""

    def __init__(self, cfg: Config, device: str, seed: int, strong_decay: bool = False):
        self.h = Harness(cfg, SLOTS, device, seed=seed, speculative=True,
                         strong_decay=strong_decay)
        self.kern, self.state = self.h.kern, self.h.state
        self.pending = [0] * SLOTS      # drafts a commit may accept, per slot
        self.last = None                # the last verify: rows, slots, reference states, snapshots
        self.ops = 0
        self.events: set[str] = set()

    def check_pending(self):
        got = self.kern.pending_drafts(self.state).tolist()
        assert got == self.pending, f"op {self.ops}: pending drafts {got}, expected {self.pending}"

    def decode(self, rows):
        self.h.decode(rows)
        for s in rows:
            if s >= 0:
                self.pending[s] = 0   # a decode discards the slot's pending drafts
        self.ops += 1

    def flush(self, rows):
        for s in rows:
            if s >= 0 and self.h.cursor[s] > 0:
                self.pending[s] = 0   # the drafts no longer follow the cursor
        self.h.flush(rows)
        self.ops += 1

    def reference_window(self, s, inputs64, r, count):
        """Reference states and outputs of `count` drafts of row r after slot s's state."""
        S, states, outs = self.h.ref[s], [], []
        for i in range(count):
            S, o = self.h.cfg.case.step(S, **{n: t[r, i] for n, t in inputs64.items()},
                                        **self.h.params64)
            states.append(S)
            outs.append(o)
        return states, outs

    def verify(self, rows, T, counts):
        h, kern = self.h, self.kern
        flat, flat64 = h.make_inputs(len(rows) * T)
        inputs = {n: t.view(len(rows), T, *t.shape[1:]) for n, t in flat.items()}
        inputs64 = {n: t.view(len(rows), T, *t.shape[1:]) for n, t in flat64.items()}
        slots = h._slots(rows)
        num_drafts = torch.tensor(counts, dtype=torch.int32, device=h.device)
        before = snapshot(self.state)
        # rows whose drafts would pass CAP committed records fold first (plan.VERIFY_FOLDS);
        # their drafts still go to the rows after the old cursor
        drafted_rows = {s: range(h.cursor[s], h.cursor[s] + c) for s, c in zip(rows, counts)}
        folded = [s for s, c in zip(rows, counts) if s >= 0 and kern.plan.VERIFY_FOLDS
                  and h.cursor[s] > 0 and h.cursor[s] + c > kern.plan.CAP]
        for s in folded:
            h.cursor[s] = 0
            h.roundings[s] += 1
            self.events.add("a verify folded")
        shape = (len(rows), T, kern.plan.HV, kern.plan.V)
        out = torch.full(shape, float("nan"), dtype=h.idt, device=h.device)
        kern.verify(self.state, slots, num_drafts=num_drafts, out=out, **inputs)
        conv = torch.full(shape, float("nan"), dtype=h.idt, device=h.device)
        snaps = torch.full(kern.snapshot_shape(len(rows)), float("nan"), dtype=h.sdt,
                           device=h.device)
        kern.conventional_verify(h.pool, slots, snaps, num_drafts=num_drafts, out=conv,
                                 **inputs, **h.params)
        where = f"op {self.ops} (verify T={T}, counts {counts}, rows {rows})"
        windows = {}
        for r, s in enumerate(rows):
            if s < 0:
                assert bool((out[r] == 0).all()) and bool((conv[r] == 0).all()), \
                    f"{where}: padding row {r} output is not zero"
                continue
            states, outs = self.reference_window(s, inputs64, r, counts[r])
            windows[r] = states
            for i, o_ref in enumerate(outs):
                h.out_scale.add(o_ref)
                floor = h.out_scale.floor(o_ref)
                check(f"{where}: draft {i} of row {r} (slot {s}, cursor {h.cursor[s]})",
                      out[r, i], o_ref, h.tol_out(s), floor, h._log("out", o_ref))
                check(f"{where}: conventional draft {i} of row {r} (slot {s})",
                      conv[r, i], o_ref, h.tol_conv(s), floor, h._log("conv_out", o_ref))
            assert bool((out[r, counts[r]:] == 0).all()), f"{where}: drafts past the count are not zero"
            assert bool((conv[r, counts[r]:] == 0).all()), \
                f"{where}: conventional drafts past the count are not zero"
            self.pending[s] = counts[r]
        # verify writes only the drafts' ring rows and the pending counts (and a folding
        # row's checkpoint, cursor and flush counter)
        for s in range(SLOTS):
            if s in folded:
                assert int(self.state.cursor[s, 0]) == 0, f"{where}: slot {s} folded, cursor not 0"
                continue
            assert same_bits(self.state.checkpoint[s], before["checkpoint"][s]), \
                f"{where}: checkpoint of slot {s} written"
            assert same_bits(self.state.cursor[s], before["cursor"][s]), f"{where}: cursor of slot {s} written"
            assert not aux_changed(self.state, before, s), \
                f"{where}: {aux_changed(self.state, before, s)} of slot {s} written"
        for s in range(SLOTS):
            keep = [i for i in range(kern.plan.RING) if i not in drafted_rows.get(s, ())]
            for name, ring in self.state.ring.items():
                assert same_bits(ring[s][:, keep], before["ring"][name][s][:, keep]), \
                    f"{where}: ring '{name}' of slot {s} changed in rows {keep}"
        self.check_pending()
        self.last = (rows, slots, windows, snaps)
        if len({h.cursor[s] for s in rows if s >= 0}) > 1:
            self.events.add("verify rows at different cursors")
        self.ops += 1
        # every state a materialisation reads (checkpoint, cursors, committed ring rows,
        # aux) is bit for bit as it was, except where a row folded: check them all
        h.check_pool(where, folded)

    def _apply_commit(self, accepted):
        """The model's side of a commit of the last verify's rows."""
        h = self.h
        rows, _, windows, _ = self.last
        for r, s in enumerate(rows):
            if s < 0:
                continue
            a = accepted[r]
            if a:
                h.ref[s] = windows[r][a - 1]
                if h.cfg.state_dtype != "fp32":
                    h.conv_roundings[s] += 1   # the installed snapshot was rounded once
            h.cursor[s] += a
            if h.cursor[s] > self.kern.plan.CAP:   # the capacity rule: fold past CAP records
                h.cursor[s] = 0
                h.roundings[s] += 1
                self.events.add("a commit folded")
            self.pending[s] = 0

    def commit(self, accepted, check_counts=True):
        """Commit the last verify's rows (the conventional pool selects the same drafts);
        a slot whose drafts a decode or flush discarded since accepts 0 (its conventional
        snapshots are stale: selecting none keeps the pool's state)."""
        rows, slots, _, snaps = self.last
        num = torch.tensor(accepted, dtype=torch.int64, device=self.h.device)
        before = snapshot(self.state)
        self.kern.commit(self.state, slots, num, check=check_counts)
        clamped = [0 if s < 0 else min(a, self.pending[s]) for s, a in zip(rows, accepted)]
        self.kern.conventional_commit(self.h.pool, slots, snaps,
                                      torch.tensor(clamped, dtype=torch.int32, device=self.h.device))
        self._apply_commit(clamped)
        self.ops += 1
        self.check_pending()
        where = f"op {self.ops} (commit {accepted}, rows {rows})"
        for s in set(range(SLOTS)) - set(rows):   # slots outside the commit: untouched
            assert same_bits(self.state.checkpoint[s], before["checkpoint"][s]) and \
                same_bits(self.state.cursor[s], before["cursor"][s]) and \
                all(same_bits(t[s], before["ring"][n][s]) for n, t in self.state.ring.items()) and \
                not aux_changed(self.state, before, s), f"{where}: slot {s} (not committed) changed"
        self.h.check_pool(where, [s for s in rows if s >= 0])

    def invalid_commit(self, accepted):
        """Counts above the pending drafts: InputError with the host check, nothing changes."""
        _, slots, _, _ = self.last
        num = torch.tensor(accepted, dtype=torch.int32, device=self.h.device)
        before = snapshot(self.state)
        with pytest.raises(InputError, match="num_accepted"):
            self.kern.commit(self.state, slots, num)
        after = snapshot(self.state)
        assert all(same_bits(after[k], before[k]) for k in ("checkpoint", "cursor", "drafted"))


class SpeculativeMachine(RuleBasedStateMachine):
    variant = device = ""   # set per variant by `machine_for`

    @initialize(data=st.data())
    def setup(self, data):
        cfg = spec_config(self.variant, data.draw)
        self.d = SpecDriver(cfg, self.device, data.draw(st.integers(0, 2 ** 16)))

    def draw_rows(self, data):
        """A batch: a random subset of slots in random rows, with padding rows."""
        present = data.draw(st.lists(st.integers(0, SLOTS - 1), unique=True, min_size=1,
                                     max_size=SLOTS), label="slots")
        rows = present + [-1] * data.draw(st.integers(0, 1), label="padding")
        return tuple(data.draw(st.permutations(rows), label="rows"))

    def draw_verify(self, data):
        rows = self.draw_rows(data)
        T = data.draw(st.integers(1, self.d.h.cfg.max_drafts), label="T")
        self.d.verify(rows, T, [data.draw(st.integers(0, T), label="num_drafts") for _ in rows])

    def draw_accepted(self, data):
        return [0 if s < 0 else data.draw(st.integers(0, self.d.pending[s]), label="accepted")
                for s in self.d.last[0]]

    @rule(data=st.data())
    def decode(self, data):
        self.d.decode(self.draw_rows(data))

    @rule(data=st.data())
    def verify(self, data):
        self.draw_verify(data)

    @rule(data=st.data())
    def verify_and_commit(self, data):   # the usual engine step
        self.draw_verify(data)
        self.d.commit(self.draw_accepted(data))

    @precondition(lambda self: self.d.last is not None)
    @rule(data=st.data())
    def commit(self, data):   # possibly after other operations, or a second time (accepts 0)
        self.d.commit(self.draw_accepted(data))

    @precondition(lambda self: self.d.last is not None)
    @rule(data=st.data())
    def invalid_commit(self, data):
        """A count above a slot's pending drafts: InputError; without the host check (as
        in a CUDA graph) the kernel clamps it to the drafts actually verified."""
        rows = self.d.last[0]
        r_bad = data.draw(st.sampled_from([r for r, s in enumerate(rows) if s >= 0]))
        accepted = [0 if s < 0 else self.d.pending[s] for s in rows]
        accepted[r_bad] += data.draw(st.integers(1, 3), label="excess")
        self.d.invalid_commit(accepted)
        if data.draw(st.booleans(), label="unchecked"):
            self.d.commit(accepted, check_counts=False)

    @rule(data=st.data())
    def flush(self, data):
        self.d.flush(self.draw_rows(data))


def machine_for(variant: str, device: str):
    return type(f"Speculative_{variant}", (SpeculativeMachine,),
                {"variant": variant, "device": device})


@pytest.mark.parametrize("variant", sorted(ALL_CASES))
def test_speculative_protocol_matches_reference(variant, device):
    run_state_machine_as_test(
        machine_for(variant, device),
        settings=settings(max_examples=examples(3), stateful_step_count=12, deadline=None,
                          derandomize=True, suppress_health_check=list(HealthCheck),
                          phases=PHASES))


@pytest.mark.parametrize("low", ["bf16", "fp32"])
@pytest.mark.parametrize("variant", sorted(ALL_CASES))
def test_speculative_schedule(variant, low, device):
    """A fixed schedule that reaches what random programs may miss: K, V >= 16 (the
    tl.dot branch, K = 20 masking a padded key block), T_MAX = 3 on L = 4 (RING = 6),
    three slots whose cursors differ in every verify, commits that fold (full
    acceptance from n = 3) and that accept nothing, a decode and a flush between a
    verify and its commit, a second commit, and an invalid count rejected, then clamped.
    Records and inputs in bf16 (the serving precision), and in fp32: there the tolerance
    is ~3e-5 instead of ~0.1 (harness.tolerance), so a verify that is off by a fraction
    of a percent fails (a version scaling its outputs by 1.01 passed every bf16 test)."""
    cfg = Config(variant, H=1, ratio=2, K=20, V=16, L=4, state_dtype="fp32",
                 record_dtype=low, input_dtype=low,
                 optional=ALL_CASES[variant].optional_inputs, max_drafts=3)
    d = SpecDriver(cfg, device, seed=3)
    run_schedule(d)
    assert d.kern.plan.fold_dot


@pytest.mark.parametrize("variant", sorted(ALL_CASES))
def test_speculative_schedule_with_split_folds(variant, device):
    """The same schedule with every fold launch (commits, the flush, the harness's
    materialisations) split over two programs per (row, value head)
    (Kernels.fold_grid_split) on three value tiles (V = 40): tiles {0, 2} and {1}. Every
    program reads the cursor and the pending drafts before the last to arrive publishes
    them; one that read them after another published would fold nothing or the wrong
    records (a version where each program published failed here: pending drafts 65536),
    and the reference check (fp32 records: ~3e-5) would fail."""
    cfg = Config(variant, H=1, ratio=2, K=20, V=40, L=4, state_dtype="fp32",
                 record_dtype="fp32", input_dtype="fp32",
                 optional=ALL_CASES[variant].optional_inputs, max_drafts=3)
    d = SpecDriver(cfg, device, seed=5)
    assert d.kern.launch_args("fold", SLOTS, device)[0]["NV"] == 3
    d.kern.forced_fold_grid_split = 2
    run_schedule(d)


def test_fold_grid_split_rule(monkeypatch, device):
    """Kernels.fold_grid_split: the largest power of two, up to the fold's value tiles, that
    keeps rows x value heads x split within FOLD_GRID_PROGRAMS_PER_SM programs per
    multiprocessor (here 8 multiprocessors: 128 programs); a forced split wins."""
    from replaygen import runtime
    cfg = Config("gla", H=1, ratio=2, K=20, V=40, L=4, state_dtype="fp32", record_dtype="fp32",
                 input_dtype="fp32", max_drafts=3)
    kern = Harness(cfg, SLOTS, device, seed=1, speculative=True).kern
    monkeypatch.setattr(runtime, "multiprocessors", lambda device: 8)
    assert kern.launch_args("fold", 4, device)[0]["NV"] == 3 and kern.plan.HV == 2
    assert [kern.fold_grid_split(rows, device) for rows in (1, 16, 32, 33, 64, 65)] == [2, 2, 2, 1, 1, 1]
    kern.forced_fold_grid_split = 3
    assert kern.fold_grid_split(64, device) == 3


def run_schedule(d: SpecDriver):
    """test_speculative_schedule's operations on a fresh driver."""
    d.decode((0, -1, 1))
    d.decode((0,))                              # cursors (2, 1, 0)
    d.verify((2, 0, -1, 1), 3, [3, 2, 3, 1])
    d.commit([2, 1, 0, 1])                      # (3, 2, 2)
    d.verify((0, 1, 2), 3, [3, 3, 2])
    d.commit([3, 1, 0])                         # slot 0 folds 6 records: (0, 3, 2)
    d.verify((1, 2, 0), 2, [2, 2, 1])
    d.decode((2,))                              # discards slot 2's drafts: (0, 3, 3)
    d.invalid_commit([1, 1, 1])
    d.commit([2, 0, 0])                         # slot 1 folds: (0, 0, 3)
    d.commit([0, 0, 0])                         # nothing pending any more
    d.verify((0, 1, 2), 3, [3, 3, 3])
    d.flush((2, -1, 0))                         # slot 2 folds, discarding its drafts;
    d.invalid_commit([0, 0, 2])                 # slot 0 (empty ring) keeps its drafts
    d.commit([1, 3, 0])                         # (1, 3, 0)
    d.verify((0, 1, 2), 3, [2, 2, 2])
    d.commit([3, 1, 2], check_counts=False)     # clamped to 2 on the device: (3, 0, 2)
    assert d.events == {"verify rows at different cursors", "a commit folded"}


@pytest.mark.parametrize("variant", sorted(n for n, c in ALL_CASES.items() if c.strong_decay))
def test_verify_window_with_strong_decays(variant, device):
    """Per-channel decays of tens of nats per token (VariantCase.strong_decay): a verify of
    one or two drafts spans less than plan.window_span and takes the window's split
    product, with factors up to exp(±80) (split at n); of more drafts, in most heads, more, and
    takes the exact pair-by-pair path. Both against the float64 reference, fp32 records
    and inputs (tolerance ~3e-5), K = 20 (the tl.dot branch) and K = 5 (broadcast sums)."""
    for K, V in ((20, 16), (5, 4)):
        cfg = Config(variant, H=1, ratio=2, K=K, V=V, L=8, state_dtype="fp32",
                     record_dtype="fp32", input_dtype="fp32",
                     optional=ALL_CASES[variant].optional_inputs, max_drafts=6)
        d = SpecDriver(cfg, device, seed=11, strong_decay=True)
        d.decode((0, 1, 2))
        d.verify((0, 1, 2), 6, [6, 1, 2])
        d.commit([4, 1, 2])
        d.verify((2, 0, 1), 6, [3, 6, 2])
        d.commit([3, 2, 0])
        assert "verify rows at different cursors" in d.events


@pytest.mark.parametrize("low,ratio", [("bf16", 2), ("fp32", 2), ("fp32", 1)])
@pytest.mark.parametrize("variant", sorted(ALL_CASES))
def test_speculative_schedule_with_verify_folds(variant, low, ratio, device):
    """The schedule above with verify_folds=True: K, V >= 16 (the tl.dot branch, K = 20
    masking a padded key block), T_MAX = 3 on L = 4 (VERIFY_FOLDS: CAP = 4, RING = 7), three slots whose cursors differ in every verify, verifies that
    fold (drafts past 4 committed records), commits that move the accepted drafts to the
    ring's start (one whose rows overlap: base 2, three accepted) and that accept
    nothing, a decode and a flush between a verify and its commit, a second commit, and
    an invalid count rejected, then clamped.
    Records and inputs in bf16 (the serving precision), and in fp32: there the tolerance
    is ~3e-5 instead of ~0.1 (harness.tolerance), so a verify that is off by a fraction
    of a percent fails (a version scaling its outputs by 1.01 passed every bf16 test).
    Key groups of two value heads, whose programs share key rows, and of one (ratio 1:
    KDA's and GLA's shipped shape, each ring row read by one program only)."""
    cfg = Config(variant, H=1, ratio=ratio, K=20, V=16, L=4, state_dtype="fp32",
                 record_dtype=low, input_dtype=low,
                 optional=ALL_CASES[variant].optional_inputs, max_drafts=3, verify_folds=True)
    d = SpecDriver(cfg, device, seed=3)
    assert d.kern.plan.VERIFY_FOLDS and (d.kern.plan.CAP, d.kern.plan.RING) == (4, 7)
    d.decode((0, -1, 1))
    d.decode((0,))                              # cursors (2, 1, 0)
    d.verify((2, 0, -1, 1), 3, [3, 2, 3, 1])    # 2 + 2 drafts fit CAP: no fold
    d.commit([2, 1, 0, 1])                      # (3, 2, 2)
    d.verify((0, 1, 2), 3, [3, 3, 2])           # slots 0 and 1 fold first: (0, 0, 2)
    d.commit([3, 1, 0])                         # drafts moved from rows 3.. and 2..: (3, 1, 2)
    d.verify((1, 2, 0), 2, [2, 2, 1])
    d.decode((2,))                              # discards slot 2's drafts: (3, 1, 3)
    d.invalid_commit([1, 1, 1])
    d.commit([2, 0, 0])                         # (3, 3, 3)
    d.commit([0, 0, 0])                         # nothing pending any more
    d.verify((0, 1, 2), 3, [3, 3, 3])           # every slot folds: (0, 0, 0)
    d.flush((2, -1, 0))                         # empty rings: nothing folds, drafts stay
    d.invalid_commit([0, 0, 4])
    d.commit([1, 3, 0])                         # (1, 3, 0)
    d.verify((0, 1, 2), 3, [2, 2, 2])           # slot 1 folds: (1, 0, 0)
    d.commit([3, 1, 2], check_counts=False)     # clamped to 2 on the device: (3, 1, 2)
    d.verify((2, 1), 3, [3, 1])                 # slot 2 folds, its drafts at rows 2..4
    d.commit([3, 1])                            # rows 2..4 -> 0..2 (overlapping): (3, 2, 3)
    d.flush((0, 1, 2))                          # (0, 0, 0)
    assert d.events == {"verify rows at different cursors", "a verify folded"}
    assert d.kern.plan.fold_dot
    # a commit after a folding verify must stay within L records: T_MAX <= L
    with pytest.raises(ConfigError, match="verify_folds=True needs max_drafts <= L"):
        dataclasses.replace(cfg, L=2).load()


def _folding_windows(d):
    """Verify/commit windows on L = 4, T_MAX = 3 that fold (in a commit; with
    verify_folds in a verify), rows at different cursors and a padding row."""
    d.decode((0,))
    d.verify((0, 1, -1), 3, [3, 2, 3])
    d.commit([3, 1, 0])                         # slot 0 folds: (0, 1); verify_folds: (4, 1)
    d.verify((1, 0), 3, [3, 1])                 # (verify_folds: slot 0 folds)
    d.commit([2, 1])
    d.verify((0, 1), 3, [2, 3])                 # (verify_folds: slot 1 folds)


@pytest.mark.parametrize("verify_folds", [False, True])
@pytest.mark.parametrize("variant", sorted(v for v in ALL_CASES if v in ("mamba2", "gdn")))
def test_key_chunk_verify_with_other_tiles(variant, verify_folds, device):
    """The key-chunked verify under a launch other than the plan's (as a tuning table or
    Kernels.forced gives it): value tiles of 16 rows (two passes over V = 32, the drafts'
    key-side work redone per tile) and key chunks of 16 (two chunks of K = 20's padded
    block, the second masked past K), with the tl.dot branch; checked against the float64
    reference through verify/commit windows that fold (in the commit; with verify_folds in
    the verify, whose fold then takes each key chunk's columns of the records' keys)."""
    from replaygen.plan import verify_is_chunked
    from replaygen.tuning import Launch
    cfg = Config(variant, H=1, ratio=2, K=20, V=32, L=4, state_dtype="fp32",
                 record_dtype="fp32", input_dtype="fp32",
                 optional=ALL_CASES[variant].optional_inputs, max_drafts=3,
                 verify_folds=verify_folds)
    d = SpecDriver(cfg, device, seed=7)
    assert verify_is_chunked(d.kern.plan) and d.kern.plan.verify_dbv == 32
    d.kern.forced["verify"] = Launch(BV=16, num_warps=1, num_stages=1, BKT=16)
    consts, _ = d.kern.launch_args("verify", 3, device)
    assert (consts["DNV"], consts["NK"], consts["DECODE_FOLD_DOT"]) == (2, 2, True)
    d.kern.forced["verify_fold"] = d.kern.forced["verify"]
    _folding_windows(d)
    assert ("a verify folded" if verify_folds else "a commit folded") in d.events


@pytest.mark.parametrize("variant", sorted(v for v in ALL_CASES if v in ("mamba2", "gdn")))
@pytest.mark.parametrize("heads,verify_folds", [(2, False), (4, False), (2, True)])
def test_key_chunk_verify_shares_a_group(variant, heads, verify_folds, device):
    """Programs serving several value heads of one key group (Launch.heads; 2 and 4 of a
    group of 4, two key heads): the key-level work (raw draft rows, reductions, record
    keys, raw scores) done once per program must give every head its own outputs and
    records; rows at different cursors and partial acceptance, with the tl.dot branch,
    checked against the float64 reference through windows that fold. With verify_folds
    and 2 heads per program, two programs share a key group's records while the verify
    folds them: the drafts must not overwrite a record the other program still reads."""
    from replaygen.tuning import Launch
    cfg = Config(variant, H=2, ratio=4, K=16, V=16, L=4, state_dtype="fp32",
                 record_dtype="fp32", input_dtype="fp32",
                 optional=ALL_CASES[variant].optional_inputs, max_drafts=3,
                 verify_folds=verify_folds)
    d = SpecDriver(cfg, device, seed=11 + heads)
    d.kern.forced["verify"] = Launch(BV=16, num_warps=1, num_stages=1, BKT=16, heads=heads)
    d.kern.forced["verify_fold"] = d.kern.forced["verify"]
    consts, _ = d.kern.launch_args("verify", 3, device)
    assert consts["HPP"] == heads and consts["DECODE_FOLD_DOT"]
    d.decode((0, 2))
    d.verify((0, 1, -1, 2), 3, [3, 2, 3, 1])
    d.commit([3, 1, 0, 1])                      # slot 0 folds (verify_folds: (4, 1, 2))
    d.verify((1, 0), 3, [3, 2])                 # (verify_folds: slot 0 folds)
    d.commit([2, 2])                            # (verify_folds: its drafts move)
    d.verify((2, 0, 1), 3, [2, 3, 3])           # (verify_folds: slots 0 and 1 fold)
    assert {"verify rows at different cursors",
            "a verify folded" if verify_folds else "a commit folded"} <= d.events


@pytest.mark.parametrize("verify_folds", [False, True])
@pytest.mark.parametrize("variant", sorted(v for v in ALL_CASES if v in ("kda", "gla")))
def test_value_tile_verify_in_two_launches(variant, verify_folds, device):
    """Launch.head_launch: the value-tile verify as a head launch, whose products go
    through the fp32 workspace, and a stream launch; with verify_folds the folding rows'
    launch too (their workspace also holds the fold's weights, which the stream folds
    with). Checked against the float64 reference through windows that fold, rows at
    different cursors, a padding row; and against the same schedule in one launch: the
    rings (the drafts' records, the stream's corrected values among them), checkpoints
    (folded by the stream launch with verify_folds) and cursors equal bit for bit in the
    interpreter (the same fp32 operations; compiled, the two launches may contract them
    differently: 1e-6)."""
    from replaygen.plan import verify_is_chunked
    from replaygen.tuning import Launch
    cfg = Config(variant, H=1, ratio=2, K=20, V=32, L=4, state_dtype="fp32",
                 record_dtype="fp32", input_dtype="fp32",
                 optional=ALL_CASES[variant].optional_inputs, max_drafts=3,
                 verify_folds=verify_folds)
    drivers = [SpecDriver(cfg, device, seed=13) for _ in range(2)]
    split, one = drivers
    assert not verify_is_chunked(split.kern.plan)
    # (the head launch at two warps, Launch.head_warps: on a GPU its [BT, BK] tiles span
    # warps and the stream's do not; the interpreter ignores warps)
    split.kern.forced["verify"] = Launch(BV=16, num_warps=1, num_stages=1, head_launch=True,
                                         head_warps=2)
    one.kern.forced["verify"] = Launch(BV=16, num_warps=1, num_stages=1)
    # (the folding launch untuned: it takes the verify's launch, under its own rules, so
    # its workspace holds the fold's weights too)
    one.kern.forced["verify_fold"] = one.kern.forced["verify"]
    consts, _ = split.kern.launch_args("verify", 3, device)
    assert consts["SPLIT_HEAD"] == 1 and consts["WS"] > 0 and consts["FOLD_DOT"]
    for d in drivers:
        _folding_windows(d)
    assert ("a verify folded" if verify_folds else "a commit folded") in split.events
    # (compiled, the head launch's reductions may take another order than one launch's:
    # Triton lays out the head's tensors for the whole kernel. H200: 3e-5 on KDA's bf16
    # outputs at its real geometry, 0 for GLA. Ring rows never written are NaN in both)
    exact = device == "cpu"
    close = lambda a, b: torch.allclose(a, b, rtol=1e-6, atol=1e-6, equal_nan=True)  # noqa: E731
    for name in split.state.ring:
        a, b = split.state.ring[name], one.state.ring[name]
        assert same_bits(a, b) if exact else close(a, b), name
    assert same_bits(split.state.cursor, one.state.cursor)
    a, b = split.state.checkpoint, one.state.checkpoint
    assert same_bits(a, b) if exact else close(a, b)


@pytest.mark.cuda
@pytest.mark.skipif(not CUDA, reason="real geometries are too slow for the interpreter")
@pytest.mark.parametrize("verify_folds", [False, True])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_speculative_real_geometry(variant, verify_folds, device):
    """The first named config of each spec, L = 16, T_MAX = 8, bf16 records and inputs:
    three slots at staggered cursors through windows of 8 drafts with partial, full and
    no acceptance (folding commits included; with verify_folds folding verifies),
    checked against the float64 reference."""
    from replaygen.spec import load_variant
    spec = load_variant(variant)
    d = spec.configs[0].dims
    H, HV, K, V = (d[name] for name in spec.dim_names)
    cfg = Config(variant, H=H, ratio=HV // H, K=K, V=V, L=16, state_dtype="fp32",
                 record_dtype="bf16", input_dtype="bf16",
                 optional=ALL_CASES[variant].optional_inputs, max_drafts=8,
                 verify_folds=verify_folds)
    drv = SpecDriver(cfg, device, seed=5)
    drv.decode((0, 1))
    for counts, accepted in (([8, 8, 8], [8, 3, 0]), ([8, 5, 8], [8, 5, 8]),
                             ([8, 8, 2], [2, 8, 1]), ([8, 8, 8], [7, 0, 8])):
        drv.verify((0, 1, 2), 8, counts)
        drv.commit(accepted)
    assert ("a verify folded" if verify_folds else "a commit folded") in drv.events


@pytest.mark.cuda
@pytest.mark.skipif(not CUDA, reason="a race between a program's warps: the interpreter runs "
                                     "each program as one thread")
@pytest.mark.parametrize("verify_folds", [False, True])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_folds_with_several_warps_leave_other_rows_alone(variant, verify_folds):
    """Batch 256 of the first named config (L = 16, T_MAX = 8) at staggered cursors: a
    verify of seeded draft counts, then a commit of seeded accepted counts, with fold
    launches of 1 to 8 warps: the commit's (fold kernel), or with verify_folds the
    verify's launch of the rows whose drafts would pass L committed records (they fold
    there, and the commit, at those warps, moves their accepted drafts). Rows that do
    not fold keep their checkpoint bit for bit; the rows that fold get the same
    checkpoint at every launch (within tf32 reassociation: the launches group the same
    products differently), and with verify_folds every row's materialised state is the
    same within the bf16 rounding of the drafts' records (a delta rule's written values
    come from each launch's own products, and may round to the neighbouring bf16). Before the
    control-word barrier (session 16) a warp of a non-folding row's program could read
    the cursor after another warp had advanced it, fold its share of the rows, and write
    them (H200: 1 to 12 of 256 rows per commit at [16]/w4/s3)."""
    from replaygen.perf import Workload
    from replaygen.plan import verify_is_chunked
    from replaygen.spec import load_variant
    from replaygen.tuning import Launch
    import replaygen
    B = 256
    # one warp first; [64]/w4 and w8: the fold tiles refused from session 4 to 17 (their
    # "illegal instruction" was most likely this race: a warp alone in the fold branch)
    launches = ((16, 1, 3), (16, 2, 3), (16, 4, 3), (16, 4, 1), (32, 4, 3), (64, 4, 3), (64, 8, 3))
    folded_states, materialised = [], []
    for launch in launches:
        kern = replaygen.load(variant, config=load_variant(variant).configs[0].name, L=16,
                              state_dtype="fp32", record_dtype="bf16", max_drafts=8,
                              verify_folds=verify_folds)
        kern.forced["fold"] = Launch(*launch)
        bv, warps, stages = launch
        if verify_folds:   # value tiles of at most 32 rows (registers)
            kern.forced["verify_fold"] = Launch(min(bv, 32), warps, stages,
                                                kern.plan.BKT if verify_is_chunked(kern.plan) else None)
        w = Workload(kern, B, "cuda", seed=7)
        w.staggered()()
        before = w.state.checkpoint.clone()
        _, _, _, folds = w.speculate(B)   # a verify, then a commit
        after = w.state.checkpoint
        assert 0 < int(folds.sum()) < B
        changed = (after[:B] != before[:B]).flatten(1).any(1) & ~folds
        assert same_bits(after[:B][~folds], before[:B][~folds]), (
            f"{launch}: rows {changed.nonzero().flatten().tolist()} did not fold but their "
            "checkpoint changed")
        folded_states.append(after[:B][folds].double())
        materialised.append(kern.materialize(w.state, w.all_slots[:B]).double())
        del w
    for launch, s, m in zip(launches[1:], folded_states[1:], materialised[1:]):
        err = ((s - folded_states[0]).norm() / folded_states[0].norm()).item()
        assert err < 1e-5, f"{launch}: the folded rows differ from the 1-warp fold by {err:.1e}"
        err = ((m - materialised[0]).norm() / materialised[0].norm()).item()
        assert err < (2.0 ** -8 if verify_folds else 1e-5), (
            f"{launch}: the materialised states differ from the 1-warp run by {err:.1e}")
