"""Launch configurations as data: the tuning table read at serve time.

Input: `generated/<variant>/tuning.json` (written by `replaygen tune`, replaygen/tune.py),
or any file or `TuningTable` passed to `replaygen.load(tuning=...)`.
Output: for a (kernel config name, kernel, GPU name, batch) the `Launch` to use
(value tile BV, optionally the decode kernel's key chunk BKT, num_warps, num_stages), or
None, in which case the plan's own choice (the module's CONSTEXPRS and warps) is used:
wherever neither the device's own entries nor its stand-ins' (tuned GPUs of the same
compute capability, `TuningTable.stand_ins`) have one for the configuration and kernel.
Between the device's entries and its stand-ins' the batch decides
(`TuningTable.serving_order`): the device's own serve the buckets it was swept at.
Invariants: a table is validated completely when it is loaded (`TuningError` naming the
file, the entry and the reason); a lookup never compiles or times anything (Triton's
first-use JIT aside: `Kernels.warmup` does that ahead of CUDA-graph capture); the
constants that follow from the tiles (NV, DNV, NK, BL, FOLD_DOT, DECODE_FOLD_DOT) come
from `plan.launch_constants`, never from the file.

The file:

    {"format": 1, "variant": "gdn",
     "gpus": {"NVIDIA H200": {"meta": {"date": ..., "torch": ..., "triton": ..., "commit": ...,
                                       "capability": "9.0", "multiprocessors": 132,
                                       "earlier": [the metas of earlier sweeps merged in]},
                              "entries": [{"config": "gdn__H16_..._rec_bf16",
                                           "kernel": "replay_decode", "batch": 256,
                                           "BV": 16, "num_warps": 2, "num_stages": 3,
                                           "ms": 0.25, "plan_ms": 0.27}, ...]}}}

`batch` is a bucket: a launch of `rows` rows uses the entry of the largest tuned batch
<= rows (the smallest one when rows is below them all). `ms` and `plan_ms` (the time of
the plan's choice in the same sweep) are informational.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path

from .errors import ConfigError, TuningError
from .plan import decode_splits, launch_constants

# Triton compile options every launch pins, whatever the launch: FMA contraction (a*b + c
# rounded once, FFMA / HFMA2) stays on. It is Triton's default through 3.9, which warns
# that 3.10 turns it off. Every tolerance and tuned time here was measured with it, and
# off it would split each FFMA of the instruction-bound read copies into a multiply and
# an add.
PINNED_OPTIONS = {"enable_fp_fusion": True}


def compile_options(num_warps: int, **options) -> dict:
    """A launch's Triton compile options: `num_warps`, any `options` (num_stages, maxnreg),
    and PINNED_OPTIONS."""
    return {"num_warps": num_warps, **options, **PINNED_OPTIONS}


FORMAT = 1
TUNING_FILE = "tuning.json"
KERNELS = ("replay_decode", "fold", "conventional_decode", "verify", "verify_fold", "commit")
# the kernels `replaygen tune` sweeps for a configuration: verify, the fold (flush and
# materialize) and the commit's fold launch where the configuration is built for
# speculation (max_drafts > 1), the decode kernels elsewhere
DECODE_KERNELS = KERNELS[:3]
SPECULATIVE_KERNELS = ("verify", "verify_fold", "fold", "commit")
BATCH_BUCKETS = (1, 8, 64, 256, 512)
ENTRY_KEYS = {"config", "kernel", "batch", "BV", "num_warps", "num_stages"}
OPTIONAL_KEYS = {"BKT", "split", "separate_flush", "maxnreg", "heads", "fold_warps", "fold_split",
                 "stream_first", "read_words", "onepass_flush", "flush_order", "read_mma",
                 "head_launch", "head_warps", "head_scores", "fold_stages", "record_block",
                 "fold_programs"}
MAX_SPLIT = 64
INFO_ORDER = ("ms", "plan_ms")   # as written: a set's order changes from run to run
INFO_KEYS = frozenset(INFO_ORDER)
MAX_WARPS = 32        # Triton's limit (1024 threads)
MAX_STAGES = 8
# An entry whose launch now measures more than this much slower than its recorded `ms`
# has gone stale (a template change since its sweep; GLA's fp32 decode entries of
# 2026-12-01 were 1.2-1.6x slower by 2026-12-04): `replaygen bench` notes it and
# bench/table_audit.py flags it. Run-to-run medians differ by ~1-3% (bench/NOTES.md).
STALE = 1.10
MAX_FLUSH_ORDER = 64  # the flushing programs' spacing (Launch.flush_order); one in L flushes
MAX_RECORD_BLOCK = 256   # a decode's record block (Launch.record_block): at most its ring tile
MAX_FOLD_SPLIT = 64   # value tiles of a fold (V / BV, at most 64 for V <= 1024 and BV >= 16)
# Programs per multiprocessor of the queued fold launch (runtime.Kernels._fold_queued)
# unless the decode's launch names its own (Launch.fold_programs): what a [16, 128] fold
# of 4 warps and ~120 registers keeps resident on an H200 (ncu, session 11: 4 blocks per
# SM); at most MAX_FOLD_PROGRAMS (sm_90 holds 32 blocks per multiprocessor).
FOLD_PROGRAMS_PER_SM = 4
MAX_FOLD_PROGRAMS = 32


@dataclass(frozen=True)
class Launch:
    """BV: the kernel's value tile (DBV for the key-chunked decode kernel); BKT: the key
    chunk of the key-chunked decode kernel (None: the plan's); warps; pipeline stages;
    split: programs per (row, value head) along the value axis (decode only, where
    plan.decode_splits; more programs for small batches); separate_flush (decode only): rows whose ring fills
    are folded by a second launch (the fold kernel) instead of inside the decode launch,
    whose kernel then carries no fold code (fewer registers, more programs per SM);
    maxnreg: a cap on the registers per thread that ptxas may use (None: none; Triton's
    `maxnreg` launch option): more programs per SM for a kernel whose registers limit
    them, at the price of spills where the cap is below what it needs; heads (the key-chunked
    verify; the key-chunk decode with head_scores, plan.decode_shares_keys): value heads
    of one key group per program, which share the program's key-level work (fewer, longer
    programs; a divisor of the group size); fold_warps
    (decode only, where its flush is separate): the num_warps of that fold launch (None:
    the fold's own launch). After a decode step one row in L folds, so the fold launch's
    best shape differs from that of a flush of every row (its own table entry): fewer,
    busier programs (H200, GDN fp32 + NVFP4, batch 256: 4 warps instead of the plan's 2
    took the amortised step from 0.163 to 0.151 ms; bench/results/session8-2026-12-01/).
    fold_split (decode only, with a separate flush): the programs that share one queued
    (slot, value head) block of that fold launch, each folding every fold_split-th value
    tile (None: the plan's fold_split). stream_first (plan.streams_first: the key-chunk
    decode of scalar decays, where nothing before or inside the state stream then waits
    for the records' gates, which helps some configurations by ~5% and costs others as
    much (H200, session 12); the value-tile decode of a plain checkpoint, whose program's
    first tiles are then prefetched into L2 before the cursor; STREAM_FIRST,
    plan.launch_constants says what changes). read_words (the
    value-tile decode of a read copy, with a separate flush): the non-flush products
    word by word, as the key-chunk decode takes them (READ_WORDS). read_mma
    (the value-tile decode of an FP8 read copy, with a separate flush): the non-flush
    products on tensor cores, an e4m3 tile times an e4m3 probe operand (READ_MMA).
    head_launch (the value-tile verify, its plain or its folding rows): its head phase in
    a launch of its own, before the value tiles' stream (SPLIT_HEAD;
    plan.launch_constants); head_warps
    (with head_launch): that head launch's num_warps (None: the launch's), since the
    head phase holds [16, K] tiles that one warp keeps in registers only just (KDA T = 8,
    offline sm_90: 255 registers and 80 B spilled at one warp, 128 and none at four)
    while the stream launch streams [16, K] tiles best at one.
    onepass_flush
    (plan.onepass_flushes, fused flush, unsplit): a flushing row folds its records into
    each checkpoint chunk as it streams it, and its token opens the fresh window as ring
    row 0 (ONEPASS_FLUSH; plan.onepass_flushes). flush_order (the key-chunk decode, its
    flush fused; 0: grid order): the flushing rows' programs at every flush_order-th
    launch position from the start, so that the longest programs do not end the launch
    (FLUSH_ORDER; replaygen/launch_order.py). head_scores (plan.scores_at_head: the
    key-chunk decode of scalar decays, its stream not first, its flush not in one pass):
    the records' scores once per program before its value tiles, not in every chunk of
    each value tile's stream (HEAD_SCORES). fold_stages (decode only, with a separate
    flush): that fold launch's tile loop software-pipelined this many stages deep (the
    fold kernel's QSTAGES: the next tiles' checkpoint and records arrive by cp.async
    while a tile folds; None: a plain loop, which Triton left unpipelined: no cp.async
    in the queued fold's sm_90 SASS at its default depth). H100, session 58, three
    stages: Mamba-2 Nano fp32 + NVFP4 2.2% faster amortised, GDN 4B fp32 + FP8 1.1%
    slower, so it is a choice per configuration. record_block (with head_scores and a
    separate flush, plan.record_blocks): the records' terms of each value tile from the
    committed records only, record_block rows at a time (RECORD_BLOCK; 0: from
    whole-ring tiles). fold_programs (decode only, with a separate flush): that fold
    launch's grid in programs per multiprocessor (None: FOLD_PROGRAMS_PER_SM, 4,
    which four-warp folds of 128 registers fill; at fewer warps per program that leaves
    warps unused: 8 two-warp or 16 one-warp programs hold as many). Not a compile-time
    constant: the launch's grid only."""

    BV: int
    num_warps: int
    num_stages: int
    BKT: int | None = None
    split: int = 1
    separate_flush: bool = False
    maxnreg: int | None = None
    heads: int = 1
    fold_warps: int | None = None
    fold_split: int | None = None
    stream_first: bool = False
    read_words: bool = False
    onepass_flush: bool = False
    flush_order: int = 0
    read_mma: bool = False
    head_launch: bool = False
    head_warps: int | None = None
    head_scores: bool = False
    fold_stages: int | None = None
    record_block: int = 0
    fold_programs: int | None = None

    def constants(self, plan, kernel: str) -> dict[str, int | bool]:
        """The tl.constexpr arguments of `kernel` launched so (plan.launch_constants)."""
        if self.head_warps is not None and not self.head_launch:
            raise ConfigError(f"head_warps={self.head_warps} needs head_launch: one launch has "
                              "no head launch of its own")
        return launch_constants(plan, kernel, self.BV, self.BKT, self.split, self.num_stages,
                                self.separate_flush, self.heads, self.stream_first, self.read_words,
                                self.onepass_flush, self.flush_order, self.read_mma,
                                self.head_launch, self.head_scores, self.record_block)

    def options(self) -> dict:
        """The launch's compile options (Triton's num_warps, num_stages, maxnreg; and
        PINNED_OPTIONS)."""
        capped = {} if self.maxnreg is None else {"maxnreg": self.maxnreg}
        return compile_options(self.num_warps, num_stages=self.num_stages, **capped)

    def for_fewer_rows(self, plan, tabled: int, rows: int) -> "Launch":
        """This decode launch, tabled at batch `tabled`, for a batch of `rows` < tabled
        (the table has no entry at or below rows): its (row, value head) split raised,
        in powers of two, until the launch has as many programs as it had at its tabled
        batch, up to one value tile per program (decodes that split only,
        plan.decode_splits). A launch tuned for a large batch rarely splits, and with few
        value heads a small batch then leaves the GPU nearly idle: GLA's L = 8 decode,
        tabled at batch 256 only, would run 4 programs at batch 1 (tuned at L = 16,
        batch 1 took split 32: 0.0085 -> 0.0050 ms, H200, session 28). A launch whose
        programs serve several value heads (heads) first serves fewer: the largest
        divisor of its heads that keeps the programs, else one head per program, then
        the split as above (a split launch serves one head per program: launch_constants)."""
        if rows >= tabled or rows < 1:
            return self
        launch = self
        if self.heads > 1:
            fits = [d for d in range(1, self.heads + 1)
                    if self.heads % d == 0 and d * tabled <= self.heads * rows]
            launch = dataclasses.replace(self, heads=max(fits) if fits else 1)
            if fits:
                return launch
        if not decode_splits(plan):
            return launch
        tiles = -(-plan.V // self.BV)
        most = 1 << (tiles.bit_length() - 1)              # a power of two <= tiles
        # programs per (row, value head) to keep
        want = -(-tabled * self.split // (rows * self.heads))
        split = min(most, 1 << (want - 1).bit_length())
        # (a one-pass flush needs its rows unsplit: launch_constants)
        if split <= launch.split:
            return launch
        return dataclasses.replace(launch, split=split, onepass_flush=False)

    def as_dict(self) -> dict[str, int]:
        out = {"BV": self.BV, "num_warps": self.num_warps, "num_stages": self.num_stages}
        if self.BKT is not None:
            out["BKT"] = self.BKT
        if self.split != 1:
            out["split"] = self.split
        if self.separate_flush:
            out["separate_flush"] = True
        if self.maxnreg is not None:
            out["maxnreg"] = self.maxnreg
        if self.heads != 1:
            out["heads"] = self.heads
        if self.fold_warps is not None:
            out["fold_warps"] = self.fold_warps
        if self.fold_split is not None:
            out["fold_split"] = self.fold_split
        if self.stream_first:
            out["stream_first"] = True
        if self.read_words:
            out["read_words"] = True
        if self.onepass_flush:
            out["onepass_flush"] = True
        if self.flush_order:
            out["flush_order"] = self.flush_order
        if self.read_mma:
            out["read_mma"] = True
        if self.head_launch:
            out["head_launch"] = True
        if self.head_warps is not None:
            out["head_warps"] = self.head_warps
        if self.head_scores:
            out["head_scores"] = True
        if self.fold_stages is not None:
            out["fold_stages"] = self.fold_stages
        if self.record_block:
            out["record_block"] = self.record_block
        if self.fold_programs is not None:
            out["fold_programs"] = self.fold_programs
        return out


def _power_of_two(v, upper: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= upper and not v & (v - 1)


def _sweep_of(meta: dict) -> dict:
    """One sweep's own provenance: its meta without the sweeps merged before it."""
    return {k: v for k, v in meta.items() if k != "earlier"}


class TuningTable:
    """Entries by (config name, kernel, GPU name), each a batch-sorted list of launches."""

    def __init__(self, source: str = "<memory>"):
        self.source = source
        self.meta: dict[str, dict] = {}          # GPU name -> provenance of its sweep
        self._rows: dict[tuple[str, str, str], list[tuple[int, Launch, dict]]] = {}

    # -- building ------------------------------------------------------------------------
    def add(self, gpu: str, config: str, kernel: str, batch: int, launch: Launch,
            **info: float) -> None:
        """Add (or replace) one entry, validated as if it had been read from a file."""
        key = f"{gpu!r} entry {config}/{kernel}/batch {batch}"
        self._check_entry(key, {"config": config, "kernel": kernel, "batch": batch,
                                **launch.as_dict(), **info})
        rows = self._rows.setdefault((config, kernel, gpu), [])
        rows[:] = [r for r in rows if r[0] != batch]
        rows.append((batch, launch, dict(info)))
        rows.sort(key=lambda r: r[0])

    def merge(self, other: "TuningTable") -> None:
        """Entries of `other` replace this table's on the same keys. Provenance: `other`'s
        sweep becomes the GPU's meta and the sweeps before it are kept under its
        "earlier" list (newest first, each sweep once), since the merged entries still
        come from them. `replaygen tune` saves after every phase, so the same sweep is
        merged into its own file several times: that adds nothing to "earlier". Sweeps
        under `other`'s "earlier" that this table lacks come first: `other` was tuned
        from this table, and they ran after it (bench/merge_tables.py merges the tables
        of calls chained on one machine, each tuned from the committed one)."""
        for gpu, meta in other.meta.items():
            sweep = _sweep_of(meta)
            before = self.meta.get(gpu)
            held = [_sweep_of(before)] + list(before.get("earlier", [])) if before else []
            seen = [m for m in meta.get("earlier", []) if m not in held] + held
            earlier = []
            for m in seen:
                if m != sweep and m not in earlier:
                    earlier.append(m)
            self.meta[gpu] = {**sweep, "earlier": earlier} if earlier else sweep
        for (config, kernel, gpu), rows in other._rows.items():
            for batch, launch, info in rows:
                self.add(gpu, config, kernel, batch, launch, **info)

    # -- queries ---------------------------------------------------------------------------
    def lookup(self, config: str, kernel: str, gpu: str | None, rows: int) -> Launch | None:
        """The launch of the largest tabled batch <= rows (the smallest tabled batch's
        when rows is below them all), or None."""
        entry = self.entry(config, kernel, gpu, rows)
        return entry[1] if entry else None

    def launch(self, plan, kernel: str, gpu: str | None, rows: int,
               config: str | None = None) -> Launch | None:
        """The launch the runtime takes for `rows` rows from the entries of `config`
        (default: the plan's): lookup's entry, and below every tabled batch a decode
        entry's split raised for the fewer rows (Launch.for_fewer_rows); None if untabled."""
        found = self.served(plan, kernel, gpu, rows, config)
        return None if found is None else found[1]

    def served(self, plan, kernel: str, gpu: str | None, rows: int,
               config: str | None = None) -> tuple[int, Launch] | None:
        """(tabled batch, `launch`'s launch), or None: the batch ranks GPUs against each
        other (serving_order)."""
        entry = self.entry(config or plan.name, kernel, gpu, rows)
        if entry is None:
            return None
        tabled, launch = entry
        return tabled, (launch.for_fewer_rows(plan, tabled, rows) if kernel == "replay_decode" else launch)

    def entry(self, config: str, kernel: str, gpu: str | None, rows: int) -> tuple[int, Launch] | None:
        """(tabled batch, launch) of lookup's entry, or None."""
        if gpu is None:
            return None
        entries = self._rows.get((config, kernel, gpu))
        if not entries:
            return None
        i = bisect_right([b for b, _, _ in entries], rows) - 1
        batch, launch, _ = entries[max(i, 0)]
        return batch, launch

    @staticmethod
    def serving_order(found, rows: int):
        """The entries `found` [(gpu, tabled batch, ...)] of several GPUs for one launch of
        `rows` rows, given in the order a lookup tries the GPUs (the device's own name, then
        its stand-ins: stand_ins), sorted by which serves the launch: the bucket rule of
        `entry` over all of them (the largest tabled batch <= rows, else the smallest), the
        earlier GPU's at equal batches (a stable sort). So a GPU tuned at some batches
        keeps its stand-in's entries for the buckets it has none for (an H100 swept at
        batch 256 runs the H200's batch-1 and batch-512 launches there, not its batch-256
        launch with the split raised), and wins the buckets it has."""
        return sorted(found, key=lambda f: (0, -f[1]) if f[1] <= rows else (1, f[1]))

    def recorded(self, config: str, kernel: str, gpu: str | None, batch: int) -> dict | None:
        """What the sweep measured for the entry at exactly `batch` (its info: ms, plan_ms),
        or None: the claim a later timing of the same launch can be held to (STALE)."""
        for b, _, info in self._rows.get((config, kernel, gpu), ()):
            if b == batch:
                return info
        return None

    def configs(self, gpu: str | None = None) -> list[str]:
        """The configuration names with entries (of one GPU, when given)."""
        return sorted({c for c, _, g in self._rows if gpu is None or g == gpu})

    def gpus(self) -> list[str]:
        return sorted({g for _, _, g in self._rows} | set(self.meta))

    def stand_ins(self, gpu: str, capability: str, multiprocessors: int) -> list[str]:
        """The GPUs whose entries serve `gpu`, in the order a lookup tries them: `gpu`
        itself, then the tuned GPUs of the same compute capability (their sweeps' meta
        "capability"), the nearest in multiprocessor count first, ties by name. A lookup
        takes the entry of the nearest batch bucket among them (serving_order), so a GPU
        tuned for some configurations or batches keeps its stand-in's launches for the
        others. The same capability means the same registers and shared memory per
        multiprocessor: every launch compiles as it did where it was tuned and keeps its
        occupancy (an H100 takes the H200's, both sm_90 with 132 multiprocessors)."""
        def distance(g: str) -> int:
            sms = self.meta[g].get("multiprocessors")
            return abs(sms - multiprocessors) if isinstance(sms, int) else 1 << 30
        same = {g for _, _, g in self._rows
                if g != gpu and self.meta.get(g, {}).get("capability") == capability}
        return [gpu] + sorted(same, key=lambda g: (distance(g), g))

    def entries(self):
        """(gpu, config, kernel, batch, launch, info) for every entry, sorted."""
        for (config, kernel, gpu), rows in sorted(self._rows.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])):
            for batch, launch, info in rows:
                yield gpu, config, kernel, batch, launch, info

    def __len__(self) -> int:
        return sum(len(r) for r in self._rows.values())

    # -- files -------------------------------------------------------------------------------
    def to_json(self, variant: str) -> dict:
        gpus = {}
        for gpu in self.gpus():
            gpus[gpu] = {"meta": self.meta.get(gpu, {}), "entries": [
                {"config": c, "kernel": k, "batch": b, **launch.as_dict(), **info}
                for g, c, k, b, launch, info in self.entries() if g == gpu]}
        return {"format": FORMAT, "variant": variant, "gpus": gpus}

    def write(self, path: Path, variant: str) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(json.dumps(self.to_json(variant), indent=1) + "\n")
        tmp.replace(path)

    @classmethod
    def from_json(cls, data, source: str, variant: str | None = None) -> "TuningTable":
        table = cls(source)
        if not isinstance(data, dict):
            table._fail("top level", "must be a JSON object")
        extra = sorted(set(data) - {"format", "variant", "gpus"})
        if extra:
            table._fail("top level", f"unknown keys {extra}")
        if data.get("format") != FORMAT:
            table._fail("format", f"must be {FORMAT}, got {data.get('format')!r}")
        if variant is not None and data.get("variant") != variant:
            table._fail("variant", f"the table is for {data.get('variant')!r}, expected {variant!r}")
        gpus = data.get("gpus")
        if not isinstance(gpus, dict):
            table._fail("gpus", "must be an object mapping GPU names to {meta, entries}")
        for gpu, section in gpus.items():
            if not isinstance(section, dict) or set(section) - {"meta", "entries"}:
                table._fail(f"gpus[{gpu!r}]", "must be an object with keys 'meta' and 'entries'")
            meta = section.get("meta", {})
            if not isinstance(meta, dict):
                table._fail(f"gpus[{gpu!r}].meta", "must be an object")
            capability = meta.get("capability", "0.0")
            if not (isinstance(capability, str) and re.fullmatch(r"\d+\.\d+", capability)):
                table._fail(f"gpus[{gpu!r}].meta.capability",
                            f"must be a compute capability \"major.minor\", got {capability!r}")
            sms = meta.get("multiprocessors", 1)
            if isinstance(sms, bool) or not isinstance(sms, int) or sms < 1:
                table._fail(f"gpus[{gpu!r}].meta.multiprocessors",
                            f"must be an integer >= 1, got {sms!r}")
            table.meta[gpu] = meta
            entries = section.get("entries", [])
            if not isinstance(entries, list):
                table._fail(f"gpus[{gpu!r}].entries", "must be a list")
            seen = set()
            for i, e in enumerate(entries):
                key = f"gpus[{gpu!r}].entries[{i}]"
                table._check_entry(key, e)
                ident = (e["config"], e["kernel"], e["batch"])
                if ident in seen:
                    table._fail(key, f"duplicate entry for {'/'.join(map(str, ident))}")
                seen.add(ident)
                info = {k: e[k] for k in INFO_ORDER if k in e}
                table.add(gpu, e["config"], e["kernel"], e["batch"],
                          Launch(e["BV"], e["num_warps"], e["num_stages"], e.get("BKT"),
                                 e.get("split", 1), e.get("separate_flush", False),
                                 e.get("maxnreg"), e.get("heads", 1), e.get("fold_warps"),
                                 e.get("fold_split"), e.get("stream_first", False),
                                 e.get("read_words", False), e.get("onepass_flush", False),
                                 e.get("flush_order", 0), e.get("read_mma", False),
                                 e.get("head_launch", False), e.get("head_warps"),
                                 e.get("head_scores", False), e.get("fold_stages"),
                                 e.get("record_block", 0), e.get("fold_programs")), **info)
        return table

    @classmethod
    def read(cls, path: os.PathLike, variant: str | None = None) -> "TuningTable":
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except json.JSONDecodeError as exc:
            raise TuningError(str(path), f"line {exc.lineno}", f"not valid JSON: {exc.msg}") from None
        return cls.from_json(data, str(path), variant)

    # -- validation ----------------------------------------------------------------------------
    def _fail(self, key: str, reason: str):
        raise TuningError(self.source, key, reason)

    def _check_entry(self, key: str, e) -> None:
        if not isinstance(e, dict):
            self._fail(key, "must be an object")
        missing = sorted(ENTRY_KEYS - set(e))
        extra = sorted(set(e) - ENTRY_KEYS - OPTIONAL_KEYS - INFO_KEYS)
        if missing or extra:
            self._fail(key, f"missing keys {missing}, unknown keys {extra}")
        if not isinstance(e["config"], str) or not e["config"]:
            self._fail(key, f"'config' must be a kernel config name, got {e['config']!r}")
        if e["kernel"] not in KERNELS:
            self._fail(key, f"'kernel' must be one of {list(KERNELS)}, got {e['kernel']!r}")
        if isinstance(e["batch"], bool) or not isinstance(e["batch"], int) or e["batch"] < 1:
            self._fail(key, f"'batch' must be an integer >= 1, got {e['batch']!r}")
        if not _power_of_two(e["BV"], 1 << 16):
            self._fail(key, f"'BV' must be a power of two, got {e['BV']!r}")
        if "BKT" in e and not _power_of_two(e["BKT"], 1 << 16):
            self._fail(key, f"'BKT' must be a power of two, got {e['BKT']!r}")
        if "split" in e and not _power_of_two(e["split"], MAX_SPLIT):
            self._fail(key, f"'split' must be a power of two <= {MAX_SPLIT}, got {e['split']!r}")
        if "separate_flush" in e and (e["separate_flush"] is not True or e["kernel"] != "replay_decode"):
            self._fail(key, "'separate_flush' is true or absent, and only for replay_decode, got "
                            f"{e['separate_flush']!r} for {e['kernel']!r}")
        for flag in ("stream_first", "read_words", "onepass_flush", "read_mma", "head_scores"):
            if flag in e and (e[flag] is not True or e["kernel"] != "replay_decode"):
                self._fail(key, f"'{flag}' is true or absent, and only for replay_decode, got "
                                f"{e[flag]!r} for {e['kernel']!r}")
        if "head_launch" in e and (e["head_launch"] is not True
                                   or e["kernel"] not in ("verify", "verify_fold")):
            self._fail(key, "'head_launch' is true or absent, and only for verify and verify_fold, "
                            f"got {e['head_launch']!r} for {e['kernel']!r}")
        if "head_warps" in e and (not _power_of_two(e["head_warps"], MAX_WARPS)
                                  or e.get("head_launch") is not True):
            self._fail(key, f"'head_warps' is a power of two <= {MAX_WARPS}, and only with "
                            f"head_launch, got {e['head_warps']!r}")
        r = e.get("maxnreg")
        if "maxnreg" in e and (isinstance(r, bool) or not isinstance(r, int) or not 16 <= r <= 255):
            self._fail(key, f"'maxnreg' must be an integer register count in 16..255, got {r!r}")
        h = e.get("heads")
        if "heads" in e and (isinstance(h, bool) or not isinstance(h, int) or h < 1
                             or e["kernel"] not in ("verify", "verify_fold", "replay_decode")):
            self._fail(key, f"'heads' is a positive integer, and only for verify or replay_decode, "
                            f"got {h!r} for {e['kernel']!r}")
        if "fold_warps" in e and (not _power_of_two(e["fold_warps"], MAX_WARPS)
                                  or e["kernel"] != "replay_decode"):
            self._fail(key, f"'fold_warps' is a power of two <= {MAX_WARPS}, and only for "
                            f"replay_decode, got {e['fold_warps']!r} for {e['kernel']!r}")
        if "fold_split" in e and (not _power_of_two(e["fold_split"], MAX_FOLD_SPLIT)
                                  or e["kernel"] != "replay_decode"):
            self._fail(key, f"'fold_split' is a power of two <= {MAX_FOLD_SPLIT}, and only for "
                            f"replay_decode, got {e['fold_split']!r} for {e['kernel']!r}")
        f = e.get("fold_stages")
        if "fold_stages" in e and (isinstance(f, bool) or not isinstance(f, int)
                                   or not 1 <= f <= MAX_STAGES or e["kernel"] != "replay_decode"):
            self._fail(key, f"'fold_stages' is an integer in 1..{MAX_STAGES}, and only for "
                            f"replay_decode, got {f!r} for {e['kernel']!r}")
        if "record_block" in e and (not _power_of_two(e["record_block"], MAX_RECORD_BLOCK)
                                    or e["kernel"] != "replay_decode"):
            self._fail(key, f"'record_block' is a power of two <= {MAX_RECORD_BLOCK} (absent: "
                            f"whole-ring tiles), and only for replay_decode, got "
                            f"{e['record_block']!r} for {e['kernel']!r}")
        g = e.get("fold_programs")
        if "fold_programs" in e and (isinstance(g, bool) or not isinstance(g, int)
                                     or not 1 <= g <= MAX_FOLD_PROGRAMS or e["kernel"] != "replay_decode"):
            self._fail(key, f"'fold_programs' is an integer in 1..{MAX_FOLD_PROGRAMS} (programs per "
                            f"multiprocessor), and only for replay_decode, got {g!r} for {e['kernel']!r}")
        if "flush_order" in e and (not _power_of_two(e["flush_order"], MAX_FLUSH_ORDER)
                                   or e["kernel"] != "replay_decode"):
            self._fail(key, f"'flush_order' is a power of two <= {MAX_FLUSH_ORDER} (absent: grid "
                            f"order), and only for replay_decode, got {e['flush_order']!r} for "
                            f"{e['kernel']!r}")
        if not _power_of_two(e["num_warps"], MAX_WARPS):
            self._fail(key, f"'num_warps' must be a power of two <= {MAX_WARPS}, got {e['num_warps']!r}")
        s = e["num_stages"]
        if isinstance(s, bool) or not isinstance(s, int) or not 1 <= s <= MAX_STAGES:
            self._fail(key, f"'num_stages' must be an integer in 1..{MAX_STAGES}, got {s!r}")
        for k in INFO_KEYS & set(e):
            if isinstance(e[k], bool) or not isinstance(e[k], (int, float)) or not e[k] > 0:
                self._fail(key, f"'{k}' must be a positive number of milliseconds, got {e[k]!r}")


_CACHE: dict[Path, tuple[float, TuningTable]] = {}


def table_for(folder: Path, variant: str) -> TuningTable | None:
    """The committed table of a variant (`folder/tuning.json`), re-read when it changes;
    None when there is none."""
    path = folder / TUNING_FILE
    try:
        mtime = path.stat().st_mtime
    except FileNotFoundError:
        return None
    cached = _CACHE.get(path)
    if cached is None or cached[0] != mtime:
        cached = (mtime, TuningTable.read(path, variant))
        _CACHE[path] = cached
    return cached[1]


def bucket(rows: int, buckets=BATCH_BUCKETS) -> int:
    """The bucket `rows` falls in: the largest bucket <= rows (the smallest if none)."""
    i = bisect_right(list(buckets), rows) - 1
    return buckets[max(i, 0)]
