"""`replaygen tune`: the offline launch sweep that writes the tuning tables.

Input: variants (each with its named geometries, or one `--config`), ring lengths,
checkpoint precisions, batch buckets; a CUDA GPU.
Output: `<out>/<variant>/tuning.json` (default out: generated/): for this GPU, for every
configuration, kernel (replay_decode, fold, conventional_decode) and batch bucket, the
fastest launch (BV, num_warps, num_stages) measured, with its time and the plan's time;
entries already in the file for other GPUs, configurations or buckets are kept.
Invariants: throwaway buffers only (`perf.Workload`; never live state, never
@triton.autotune); candidates are launched through the real entry points
(`Kernels.forced`), so the code timed is the code that serves; the plan's own choice is
always a candidate, so a tuned entry is never slower than the fallback in the sweep (and
replaces it only when faster by more than `MARGIN`); so are the launches the table holds
now (re-timed in phase 1), so a sweep cut short never replaces an entry with a launch
that measured slower in the same run, nor with one faster by `INCUMBENT_MARGIN` or less
(`choose`). With `--refine` phase 1 times only those and the plan's launch where the
table holds any (`first_candidates`), and the phases below start from them; `--phases`
runs only the later phases it names (e.g. `--refine --phases 7`: the tabled launches
with their separate fold pipelined, in seconds).

The grid, pruned: BV in {8, 16, 32, 64} up to V rounded up to a power of two, or for
the key-chunked decode kernel [DBV, BKT] chunks with DBV in {16, 32, 64, 128} and BKT in
{16, 32, 64, 128}; num_warps in {1, 2, 4, 8} keeping 8..64 (chunks: 16..64; 16..128 for
the verify and for a read copy's words) tile elements per thread (fewer leaves threads
idle, more spills registers: the 2026-11-29 sweeps in bench/results/); for the key-chunk
decode of scalar decays and the value-tile decode of a plain checkpoint, the three best
of those with the stream first (phase 1b, Launch.stream_first); num_stages 3 (Triton's default) first, then 1 and 2 for the two best (BV, warps) of the kernels that stream tiles
through a loop (replay_decode, fold: the conventional kernel has no loop, so stages
change nothing there); for the verify and the decode, the two best under the register
caps that fit 9, 10, 12 and 16 warps per SM (phase 2b, Launch.maxnreg); for the
key-chunk decode of a plain checkpoint with scalar decays, the three best folding in one
pass, at their cap and each of those caps (phase 2d, Launch.onepass_flush); for the
key-chunk decode, the three best with the flushing programs first (phase 2e,
Launch.flush_order); for the verify,
the three best with programs over several value heads of a key
group (phase 2c, Launch.heads); for the value-tile verify, the three best with the head
phase in a launch of its own, at every stage count (phase 2f, Launch.head_launch), and
the two best of those with their head launch at every other warp count (phase 2g,
Launch.head_warps); then, for small batches (at most SPLIT_BASE_PROGRAMS programs
unsplit), splits of each (row, value head) over several programs (phase 3); then each
batch's decode launches within 1.5x of its best (3 to 10 of them) with the flush in a separate fold launch (phase 4,
Launch.separate_flush); for the value-tile decode of a read copy in whole 8-byte words,
the three best of those at each batch with the non-flush products word by word
(fp16x2 for FP8, int8 for NVFP4: phase 4b, Launch.read_words); for the value-tile decode of an FP8 read copy, its
products on tensor cores at [64, K] and [128, K] tiles, four and eight warps, every
stage count (phase 4c, Launch.read_mma); for the key-chunk decode of scalar decays, the
two best at each batch with the records' scores taken once per program at the head, at
their own register cap and at each of the caps, one-warp launches also at 104 and 96
(phase 4d, Launch.head_scores); where a key group's value heads share those scores
(plan.decode_shares_keys), the two best of those at each batch with programs over every
divisor of the group (phase 4e, Launch.heads); where the records' code reads only ring
fields (plan.record_blocks), the two best of those with their flush in the fold launch
with the records' terms from the committed records in blocks of 4 and 8 (phase 4f,
Launch.record_block); then the two best of those at each batch with that fold launch
at each warp count, at its default grid and at one of as many warps per multiprocessor
(phase 5, Launch.fold_warps and fold_programs), and the two best after that with the
fold launch's blocks split over 1 to 32 programs (phase 6, Launch.fold_split), and the
two best after that with that fold launch's tile loop pipelined 2 and 3 stages deep
(phase 7, Launch.fold_stages). What is
measured: replay_decode amortised per step over a whole flush cycle with staggered rows (both launches when the
flush is separate); fold as a flush of L - 1 records; commit (the fold kernel's launch
for commits; untuned, the fold's) as a commit of T_MAX drafts per row with the rows'
cursors staggered over a cycle of full acceptance, so that the rows at CAP + 1 - T_MAX
or more fold (perf.Workload.committing); the conventional step; verify of
T_MAX drafts past L/2 committed records; verify_fold (plan.VERIFY_FOLDS: the launch of
the verify kernel that serves the rows folding first, candidates as the verify's) of
T_MAX drafts past L, where every row folds.
"""
from __future__ import annotations

import dataclasses
import re
import time
from pathlib import Path

from .errors import ConfigError
from .plan import (_next_pow2, decode_is_chunked, decode_splits, launch_constants, launch_kind,
                   plan_tiles, streams_first, verify_is_chunked)
from .tuning import (DECODE_KERNELS, FOLD_PROGRAMS_PER_SM, SPECULATIVE_KERNELS, TUNING_FILE,
                     Launch, TuningTable)

BLOCK_VS = (8, 16, 32, 64)
# the key-chunked decode kernel's [DBV, BKT] chunks (main's sweeps: [64, 32] and [128, 32]
# fastest of 9 shapes; bench/results/sweep-kchunk-*.json)
DECODE_BLOCK_VS = (16, 32, 64, 128)
BKT_CHOICES = (16, 32, 64, 128)   # 128: whole 512-byte checkpoint rows per chunk (K = 128)
WARPS = (1, 2, 4, 8)
DEFAULT_STAGES = 3          # Triton's default for CUDA: what the plan's launches get
EXTRA_STAGES = (1, 2, 4)   # 4: the key-chunk streams with three chunks in flight
STREAMING = ("replay_decode", "fold", "commit", "verify", "verify_fold")   # kernels whose tiles go through a loop
ELEMENTS_PER_THREAD = (8, 64)
CHUNK_ELEMENTS_PER_THREAD = (16, 64)     # narrower: the chunk grid is two-dimensional
# A launch replaces the plan's choice only when it is this much faster: medians of 5-20
# CUDA-graph replays differ by about 1% from run to run, and a table should not flip
# between near-equal launches at every sweep.
MARGIN = 0.02
# ... and a launch replaces the one the table holds (an incumbent, re-timed in phase 1)
# only when this much faster: session 59's refining sweeps swapped entries for launches
# 0.3-0.8% faster in their run, one of which (GDN 4B FP8's fold pipelined) measured 1.0%
# slower in six interleaved A/B rounds (bench/results/session59-2026-12-07/).
INCUMBENT_MARGIN = 0.01


