"""The order in which a launch's programs take their (row, value head[, value tile]) work.

slot_major and slot_major_tiles (every grid without a flush order): input, the calling
program's position in a grid (rows, heads[, split]) or (rows, HV, NV); output, the
(row, head) or (row, value head, value tile) it serves, one row's heads (and their tiles)
in consecutive programs. Invariant: a bijection onto the grid's work, rows still in grid
dimension 0 (so the grid's limits are those of the row-first order). Why: a program
moves one contiguous block of its slot's state; read rows first, consecutive programs
take blocks 2-4 MB apart, one per slot, and the programs resident at one moment keep
many DRAM pages open for a few KB each. Read slot-major they stream each slot's state in
order (H100, batch 256: the conventional step 1.067-1.111x, session 62, and the snapshot
baseline 1.07-1.20x, the fold 1.05-1.22x, session 63; the replay decodes 1.00-1.03x).

flush_first (Launch.flush_order): input, the launch's slot list, and the order words of
ReplayState.fold_queue (an epoch word, then two flag buffers of one int32 per slot: "this
slot's ring fills at its next decode", written by the decode before, read by the next
one); the calling program's grid position. Output: the (row index into the slot list,
value head) it serves, and the launch's epoch.

Invariants:
- Over the launch's rows x value heads programs the map is a bijection whatever the flags
  hold, because every program of a launch reads the same flags: a program's cursor is
  written by that program while later programs of the launch are still to start, so
  flags read from the cursors would differ from program to program (programs would
  serve one (row, value head) twice and another never; Triton's interpreter, which runs
  programs one after another, showed it at once). So the flags are double-buffered by an
  epoch that flips once per launch, after every program has read it: each program adds
  one to the epoch word's count (word = epoch << 24 | programs arrived) and takes the
  epoch from the word it gets back; the last to arrive (count = programs - 1) flips the
  epoch and clears the count. Programs read the flags of their epoch and write those of
  the other.
- Wrong flags cost time, never correctness: flags go stale where another launch moved a
  cursor (flush, commit, load_state, a decode of another launch choice) or for a slot
  not decoded last time; the first launch reads zeros (grid order).

Why (Launch.flush_order, a tuned launch choice): in a staggered flush cycle one row in L
flushes, and a flushing program runs 2-3x as long as the others. In grid order the
flushing programs are spread over the whole launch, so those in its last wave finish
after every other program: a tail. Placed at the start, they finish within
the launch (H200, session 30, bench/flush_tail.py, batch 256, L = 16: GDN Qwen3.5-4B
0.1816 -> 0.1747 ms per launch; but GDN 122B, whose flushing programs then fill a wave and
re-read more than L2 holds, 0.3307 -> 0.3509). So the spacing is tuned: flushing
programs at every SPACING-th launch position from the start (1: all first; larger:
thinned out over more of the launch), the others around them, each group in (row,
value head) order with the heads fastest, as the grid reads without a flush order. Measured
(session 31, amortised over a staggered cycle): GDN 4B 0.1725 -> 0.1692 ms at L = 16
and 0.2258 -> 0.1742 at L = 32 (tuned), while Mamba-2 Nano lost 11%: its short programs
pay the prologue here (the atomic, a gather of the rows' flags, a scan) once each.
"""
import triton
import triton.language as tl


@triton.jit
def slot_major(HEADS: tl.constexpr):
    """(i_b, i_h) of this program in a grid (rows, HEADS, ...), heads fastest: launch
    position p = program_id(1) * rows + program_id(0) serves row p // HEADS, head
    p % HEADS. Grid dimension 2 (a split) is the caller's."""
    pid = tl.program_id(0) + tl.num_programs(0) * tl.program_id(1)
    return pid // HEADS, pid % HEADS


@triton.jit
def slot_major_tiles(HV: tl.constexpr, NV: tl.constexpr):
    """(i_b, i_hv, i_v) of this program in a grid (rows, HV, NV), value tile fastest, then
    value head, then row."""
    pid = tl.program_id(0) + tl.num_programs(0) * (tl.program_id(1) + HV * tl.program_id(2))
    return pid // (NV * HV), (pid // NV) % HV, pid % NV


@triton.jit
def flush_first(slots_ptr, num_slots, order_ptr, HV: tl.constexpr, SPACING: tl.constexpr,
                ROWS_P2: tl.constexpr):
    """(i_b, i_hv, epoch) of this program in a grid (rows, HV, split) whose rows flagged
    to flush (order_ptr[1 + epoch * num_slots + slot] != 0) go first: launch position
    p = program_id(1) * rows + program_id(0) serves, if p is a multiple of the spacing s
    and p / s < F * HV (F flagged rows), flagged item p / s; otherwise the next item of
    the other rows. Items run value heads fastest: consecutive programs read one slot's
    consecutive heads, as the decodes without a flush order do (H100, session 62: 1.005x
    GDN 4B, 1.009x GDN 122B, 1.048x Mamba-2 Nano amortised against rows fastest). s is
    SPACING, lowered where F * HV * s would pass the launch's end. ROWS_P2: a power of
    two >= rows (one vector of flags)."""
    rows = tl.num_programs(0)
    programs = rows * tl.num_programs(1) * tl.num_programs(2)
    arrived = tl.atomic_add(order_ptr, 1, sem="relaxed")
    epoch = arrived >> 24
    if (arrived & 0xFFFFFF) == programs - 1:   # every program has its epoch: flip it
        tl.atomic_xchg(order_ptr, (1 - epoch) << 24, sem="relaxed")
    pos = tl.program_id(1) * rows + tl.program_id(0)
    o_r = tl.arange(0, ROWS_P2)
    m_r = o_r < rows
    slot = tl.load(slots_ptr + o_r, mask=m_r, other=-1).to(tl.int64)
    real = m_r & (slot >= 0) & (slot < num_slots)   # (padding rows: never flushing)
    flag = tl.load(order_ptr + 1 + epoch * num_slots + slot, mask=real, other=0)
    flush = real & (flag != 0)
    above = tl.cumsum(flush.to(tl.int32), axis=0)   # flagged rows at or before each row
    n_flush = tl.sum(flush.to(tl.int32), axis=0)
    flush_items = n_flush * HV
    spacing = tl.maximum(1, tl.minimum(SPACING, (rows * HV) // tl.maximum(flush_items, 1)))
    is_flush = (pos % spacing == 0) & (pos // spacing < flush_items)
    # the other items fill the positions the flagged ones leave, in order
    other = pos - tl.minimum((pos + spacing - 1) // spacing, flush_items)
    item = tl.where(is_flush, pos // spacing, other)
    rank = item // HV
    i_hv = item % HV
    # the row of that rank among the flagged rows (or among the others)
    member = tl.where(is_flush, flush, m_r & (flush == 0))
    ranks = tl.where(is_flush, above, o_r + 1 - above)
    i_b = tl.sum(tl.where(member & (ranks == rank + 1), o_r, 0), axis=0)
    return i_b, i_hv, epoch
