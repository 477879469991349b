"""launch_order.flush_first against an independent construction of the launch order.

Every program of a (rows, HV, split) grid records the (row, value head) it serves and the
epoch it read. The map must be a bijection onto the rows x value heads in every split
plane whatever the flags hold, put the flagged rows' programs (the flags of the launch's
epoch; padding and out-of-pool slots never) at every s-th launch position from the start,
s lowered where they would not fit, and keep both groups in (row, value head) order with
the heads fastest;
every program must read the same epoch, and the launch must leave the epoch flipped and
the count cleared. The expected order is built here item by item, not from the kernel's
formulas.
"""
from __future__ import annotations

import pytest
import torch
import triton
import triton.language as tl
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import CUDA
from replaygen import launch_order

DEVICE = "cuda" if CUDA else "cpu"


@triton.jit
def _order_kernel(slots_ptr, num_slots, order_ptr, out_ptr, HV: tl.constexpr,
                  SPACING: tl.constexpr, ROWS_P2: tl.constexpr):
    i_b, i_hv, epoch = launch_order.flush_first(slots_ptr, num_slots, order_ptr, HV, SPACING, ROWS_P2)
    pos = (tl.program_id(2) * HV + tl.program_id(1)) * tl.num_programs(0) + tl.program_id(0)
    tl.store(out_ptr + 3 * pos, i_b)
    tl.store(out_ptr + 3 * pos + 1, i_hv)
    tl.store(out_ptr + 3 * pos + 2, epoch)


def expected_order(slots, flags, num_slots, HV, spacing):
    """[(row, value head)] by launch position in one split plane, built item by item."""
    rows = len(slots)
    flush = [0 <= s < num_slots and flags[s] != 0 for s in slots]
    items = [(r, h) for r in range(rows) for h in range(HV)]    # value heads fastest
    flushing = [(r, h) for r, h in items if flush[r]]
    others = [(r, h) for r, h in items if not flush[r]]
    s = max(1, min(spacing, rows * HV // max(len(flushing), 1)))
    order, f, o = [], iter(flushing), iter(others)
    for pos in range(rows * HV):
        take_flush = pos % s == 0 and pos // s < len(flushing)
        order.append(next(f) if take_flush else next(o))
    return order


def run_order(slots, words, num_slots, HV, spacing, split=1):
    """The launch's (row, value head, epoch) per program, and the order words after it."""
    rows = len(slots)
    order = torch.tensor(words, dtype=torch.int32, device=DEVICE)
    out = torch.full((rows * HV * split * 3,), -7, dtype=torch.int32, device=DEVICE)
    _order_kernel[(rows, HV, split)](torch.tensor(slots, dtype=torch.int32, device=DEVICE),
                                     num_slots, order, out, HV=HV, SPACING=spacing,
                                     ROWS_P2=triton.next_power_of_2(rows))
    return [tuple(p) for p in out.view(-1, 3).tolist()], order.tolist()


@settings(max_examples=25 if not CUDA else 100, deadline=None)
@given(data=st.data(), rows=st.integers(1, 9), HV=st.integers(1, 3), split=st.integers(1, 2),
       spacing=st.sampled_from([1, 2, 4, 16]), epoch=st.integers(0, 1))
def test_flush_first_matches_the_constructed_order(data, rows, HV, split, spacing, epoch):
    num_slots = 6
    slots = data.draw(st.lists(st.integers(-1, num_slots + 1), min_size=rows, max_size=rows))
    flags = data.draw(st.lists(st.integers(0, 1), min_size=2 * num_slots, max_size=2 * num_slots))
    got, words = run_order(slots, [epoch << 24] + flags, num_slots, HV, spacing, split)
    want = expected_order(slots, flags[epoch * num_slots:(epoch + 1) * num_slots], num_slots, HV, spacing)
    plane = rows * HV
    for k in range(split):
        assert [g[:2] for g in got[k * plane:(k + 1) * plane]] == want
    assert sorted(want) == [(r, h) for r in range(rows) for h in range(HV)]
    assert {g[2] for g in got} == {epoch}
    assert words == [(1 - epoch) << 24] + flags     # flipped, count cleared, flags untouched


@pytest.mark.parametrize("flushing,spacing,first", [
    ((0, 0, 1, 0, 1), 1, [(2, 0), (2, 1), (4, 0), (4, 1), (0, 0)]),   # both rows' heads first
    ((1, 0, 0, 0, 0), 4, [(0, 0), (1, 0), (1, 1), (2, 0), (0, 1)]),   # the second every 4th
    ((1, 1, 1, 1, 1), 2, [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]),   # all: item order
])
def test_flush_first_examples(flushing, spacing, first):
    """Hand-written cases: five rows in slots 0-4, two value heads, epoch 1."""
    got, _ = run_order(list(range(5)), [1 << 24] + [1] * 5 + list(flushing), 5, 2, spacing)
    assert [g[:2] for g in got[:5]] == first



@triton.jit
def _slot_major_kernel(out_ptr, HEADS: tl.constexpr, HV: tl.constexpr, NV: tl.constexpr,
                       TILES: tl.constexpr):
    pos = (tl.program_id(2) * tl.num_programs(1) + tl.program_id(1)) * tl.num_programs(0) + tl.program_id(0)
    if TILES:
        i_b, i_hv, i_v = launch_order.slot_major_tiles(HV, NV)
        tl.store(out_ptr + 3 * pos, i_b)
        tl.store(out_ptr + 3 * pos + 1, i_hv)
        tl.store(out_ptr + 3 * pos + 2, i_v)
    else:
        i_b, i_h = launch_order.slot_major(HEADS)
        tl.store(out_ptr + 3 * pos, i_b)
        tl.store(out_ptr + 3 * pos + 1, i_h)
        tl.store(out_ptr + 3 * pos + 2, tl.program_id(2))


@pytest.mark.parametrize("rows,HV,NV", [(1, 1, 1), (3, 2, 4), (5, 3, 2), (4, 1, 3)])
def test_slot_major_serves_one_slots_work_in_consecutive_programs(rows, HV, NV):
    """slot_major_tiles over a (rows, HV, NV) grid, and slot_major over (rows, HV, split):
    by launch position (program_id(0) fastest, as the hardware issues them), the work of
    row 0 first, its value heads (and each head's tiles) in order, then row 1's; each
    split plane of slot_major the same order, the split left to the caller."""
    out = torch.full((rows * HV * NV * 3,), -7, dtype=torch.int32, device=DEVICE)
    _slot_major_kernel[(rows, HV, NV)](out, HEADS=HV, HV=HV, NV=NV, TILES=True)
    assert [tuple(p) for p in out.view(-1, 3).tolist()] == [
        (r, h, v) for r in range(rows) for h in range(HV) for v in range(NV)]
    out.fill_(-7)
    _slot_major_kernel[(rows, HV, NV)](out, HEADS=HV, HV=HV, NV=NV, TILES=False)
    assert [tuple(p) for p in out.view(-1, 3).tolist()] == [
        (r, h, s) for s in range(NV) for r in range(rows) for h in range(HV)]