def plan_launch(plan, kernel: str) -> Launch:
    """The plan's own launch of `kernel` as the tuner times it (Triton's default stages):
    every sweep's fallback, and what the table audit compares an entry with."""
    bv, bkt, warps = plan_tiles(plan, kernel)
    return Launch(bv, warps, DEFAULT_STAGES, bkt)


def candidates(plan, kernel: str) -> list[Launch]:
    """Phase 1: the plan's own launch of `kernel`, and every tile and warp count of the
    pruned grid at the default stage count: value tiles BV (tiles span the whole key
    block), or for the key-chunked decode and verify kernels [DBV, BKT] chunks (verify:
    128 elements per thread at most, its chunk feeding a tensor-core product)."""
    out = [plan_launch(plan, kernel)]
    kernel = launch_kind(kernel)   # verify_fold: the verify kernel's launches
    chunked = ((kernel == "replay_decode" and decode_is_chunked(plan))
               or (kernel == "verify" and verify_is_chunked(plan)))
    if chunked:
        tiles = [(bv, bkt) for bv in DECODE_BLOCK_VS for bkt in BKT_CHOICES if bkt <= plan.BK]
        lo, hi = CHUNK_ELEMENTS_PER_THREAD
        if kernel == "verify" or (kernel == "replay_decode" and plan.read_word_keys):
            # a read copy in 8-byte words holds 8-16 keys per register pair, not one
            # fp32 element per register (offline, sm_90: GDN NVFP4 [128, 32] at one warp
            # 129 registers and half the instructions of [128, 16])
            hi = 2 * hi
    else:
        tiles = [(bv, None) for bv in BLOCK_VS]
        lo, hi = ELEMENTS_PER_THREAD
    for bv, bkt in tiles:
        if bv > _next_pow2(plan.V) or not _launchable(plan, kernel, bv, bkt):
            continue
        for w in WARPS:
            cand = Launch(bv, w, DEFAULT_STAGES, bkt)
            if lo <= bv * (bkt or plan.BK) / (32 * w) <= hi and cand not in out:
                out.append(cand)
    return out


def _launchable(plan, kernel: str, bv: int, bkt: int | None) -> bool:
    """Tiles that plan.launch_constants accepts (it refuses, for one, decode tiles that
    do not hold whole read-copy scale tiles)."""
    return _accepted(lambda: launch_constants(plan, kernel, bv, bkt))


def _plan_accepts(plan, kernel: str):
    """A test of whether plan.launch_constants accepts a whole launch of `kernel`: the
    plan's rules that tie a launch's choices together (records' scores at the head exclude
    the stream first and the one-pass flush, for one). A phase that varies one choice of the best
    launches so far keeps only variants that launch, so a refused one takes no place among
    the `keep` (session 65: phase 1b offered Mamba-2 Nano's tabled launch, which takes its
    scores at the head, with its stream first; the timing refused it)."""
    return lambda launch: _accepted(lambda: launch.constants(plan, kernel))


def _accepted(constants) -> bool:
    try:
        constants()
    except ConfigError:
        return False
    return True


def _ranked(times: dict[Launch, dict[int, float]]) -> list[Launch]:
    """Launches by their mean time relative to the best at each batch (phases 2 and 2b)."""
    batches = sorted({b for t in times.values() for b in t})
    best = {b: min(t[b] for t in times.values() if b in t) for b in batches}
    score = {c: sum(t[b] / best[b] for b in t) / len(t) for c, t in times.items() if t}
    return sorted(score, key=score.get)


def _fastest_at_each_batch(times: dict[Launch, dict[int, float]], keep: int, accept) -> list[Launch]:
    """At each batch the `keep` fastest launches so far that `accept(launch)` takes, in
    order of batch, then time; each once."""
    out = []
    for b in sorted({b for t in times.values() for b in t}):
        measured = {c: t[b] for c, t in times.items() if b in t and accept(c)}
        out += [c for c in sorted(measured, key=measured.get)[:keep] if c not in out]
    return out


def _untimed(cands, times: dict[Launch, dict[int, float]]) -> list[Launch]:
    """The launches `cands` in order, each once, less those timed already."""
    out = []
    for c in cands:
        if c not in times and c not in out:
            out.append(c)
    return out


def stage_candidates(times: dict[Launch, dict[int, float]], keep: int = 2) -> list[Launch]:
    """Phase 2: the `keep` best (BV, warps) by their mean time relative to the best at each
    batch, at the other stage counts."""
    return [Launch(c.BV, c.num_warps, s, c.BKT) for c in _ranked(times)[:keep]
            for s in EXTRA_STAGES if Launch(c.BV, c.num_warps, s, c.BKT) not in times]


REGISTERS_PER_SM = 65536   # sm_80 .. sm_90: 64K 32-bit registers per SM
# per-thread register caps that let 9, 10, 12 and 16 warps share an SM's register file
# (registers are allocated per warp in multiples of 8 per thread; 2048 / warps, rounded down)
REGISTER_CAPS = (224, 200, 168, 128)
CAPPED = ("verify", "verify_fold", "replay_decode")   # kernels whose registers can limit their programs per SM


def programs_per_sm(registers: int, num_warps: int) -> int:
    """How many programs of `num_warps` warps at `registers` per thread (rounded up to the
    allocation's multiple of 8) the register file holds."""
    return REGISTERS_PER_SM // (32 * num_warps * -(-registers // 8) * 8)


def register_caps(num_warps: int) -> list[int]:
    """The REGISTER_CAPS that fit more programs of `num_warps` warps per SM than ptxas's
    own limit (255 registers) does; at two warps 224 fits no more than 255."""
    return [c for c in REGISTER_CAPS if programs_per_sm(c, num_warps) > programs_per_sm(255, num_warps)]


def register_cap_candidates(times: dict[Launch, dict[int, float]], keep: int = 2) -> list[Launch]:
    """Phase 2b (CAPPED kernels): the `keep` best launches so far (ranked as in phase 2)
    with ptxas held to each of register_caps(num_warps) registers per thread
    (Launch.maxnreg). The T = 8 verify's fastest launch ran at one warp and 255 registers
    (ncu, H200, session 6: 8 warps per SM, 28% of its stall samples at the barrier that
    waits for the checkpoint chunks, 12% occupancy); a cap trades spills for programs in
    flight. The decode joined in session 23: GDN's one-warp decode went from 218 to 226
    registers (9 to 8 programs per SM) when its reciprocal square roots became MUFU.RSQ."""
    return _variants(times, keep, "maxnreg", None, lambda c: register_caps(c.num_warps))


def _variants(times: dict[Launch, dict[int, float]], keep: int, field: str, default,
              values, accepts=lambda launch: True) -> list[Launch]:
    """The `keep` best launches so far (ranked as in phase 2) whose `field` is `default`
    and that have a variant `accepts` passes, each with `field` set to every one of
    `values` (or of `values(launch)`, where they depend on the launch) that `accepts` passes;
    launches already timed left out."""
    out, bases = [], 0
    for c in _ranked(times):
        if bases == keep:
            break
        if getattr(c, field) != default:
            continue
        variants = [v for v in (dataclasses.replace(c, **{field: x})
                                for x in (values(c) if callable(values) else values)) if accepts(v)]
        out += variants
        bases += bool(variants)
    return _untimed(out, times)


def stream_first_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 3) -> list[Launch]:
    """Phase 1b (decodes that can stream first, plan.streams_first): the `keep` best
    launches of phase 1 with their stream first (Launch.stream_first). Key chunks of
    scalar decays: the stream issued before the records' decays, a dependent memory round
    trip less before it, at some registers (launch_constants; H200, session 12, the
    committed launches streaming first: Mamba-2 Nano fp32 5% faster amortised, GDN fp32 +
    NVFP4 5% slower). Value tiles of a plain checkpoint: the first STREAM_STAGES tiles
    prefetched into L2 while the head-level work runs (session 27; offered to GLA's and
    KDA's fp32 decodes at batches 1 and 8 in session 28 and chosen by none)."""
    if not streams_first(plan):
        return []
    return _variants(times, keep, "stream_first", False, (True,), _plan_accepts(plan, "replay_decode"))


def onepass_flush_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 3) -> list[Launch]:
    """Phase 2d (decodes that can fold in one pass, plan.onepass_flushes, their flush
    fused): the `keep` best launches so far (ranked as in phase 2; unsplit) folding in
    one pass (Launch.onepass_flush), at their own register cap and at each of
    register_caps(num_warps). The flushing programs' stream carries the fold, so the
    kernel needs more registers than either pass of the default flush: with the tabled
    launches, not re-tuned, the every-row flush step ran 1.13-1.21x faster and the
    non-flush step 0.96-0.97x as fast (GDN 4B, Mamba-2 Super), but 0.60x for GDN 122B
    with its cap of 168 (H200, session 30, bench/results/session30-2026-12-04/call_i)."""
    if not (plan.onepass_flushes and plan.FUSED_FLUSH):
        return []
    accepts = _plan_accepts(plan, "replay_decode")
    bases = [c for c in _ranked(times)
             if not c.onepass_flush and c.split == 1 and accepts(dataclasses.replace(c, onepass_flush=True))]
    return _untimed((dataclasses.replace(c, onepass_flush=True, maxnreg=cap)
                     for c in bases[:keep]
                     for cap in dict.fromkeys((c.maxnreg, *register_caps(c.num_warps)))), times)


FLUSH_ORDERS = (1, 2, 4)   # Launch.flush_order: the flushing programs' spacing from the start


def flush_order_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 3) -> list[Launch]:
    """Phase 2e (the key-chunk decode, its flush fused): the `keep` best launches so far in
    grid order with the flushing rows' programs first in the launch, every s-th for s in
    FLUSH_ORDERS (Launch.flush_order, replaygen/launch_order.py). Placed first, the longer
    flushing programs stop ending the launch, but where they fill a wave their second
    passes can outgrow L2, and every program pays the order's prologue (H200, session 31,
    batch 256, L = 16, amortised: GDN 4B 0.1725 -> 0.1692 ms, GDN 122B 0.3192 -> 0.3207,
    Mamba-2 Nano 0.3013 -> 0.3335; bench/results/session31-2026-12-04/). Launches with
    their flush separate are not ranked: launch_constants refuses them an order (a read
    copy's sweep tried three and failed each twice, in the workers and in the timing
    process; session 47)."""
    if not (decode_is_chunked(plan) and plan.FUSED_FLUSH):
        return []
    fused = {c: t for c, t in times.items() if not c.separate_flush}
    return _variants(fused, keep, "flush_order", 0, FLUSH_ORDERS, _plan_accepts(plan, "replay_decode"))


MAX_HEADS = 16   # value heads per verify or decode program (Mamba-2's key groups hold 12 to 16)


def group_divisors(plan) -> list[int]:
    """The value heads per program (Launch.heads) worth trying: every divisor d > 1 of
    the key group, up to MAX_HEADS."""
    return [d for d in range(2, min(plan.GROUP, MAX_HEADS) + 1) if plan.GROUP % d == 0]


def shared_group_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 3) -> list[Launch]:
    """Phase 2c (the key-chunked verify): the `keep` best launches so far (register caps
    included) with each program serving d value heads of one key group, for every
    divisor d > 1 of the group up to MAX_HEADS (Launch.heads): the key-level work (the
    drafts' raw rows, reductions, record keys and raw scores; 3.3K of the T = 8 GDN
    verify's 7.5K instructions per program, ncu, session 6) is then done once per d heads,
    for d times fewer, longer programs."""
    if not verify_is_chunked(plan):
        return []
    return _variants(times, keep, "heads", 1, group_divisors(plan))


def head_launch_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 3) -> list[Launch]:
    """Phase 2f (the value-tile verify): the `keep` best launches so far with the head phase
    in a launch of its own (Launch.head_launch), each at every stage count: the stream
    launch alone holds the pipeline's shared memory (offline sm_90, KDA T = 8 [16, 128] at
    one warp and 3 stages: the stream launch 110 registers and 31 KB, 7 programs per SM;
    one launch 226 registers and 28 KB, 8)."""
    if verify_is_chunked(plan):
        return []
    return _untimed((dataclasses.replace(c, head_launch=True, num_stages=stages)
                     for c in [c for c in _ranked(times) if not c.head_launch][:keep]
                     for stages in sorted({DEFAULT_STAGES, *EXTRA_STAGES})), times)


def head_warps_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 2) -> list[Launch]:
    """Phase 2g (the value-tile verify): the `keep` best two-launch verifies so far, each
    with its head launch at every other warp count (Launch.head_warps): the head phase's
    [16, K] tiles want more warps than the stream's one-warp programs (KDA T = 8, offline
    sm_90: 255 registers and a spill at one warp, 128 and none at four)."""
    if verify_is_chunked(plan):
        return []
    out = []
    for c in [c for c in _ranked(times) if c.head_launch and c.head_warps is None][:keep]:
        for warps in WARPS:
            cand = dataclasses.replace(c, head_warps=warps)
            if warps != c.num_warps and cand not in times and cand not in out:
                out.append(cand)
    return out


def separate_flush_candidates(times: dict[Launch, dict[int, float]], keep: int = 3,
                              within: float = 1.5, most: int = 10) -> list[Launch]:
    """Phase 4 (decode): at each batch the launches so far within `within` of the fastest
    (at least the `keep` fastest, at most `most`), with their flush in a separate fold
    launch (Launch.separate_flush): the decode kernel then has no fold code (fewer
    registers, more programs per SM) and a full ring's fold reads the checkpoint again,
    from DRAM, in one more launch per step. Not only the fastest: without the fold code
    the ranking changes (H200, GDN with an FP8 read copy, batch 256, amortised: the
    fastest fused launch [128, 32]/w2 0.195 ms became 0.139 with its flush separate, while
    [64, 32]/w1, not among the three fastest fused ones, made 0.123;
    bench/results/session5-2026-12-01/call2)."""
    batches = sorted({b for t in times.values() for b in t})
    out = []
    for b in batches:
        measured = {c: t[b] for c, t in times.items() if b in t and not c.separate_flush}
        ranked = sorted(measured, key=measured.get)
        near = [c for n, c in enumerate(ranked)
                if n < keep or measured[c] <= within * measured[ranked[0]]][:most]
        for c in near:
            cand = dataclasses.replace(c, separate_flush=True, onepass_flush=False, flush_order=0)
            if cand not in times and cand not in out:
                out.append(cand)
    return out


def read_words_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 3) -> list[Launch]:
    """Phase 4b (the value-tile decode of a read copy in whole 8-byte words,
    plan.vtile_read_words): at each batch the `keep` fastest launches whose flush is in the
    fold launch, with the non-flush products taken word by word (fp16x2 for FP8, int8
    for NVFP4) as the key-chunk decode takes them (Launch.read_words): offline sm_90, the elementwise read
    of KDA's FP8 row copy was 358 instructions per [8, 128] tile at one warp."""
    if decode_is_chunked(plan) or not plan.vtile_read_words:
        return []
    return _separate_flush_variants(plan, times, keep, "read_words", (True,), unset=False)


# phase 4c's tiles and warps: wgmma's e4m3 product takes a warpgroup (four warps) and
# 64 rows per warpgroup; below that Triton widens the tile to fp16 for an mma.sync
MMA_BLOCK_VS = (64, 128)
MMA_WARPS = (4, 8)


def read_mma_candidates(plan, times: dict[Launch, dict[int, float]]) -> list[Launch]:
    """Phase 4c (the value-tile decode of an FP8 read copy, plan.vtile_read_mma): its
    non-flush products on tensor cores (Launch.read_mma), flush separate, at each
    MMA_BLOCK_VS tile up to the value dim, MMA_WARPS warps (at most one warpgroup per 64
    rows) and stage count; those not timed yet. Its own grid, not variants of the best
    launches so far: those are one- and two-warp programs of 8-32 rows, where an e4m3
    product runs as fp16 (offline sm_90: KDA's [16, 128] at four warps, HMMA on widened
    tiles; [64, 128], wgmma on the e4m3 tile from shared memory)."""
    if decode_is_chunked(plan) or not plan.vtile_read_mma:
        return []
    out = []
    for bv in MMA_BLOCK_VS:
        too_big = bv > max(_next_pow2(plan.V), MMA_BLOCK_VS[0])
        if too_big or not _launchable(plan, "replay_decode", bv, None):
            continue
        for w in MMA_WARPS:
            if w > 4 * bv // 64:
                continue
            for stages in (DEFAULT_STAGES,) + EXTRA_STAGES:
                cand = Launch(bv, w, stages, separate_flush=True, read_mma=True)
                if cand not in times:
                    out.append(cand)
    return out


def _separate_flush_bases(plan, times: dict[Launch, dict[int, float]], keep: int, accept) -> list[Launch]:
    """At each batch the `keep` fastest launches whose flush is separate (Launch.
    separate_flush, or a plan whose decode always leaves it to the fold launch) that
    `accept` takes."""
    return _fastest_at_each_batch(times, keep, lambda c: accept(c)
                                  and (c.separate_flush or not plan.FUSED_FLUSH))


def _separate_flush_variants(plan, times: dict[Launch, dict[int, float]], keep: int, field: str,
                             values, unset=None, accept=lambda c: True) -> list[Launch]:
    """The `_separate_flush_bases` whose `field` is `unset` and that `accept` takes, with
    `field` set to each of `values`; those not timed yet."""
    bases = _separate_flush_bases(plan, times, keep, lambda c: getattr(c, field) == unset and accept(c))
    return _untimed((dataclasses.replace(c, **{field: v}) for c in bases for v in values), times)


# phase 4d's extra caps at one warp: 19 and 21 programs per SM
HEAD_SCORE_CAPS = (104, 96)


def head_scores_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 2) -> list[Launch]:
    """Phase 4d (the key-chunk decode of scalar decays, plan.scores_at_head): at each batch
    the `keep` fastest launches so far that do not fold in one pass, with the records'
    scores taken at the head (Launch.head_scores; their stream then not first), at their
    own register cap and at each of register_caps(num_warps), and one-warp launches also
    at HEAD_SCORE_CAPS. The head's [BL, K] record tile raises the registers, and the
    lighter chunk loop needs fewer (offline sm_90, GDN 4B FP8 [64, 32] at one warp: 128
    -> 159 registers uncapped, 16 -> 12 programs per SM; no spill at a cap of 128, nor of
    104: 19 programs per SM, where the stream with its records spills 16 B at 112)."""
    if not plan.scores_at_head:
        return []
    bases = _fastest_at_each_batch(times, keep, lambda c: not c.head_scores and not c.onepass_flush)
    return _untimed((dataclasses.replace(c, head_scores=True, stream_first=False, maxnreg=cap)
                     for c in bases
                     for cap in dict.fromkeys((c.maxnreg, *register_caps(c.num_warps),
                                               *(HEAD_SCORE_CAPS if c.num_warps == 1 else ())))),
                    times)


def decode_heads_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 2) -> list[Launch]:
    """Phase 4e (the key-chunk decode whose records' raw scores a key group shares,
    plan.decode_shares_keys): at each batch the `keep` fastest unsplit launches with the
    scores at the head, each with its programs serving d value heads of one key group,
    for every divisor d > 1 of the group up to MAX_HEADS (Launch.heads): the records' key
    tile and its products with the token's query and key, once per d heads (Mamba-2's key
    groups hold 12 value heads, GDN Qwen3.5-4B's 2). Fewer, longer programs: the batch
    must still fill the GPU."""
    if not plan.decode_shares_keys:
        return []
    bases = _fastest_at_each_batch(times, keep, lambda c: c.head_scores and c.split == 1 and c.heads == 1)
    return _untimed((dataclasses.replace(c, heads=d) for c in bases for d in group_divisors(plan)), times)


# phase 4f's record blocks (H100, session 60, A/B at batch 256 against whole-ring tiles:
# GDN 4B NVFP4 blocks of 8 1.064x at n = L/2, 1.029x amortised; Mamba-2 Nano NVFP4
# blocks of 4 1.031x / 1.009x, of 8 0.978x amortised; the FP8 decodes within 1% or slower)
RECORD_BLOCKS = (4, 8)


def record_block_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 2) -> list[Launch]:
    """Phase 4f (the key-chunk decode, plan.record_blocks): at each batch the `keep`
    fastest launches with the records' scores at the head and the flush in the fold
    launch, with each value tile's records' terms taken from the committed records only,
    RECORD_BLOCKS rows at a time (Launch.record_block; at the ring's size or more a
    block is the whole ring, no better than its tiles, so those are not tried)."""
    if not plan.record_blocks:
        return []
    blocks = [b for b in RECORD_BLOCKS if b < plan.L]
    return _separate_flush_variants(plan, times, keep, "record_block", blocks, unset=0,
                                    accept=lambda c: c.head_scores)


# The warps per multiprocessor of the queued fold's default grid: FOLD_PROGRAMS_PER_SM
# programs of 4 warps
FOLD_WARPS_PER_SM = 4 * FOLD_PROGRAMS_PER_SM


def fold_warps_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 2) -> list[Launch]:
    """Phase 5 (decode): at each batch the `keep` fastest launches whose flush is separate
    and whose fold launch has the default grid, with that fold launch at each warp count
    (Launch.fold_warps), each also with a grid of FOLD_WARPS_PER_SM warps per
    multiprocessor where the default grid holds a different number (Launch.fold_programs:
    8 programs of 2 warps, 16 of 1, 2 of 8); those not timed yet. A launch whose fold
    warps are set already (a table's, in a refining sweep) is a base too: its variants
    replace them. After a decode step one row in L folds: a few busy programs, whose best
    shape is not that of a flush of every row (the fold's own table entry). The default
    grid of 4 programs per multiprocessor left fewer-warp folds with fewer warps
    (session 58's ncu of the NVFP4 fold: 35% of issue slots busy, waiting on memory and
    barriers, at 16 warps per SM)."""
    def grids(warps):   # the default grid, and one of FOLD_WARPS_PER_SM warps where that differs
        same = FOLD_WARPS_PER_SM // warps
        return (None, same) if same >= 1 and same != FOLD_PROGRAMS_PER_SM else (None,)
    bases = _separate_flush_bases(plan, times, keep, lambda c: c.fold_programs is None)
    return _untimed((dataclasses.replace(c, fold_warps=w, fold_programs=g)
                     for c in bases for w in WARPS for g in grids(w)), times)


# 16 and 32: a few large blocks queued (GLA's 512 KiB heads: 64 blocks after a staggered
# batch-256 step, 2 x 64 programs of the 528 the queued launch holds at split 2)
FOLD_SPLITS = (1, 2, 4, 8, 16, 32)


def fold_split_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 2) -> list[Launch]:
    """Phase 6 (decode): at each batch the `keep` fastest launches whose flush is separate,
    with that fold launch's queued blocks split over each number of programs
    (Launch.fold_split; unset: plan.fold_split; a split of more programs than the fold's
    value tiles runs as one per tile, so those past the tile count are not tried)."""
    splits = [s for s in FOLD_SPLITS if s != plan.fold_split and s // 2 < plan.NV]
    return _separate_flush_variants(plan, times, keep, "fold_split", splits)


# phase 7's depths: 3 gave Mamba-2 Nano NVFP4 2.2% and cost GDN 4B FP8 1.1%, 2 and 4 did
# worse than 3 (H100, session 58)
FOLD_STAGES = (2, 3)


def fold_stages_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 2) -> list[Launch]:
    """Phase 7 (decode): at each batch the `keep` fastest launches whose flush is separate,
    with that fold launch's tile loop software-pipelined each of FOLD_STAGES deep
    (Launch.fold_stages; unset: a plain loop)."""
    return _separate_flush_variants(plan, times, keep, "fold_stages", FOLD_STAGES)


SPLITS = (2, 4, 8, 16, 32)
# Splits past 8 whose programs at the smallest batch would exceed this are not tried:
# past ~8 programs per SM of a 132-SM H200 more programs only repeat the head-level work
# (a split of 16 or 32 is for decodes of few value heads: GLA's 4 at batch 1 hold 32
# programs at split 8, a quarter of the SMs; session 28).
MAX_SPLIT_PROGRAMS = 1024
# Phase 3 is skipped where the smallest batch already has more unsplit programs than this:
# every split in the tables (sessions 1-59, H100 and H200) is at batch 1 or 8 (at most 768
# programs unsplit), none at 64 or more (2048 and up for GDN, KDA, Mamba-2), and at batch
# 256 the phase's 3-9 launches cost a budgeted sweep 10-15 s (session 59's refining
# sweeps ran out of budget in it).
SPLIT_BASE_PROGRAMS = 1024


def split_candidates(plan, times: dict[Launch, dict[int, float]], keep: int = 3) -> list[Launch]:
    """Phase 3 (decodes that split, plan.decode_splits): the `keep` fastest launches at the smallest batch,
    with their (row, value head) split over 2 to 8 programs, or 16 or 32 where that
    batch then has at most MAX_SPLIT_PROGRAMS programs, each program keeping the launch's value
    tile or taking 1/split of it (at least 8 rows; at most one tile per program), at the
    launch's warps or 1/split of them: more programs in flight where a small batch leaves
    most SMs idle. The launch's other choices (its stream first, phase 1b; its register
    cap, phase 2b) stay."""
    if not times or not decode_splits(plan):
        return []
    small = min(b for t in times.values() for b in t)
    if small * plan.HV > SPLIT_BASE_PROGRAMS:
        return []
    ranked = sorted((c for c, t in times.items() if small in t), key=lambda c: times[c][small])
    out = []
    for c in ranked[:keep]:
        for split in SPLITS:
            if split > 8 and small * plan.HV * split > MAX_SPLIT_PROGRAMS:
                break
            for bv in dict.fromkeys((c.BV, c.BV // split)):
                for w in dict.fromkeys((c.num_warps, max(1, c.num_warps // split))):
                    cand = dataclasses.replace(c, BV=bv, num_warps=w, split=split, onepass_flush=False)
                    if bv >= 8 and split <= -(-plan.V // bv) and cand not in times and cand not in out:
                        out.append(cand)
    return out


class Job:
    """One configuration to tune: its kernels, its results so far."""

    def __init__(self, variant, config_name, kern, only=()):
        self.variant, self.config_name, self.kern = variant, config_name, kern
        # a speculative configuration (built for T_MAX > 1 drafts) is tuned for its verify
        # kernel and the fold its commits run; the others for the decode kernels
        self.kernels = SPECULATIVE_KERNELS if kern.plan.T_MAX > 1 else DECODE_KERNELS
        if not kern.plan.VERIFY_FOLDS:   # no verify launch of folding rows
            self.kernels = tuple(k for k in self.kernels if k != "verify_fold")
        else:   # its commits only move records, at runtime.commit_move_warps
            self.kernels = tuple(k for k in self.kernels if k != "commit")
        if only:   # --kernels: a subset (the others keep their table entries)
            self.kernels = tuple(k for k in self.kernels if k in only)
        self.times: dict[str, dict[Launch, dict[int, float]]] = {k: {} for k in self.kernels}
        self.plan_launch = {k: plan_launch(kern.plan, k) for k in self.kernels}
        # the launches the table holds for this configuration now (phase 1 times them too)
        self.incumbents: dict[str, list[Launch]] = {k: [] for k in self.kernels}

    def add_incumbents(self, table: TuningTable, gpu: str, batches) -> None:
        """The table's launches for this configuration, each kernel and batch: phase 1
        re-times them, so a sweep cut short by its budget before the phases that found
        them (a separate flush, the fold's warps) cannot replace them with a slower launch
        (session 9: such sweeps wrote 0.225 ms over a 0.188 ms entry). At a batch below
        every tabled one that is the launch the runtime derives from the entry (a decode's
        raised split), what serving would run there. The same configuration's launches at
        other ring lengths (`siblings`) join them."""
        for config in [None] + self.siblings(table, gpu):
            for kernel in self.kernels:
                for b in batches:
                    launch = table.launch(self.kern.plan, kernel, gpu, b, config=config)
                    if launch is not None and launch not in self.incumbents[kernel]:
                        self.incumbents[kernel].append(launch)

    def siblings(self, table: TuningTable, gpu: str) -> list[str]:
        """The tabled configurations that differ from this one only in the ring length L.
        A launch names no L, so theirs run here, and phase 1 times them as incumbents: a
        sweep that starts from this configuration's own entry alone can settle far from
        them (session 29: GLA L = 8 at batch 1, started from its batch-256 entry, kept a
        separate flush, 0.0088 ms amortised, where L = 16's entry takes 0.0050)."""
        config = self.kern.plan.config
        out = []
        for name in table.configs(gpu):
            length = re.search(r"__L(\d+)__", name)   # a hint; the name built below decides
            if length and name != config.name and \
                    dataclasses.replace(config, buffer_length=int(length[1])).name == name:
                out.append(name)
        return out

    def load_kwargs(self):
        """`load` arguments of this configuration, for the compile workers: the whole
        precision configuration (a worker given only the state and record dtypes compiled
        the fp32 configuration of a read-copy one, and the timing process compiled again)."""
        return self.kern.plan.config.load_options()


# Timing one candidate (a CUDA graph of its launches, replayed a few dozen times) takes
# ~0.15 s (session 46: Mamba-2 Nano's fp32 decode, 36 launches in 5.4 s). Over a second
# means the timing process compiled it: session 46's FP8 sweep timed 41 launches in 96 s
# (session 41's, the same sweep at b4c31c1, in 5 s) and its budget ran out in phase 2b: its
# kernels' source hashes differed between the workers and the timing process (the cause and
# the fix: runtime.settle_helper_cache_keys; session 47: 84 -> 5 s).
SLOW_TIMING_S = 1.0


def _measure(jobs: list[Job], todo: dict, batches, timer, device, workers, log, save=None,
             deadline=float("inf")):
    """Time every (job, kernel, launch) in `todo` at every batch: compile ahead in
    parallel, then time in this process, one configuration's buffers at a time; `save()`
    after each configuration; configurations not started by `deadline` (perf_counter
    seconds) are left as they are."""
    from .perf import CompileKeys, Workload, key_difference, pool_size, precompile
    slots = pool_size(batches)
    tasks = []
    for j in jobs:
        launches = [(k, c) for k in j.kernels for c in todo.get((id(j), k), [])]
        for i in range(0, len(launches), 4):     # chunks of 4 balance the workers
            tasks.append((j.variant, j.load_kwargs(), launches[i:i + 4], tuple(batches), str(device)))
    t0 = time.perf_counter()
    ahead: set[tuple[str, str]] = set()   # the workers' (kernel, cache key)s
    precompile(tasks, workers, log, keys=ahead)
    log(f"  compiled {sum(len(t[2]) for t in tasks)} launches in {time.perf_counter() - t0:.1f} s "
        f"({workers} processes)")
    t0 = time.perf_counter()
    slow = []   # (seconds, what, the kernels its timing compiled: disk cache misses)
    for n, j in enumerate(jobs):
        if time.perf_counter() > deadline:
            log(f"  time budget reached: {len(jobs) - n} configuration(s) not timed in this phase")
            break
        try:
            work = Workload(j.kern, slots, device)
        except Exception as exc:  # noqa: BLE001 - reported; the other configurations go on
            log(f"  {j.kern.name}: buffers failed ({type(exc).__name__}: {str(exc)[:200]}); skipped")
            continue
        for kernel in j.kernels:
            for cand in todo.get((id(j), kernel), []):
                j.kern.forced = {kernel: cand}
                row = j.times[kernel].setdefault(cand, {})
                for b in batches:
                    t1 = time.perf_counter()
                    try:
                        with CompileKeys() as here:
                            row[b] = work.time_kernel(timer, kernel, b)
                    except Exception as exc:  # noqa: BLE001 - a candidate that fails is dropped
                        log(f"  {j.kern.name} {kernel} {cand}: failed ({type(exc).__name__}: "
                            f"{str(exc)[:200]}); skipped")
                        row.clear()
                        break
                    took = time.perf_counter() - t1
                    if took > SLOW_TIMING_S and work.device.type == "cuda":
                        slow.append((took, f"{kernel} {cand} at {b}",
                                     [(name, key) for name, key, hit in here.keys if not hit]))
        j.kern.forced = {}
        del work
        if save:
            save()
    log(f"  timed in {time.perf_counter() - t0:.1f} s")
    if slow:
        seconds, what, missed = max(slow, key=lambda s: s[0])
        log(f"  {len(slow)} launch(es) took over {SLOW_TIMING_S:.0f} s each to time (slowest "
            f"{seconds:.1f} s: {what}); kernels compiled here, not found in the workers' "
            f"disk cache: {len(missed)}")
        for name, key in missed[:3]:
            log(f"    {name}: {key_difference(key, [k for n, k in ahead if n == name])}")


def _phases():
    """The phases after the first: (description, kernels, candidates(job, times of the
    kernel)); a phase with no candidates is skipped silently."""
    decode_sf = lambda j, t: separate_flush_candidates(t) if j.kern.plan.FUSED_FLUSH else []  # noqa: E731
    # (a plan whose decode always leaves its flush to the fold launch has nothing to add in 4)
    return (("phase 1b (the decode's stream first)", ("replay_decode",),
             lambda j, t: stream_first_candidates(j.kern.plan, t)),
            ("phase 2 (num_stages)", STREAMING, lambda j, t: stage_candidates(t)),
            ("phase 2b (register caps)", CAPPED, lambda j, t: register_cap_candidates(t)),
            ("phase 2d (the decode's flush in one pass)", ("replay_decode",),
             lambda j, t: onepass_flush_candidates(j.kern.plan, t)),
            ("phase 2e (the decode's flushing programs first)", ("replay_decode",),
             lambda j, t: flush_order_candidates(j.kern.plan, t)),
            ("phase 2c (verify programs over several value heads)", ("verify", "verify_fold"),
             lambda j, t: shared_group_candidates(j.kern.plan, t)),
            ("phase 2f (the value-tile verify's head phase in a launch of its own)",
             ("verify", "verify_fold"), lambda j, t: head_launch_candidates(j.kern.plan, t)),
            ("phase 2g (the warps of the verify's head launch)", ("verify", "verify_fold"),
             lambda j, t: head_warps_candidates(j.kern.plan, t)),
            ("phase 3 (value-axis split of the decode)", ("replay_decode",),
             lambda j, t: split_candidates(j.kern.plan, t)),
            ("phase 4 (the decode's flush in a separate launch)", ("replay_decode",), decode_sf),
            ("phase 4b (a value-tile read copy's words)", ("replay_decode",),
             lambda j, t: read_words_candidates(j.kern.plan, t)),
            ("phase 4c (an FP8 read copy's products on tensor cores)", ("replay_decode",),
             lambda j, t: read_mma_candidates(j.kern.plan, t)),
            ("phase 4d (the decode's record scores at the head)", ("replay_decode",),
             lambda j, t: head_scores_candidates(j.kern.plan, t)),
            ("phase 4e (decode programs over several value heads of a key group)", ("replay_decode",),
             lambda j, t: decode_heads_candidates(j.kern.plan, t)),
            ("phase 4f (the decode's records in blocks of the committed ones)", ("replay_decode",),
             lambda j, t: record_block_candidates(j.kern.plan, t)),
            ("phase 5 (the warps of the separate fold launch)", ("replay_decode",),
             lambda j, t: fold_warps_candidates(j.kern.plan, t)),
            ("phase 6 (the split of the separate fold launch's blocks)", ("replay_decode",),
             lambda j, t: fold_split_candidates(j.kern.plan, t)),
            ("phase 7 (the separate fold launch's tile loop pipelined)", ("replay_decode",),
             lambda j, t: fold_stages_candidates(j.kern.plan, t)))


def first_candidates(job: Job, kernel: str, refine: bool = False) -> list[Launch]:
    """Phase 1's launches of a job's kernel: the grid (`candidates`) and the launches the
    table holds now; with `refine`, where the table holds any, those and the plan's launch
    alone. A refining sweep's later phases start from the table's launches, so a launch
    choice added since the last sweep (a new phase) is tried on them in a fraction of a
    whole sweep's time (session 59: Mamba-2 Nano's NVFP4 decode, 90 s of budget, ran out
    before phase 7); a kernel without an entry still gets the grid."""
    if refine and job.incumbents.get(kernel):
        return _with([job.plan_launch[kernel]], job.incumbents[kernel])
    return _with(candidates(job.kern.plan, kernel), job.incumbents.get(kernel, ()))


def phase_ids() -> list[str]:
    """The later phases' names as `--phases` takes them ("1b", "2", ... "7")."""
    return [name.split()[1] for name, _, _ in _phases()]


def tune(jobs: list[Job], batches, timer, device, workers: int, log=print, save=None,
         deadline=float("inf"), refine: bool = False, phases=None) -> None:
    """Phase 1 (`first_candidates`), then each of `_phases()` (those named in `phases`,
    when given) on what the phases before measured; `save()` after each configuration,
    so a run cut short keeps what it measured."""
    todo = {(id(j), k): first_candidates(j, k, refine) for j in jobs for k in j.kernels}
    what = " (refining the tabled launches)" if refine else ""
    log(f"phase 1{what}: {sum(map(len, todo.values()))} (configuration, kernel, launch) at "
        f"{len(batches)} batch sizes")
    _measure(jobs, todo, batches, timer, device, workers, log, save, deadline)
    for name, kernels, extend in _phases():
        if phases is not None and name.split()[1] not in phases:
            continue
        if time.perf_counter() > deadline:
            log(f"time budget reached: {name} and the phases after it skipped")
            return
        todo = {(id(j), k): extend(j, j.times[k]) for j in jobs for k in kernels if k in j.kernels}
        if any(todo.values()):
            log(f"{name}: {sum(map(len, todo.values()))} more")
            _measure(jobs, todo, batches, timer, device, workers, log, save, deadline)


def _with(launches: list[Launch], more) -> list[Launch]:
    return launches + [c for c in more if c not in launches]


def choose(measured: dict[Launch, float], plan_launch: Launch, incumbents) -> Launch:
    """The launch a table takes from one run's times: the fastest, unless the plan's is
    within MARGIN of it (no entry needed) or a tabled launch within INCUMBENT_MARGIN
    (no swap for noise)."""
    best = min(measured, key=measured.get)
    held = [c for c in incumbents if c in measured]
    if measured.get(plan_launch, float("inf")) <= measured[best] * (1 + MARGIN):
        return plan_launch
    if held and min(measured[c] for c in held) <= measured[best] * (1 + INCUMBENT_MARGIN):
        return min(held, key=measured.get)
    return best


def _measured(jobs: list[Job], batches):
    """(job, kernel, batch, {launch: ms}) for every batch where the kernel has times."""
    for j in jobs:
        for kernel, times in j.times.items():
            for b in batches:
                measured = {c: r[b] for c, r in times.items() if b in r}
                if measured:
                    yield j, kernel, b, measured


def table_of(jobs: list[Job], gpu: str, meta: dict, batches) -> dict[str, TuningTable]:
    """The best launch per (configuration, kernel, batch), one table per variant."""
    tables: dict[str, TuningTable] = {}
    for j in jobs:
        tables.setdefault(j.variant, TuningTable(f"<tune {j.variant}>")).meta[gpu] = meta
    for j, kernel, b, measured in _measured(jobs, batches):
        plan_launch = j.plan_launch[kernel]
        best = choose(measured, plan_launch, j.incumbents.get(kernel, ()))
        info = {"ms": round(measured[best], 5)}
        if plan_launch in measured:
            info["plan_ms"] = round(measured[plan_launch], 5)
        tables[j.variant].add(gpu, j.kern.name, kernel, b, best, **info)
    return tables


def incumbent_report(jobs: list[Job], batches) -> list[str]:
    """One line per (configuration, kernel, batch) whose tabled launch was re-timed: its
    time in this run against the sweep's best, and whether the table keeps it
    (INCUMBENT_MARGIN), so that a swap can be checked against the same run afterwards."""
    lines = []
    for j, kernel, b, measured in _measured(jobs, batches):
        held = [c for c in j.incumbents.get(kernel, ()) if c in measured]
        if not held:
            continue
        tabled = min(held, key=measured.get)
        best = min(measured, key=measured.get)
        chosen = choose(measured, j.plan_launch[kernel], held)
        verdict = ("kept" if chosen == tabled else "replaced by the plan's launch"
                   if chosen == j.plan_launch[kernel] else "replaced by the best")
        lines.append(f"  {j.kern.name} {kernel} {b}: tabled {measured[tabled]:.4f} ms, "
                     f"best {measured[best]:.4f} ms: {verdict}")
    return lines


def report(tables: dict[str, TuningTable], log=print) -> None:
    log(f"\n{'configuration':<62} {'kernel':<20} {'batch':>5} {'BV':>3} {'BKT':>3} {'w':>2} {'s':>2} "
        f"{'sp':>2} {'sf':>2} {'fw':>2} {'fp':>2} {'fs':>2} {'fd':>2} {'reg':>3} {'hd':>2} {'1st':>3} {'wd':>2} {'mm':>2} {'hl':>2} {'hw':>2} {'1p':>2} {'ord':>3} {'hs':>2} {'rb':>2} {'ms':>9} {'plan ms':>9} {'gain':>6}")
    for t in tables.values():
        for gpu, config, kernel, b, launch, info in t.entries():
            gain = info.get("plan_ms", info["ms"]) / info["ms"]
            log(f"{config:<62} {kernel:<20} {b:>5} {launch.BV:>3} {launch.BKT or '-':>3} {launch.num_warps:>2} "
                f"{launch.num_stages:>2} {launch.split:>2} {'y' if launch.separate_flush else '-':>2} {launch.fold_warps or '-':>2} {launch.fold_programs or '-':>2} {launch.fold_split or '-':>2} {launch.fold_stages or '-':>2} {launch.maxnreg or '-':>3} {launch.heads:>2} {'y' if launch.stream_first else '-':>3} {'y' if launch.read_words else '-':>2} "
                f"{'y' if launch.read_mma else '-':>2} {'y' if launch.head_launch else '-':>2} {launch.head_warps or '-':>2} {'y' if launch.onepass_flush else '-':>2} {launch.flush_order or '-':>3} {'y' if launch.head_scores else '-':>2} {launch.record_block or '-':>2} {info['ms']:>9.4f} {info.get('plan_ms', float('nan')):>9.4f} "
                f"{gain:>5.2f}x")


def run(args, log=print) -> int:
    """The command: build the jobs, sweep, merge into the files, print the table."""
    from .perf import Timer, environment, require_cuda
    from .runtime import device_name, load, table_device_names
    from .spec import available_variants, load_variant

    device = require_cuda("tune")
    start = time.perf_counter()
    meta = environment()
    gpu = device_name(device)
    log(f"replaygen tune on {gpu} (torch {meta['torch']}, triton {meta['triton']}, "
        f"commit {meta['commit']})")
    jobs = []
    for variant in (available_variants() if args.all else [args.variant]):
        spec = load_variant(variant)
        names = [args.config] if args.config else [c.name for c in spec.configs]
        for name in names:
            for L in args.L or [spec.defaults.buffer_length]:
                for sdt in args.state_dtype:
                    kern = load(variant, config=name, L=L, state_dtype=sdt,
                                record_dtype=args.record_dtype, tuning=False,
                                max_drafts=args.max_drafts, read_dtype=args.read_dtype,
                                fp8_scale=args.fp8_scale, stochastic=args.stochastic,
                                decode_structure=args.decode_structure,
                                gate_records=args.gate_records,
                                verify_folds=args.verify_folds)
                    jobs.append(Job(variant, name, kern, args.kernels or ()))
    log(f"{len(jobs)} configurations, batches {args.batches}")
    for j in jobs:
        path = Path(args.out) / j.variant / TUNING_FILE
        if path.is_file():
            # this GPU's entries and its stand-ins' (a first sweep on an H100 starts from
            # the H200's launches, which serve it until then)
            table = TuningTable.read(path, j.variant)
            for g in table_device_names(device, table):
                j.add_incumbents(table, g, args.batches)
    timer = Timer(device, reps=args.reps)

    def save(final=False):
        tables = table_of(jobs, gpu, meta, args.batches)
        if final:
            report(tables, log)
        for variant, new in tables.items():
            path = Path(args.out) / variant / TUNING_FILE
            table = TuningTable.read(path, variant) if path.is_file() else TuningTable(str(path))
            table.merge(new)
            table.write(path, variant)
            if final:
                log(f"wrote {path} ({len(table)} entries)")
    deadline = start + args.budget_s if args.budget_s else float("inf")
    tune(jobs, args.batches, timer, device, args.jobs, log, save=lambda: save(final=False),
         deadline=deadline, refine=args.refine, phases=args.phases)
    for line in incumbent_report(jobs, args.batches):
        log(line)
    save(final=True)
    log(f"replaygen tune: {time.perf_counter() - start:.0f} s")
    return 0
