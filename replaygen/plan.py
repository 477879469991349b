"""Plan the kernels of one configuration: every decision the templates need.

Input: a `Derivation` and a `KernelConfig` (dims, buffer length, precisions).
Output: a `KernelPlan`: identity (name), constants, block sizes, the tensors each
kernel takes, and the variant math printed to Triton (`Statement`s) for these contexts:
the current token at head level (scalar and key-axis values, and the whole-axis
reductions), the current token per [BKT] chunk of the key axis (the decode kernel
streams the checkpoint in [DBV, BKT] chunks), the current token per value tile, and the
ring records as tiles ([BL], [BL, BK], [BL, BKT] or [BL, BV]).
Invariants: templates do no arithmetic and make no variant decisions; every symbol a
printed statement uses is defined earlier in the same context; dims are substituted
as numbers (the kernels are specialised per configuration).
"""
from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass

import sympy

from .derive import (CHECKPOINT_WEIGHT, DRAFT_WEIGHT, PROBE_CHECKPOINT_FACTOR,
                     REPLAY_WEIGHT, WINDOW_KEY_FACTOR, G_j, G_n, G_t,
                     Derivation)
from .errors import ConfigError
from .printer import print_triton
from .formulas import sumsq
from .spec import DTYPES, Spec

TL_DTYPES = {"fp32": "tl.float32", "bf16": "tl.bfloat16", "fp16": "tl.float16"}
DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}
QUANTIZED = ("fp8", "nvfp4")            # formats with scales (replaygen/formats.py)
STATE_DTYPES = DTYPES + QUANTIZED       # checkpoint formats
FP8_SCALES = ("row", "col", "tile")     # fp8 scale granularity: per state row, per column
                                        # of a value tile, per value tile
NVFP4_BLOCK = 16                        # K elements per NVFP4 e4m3 scale
# keys per 8-byte word of a read copy (formats.read_words_dot)
READ_WORD_KEYS = {"nvfp4": 16, "fp8": 8}


@dataclass(frozen=True)
class KernelConfig:
    """Everything that makes one generated module distinct."""

    variant: str
    dims: tuple[tuple[str, int], ...]   # model-native names, in the spec's role order
    buffer_length: int
    state_dtype: str
    record_dtype: str
    block_v: int | None = None      # value tile; None: chosen by the plan
    num_warps: int | None = None    # None: chosen by the plan
    stochastic: bool = False        # fp16/bf16 checkpoint stored with stochastic rounding
    read_dtype: str | None = None   # low-precision read copy: None, "fp8" or "nvfp4"
    fp8_scale: str | None = None    # scale granularity of an fp8 state or read copy
    record_dtypes: tuple[tuple[str, str], ...] = ()   # per-field record precisions
                                                      # that differ from record_dtype
    max_drafts: int = 1             # T_MAX: most draft tokens one verify call may append
    gate_records: str = "step"      # what the gate record holds: "step" (the token's own
                                    # log decay g_j) or "cumulative" (G_j, the sum since the
                                    # checkpoint; see GATE_RECORDS)
    decode_structure: str | None = None   # force the decode kernel's structure ("kchunks"
                                          # or "vtiles"); None: the plan's choice
    verify_folds: bool = False      # a verify folds the rows whose drafts would pass L
                                    # committed records (make_plan, VERIFY_FOLDS)

    @property
    def dim_map(self) -> dict[str, int]:
        return dict(self.dims)

    def load_options(self) -> dict:
        """The `replaygen.load` arguments that rebuild this configuration (compile
        workers, tests that walk the committed configurations)."""
        return dict(L=self.buffer_length, state_dtype=self.state_dtype,
                    record_dtype=self.record_dtype, block_v=self.block_v,
                    num_warps=self.num_warps, stochastic=self.stochastic,
                    read_dtype=self.read_dtype, fp8_scale=self.fp8_scale,
                    record_dtypes=dict(self.record_dtypes) or None,
                    max_drafts=self.max_drafts, gate_records=self.gate_records,
                    decode_structure=self.decode_structure, verify_folds=self.verify_folds,
                    **self.dim_map)

    @property
    def name(self) -> str:
        """The one readable identity: module file name, cache key and registry key."""
        dims = "_".join(f"{k}{v}" for k, v in self.dims)
        tuned = ""
        if self.block_v is not None or self.num_warps is not None:
            tuned = f"__bv{self.block_v or 'auto'}_w{self.num_warps or 'auto'}"
        state = f"__state_{self.state_dtype}{'sr' if self.stochastic else ''}"
        if self.state_dtype == "fp8":
            state += self.fp8_scale
        if self.read_dtype is not None:
            state += f"__read_{self.read_dtype}{self.fp8_scale if self.read_dtype == 'fp8' else ''}"
        rec = "".join(f"_{f}-{dt}" for f, dt in self.record_dtypes)
        drafts = f"__T{self.max_drafts}" if self.max_drafts > 1 else ""
        gates = "__gcum" if self.gate_records == "cumulative" else ""
        forced = f"__{self.decode_structure}" if self.decode_structure else ""
        drafts += "vf" if self.verify_folds else ""
        return (f"{self.variant}__{dims}__L{self.buffer_length}{drafts}"
                f"{state}__rec_{self.record_dtype}{rec}{gates}{forced}{tuned}")

    def record_dtype_of(self, field: str) -> str:
        return dict(self.record_dtypes).get(field, self.record_dtype)


def make_config(spec: Spec, dims: dict[str, int], buffer_length: int | None = None,
                state_dtype: str | None = None, record_dtype: str | None = None,
                block_v: int | None = None, num_warps: int | None = None, *,
                stochastic: bool = False, read_dtype: str | None = None,
                fp8_scale: str | None = None,
                record_dtypes: dict[str, str] | None = None,
                max_drafts: int | None = None, gate_records: str | None = None,
                decode_structure: str | None = None, verify_folds: bool = False) -> KernelConfig:
    dims = spec.check_dims(dims)
    L = spec.defaults.buffer_length if buffer_length is None else buffer_length
    if isinstance(L, bool) or not isinstance(L, int) or L < 1:
        raise ConfigError(f"buffer_length must be an integer >= 1, got {L!r}")
    sdt = state_dtype or spec.defaults.state_dtypes[0]
    rdt = record_dtype or spec.defaults.record_dtype
    if sdt not in STATE_DTYPES:
        raise ConfigError(f"state_dtype must be one of {list(STATE_DTYPES)}, got {sdt!r}")
    if rdt not in DTYPES:
        raise ConfigError(f"record_dtype must be one of {list(DTYPES)}, got {rdt!r}")
    if stochastic not in (False, True):
        raise ConfigError(f"stochastic must be True or False, got {stochastic!r}")
    if stochastic and sdt not in ("fp16", "bf16"):
        raise ConfigError(f"stochastic rounding applies to an fp16 or bf16 checkpoint, not {sdt!r}")
    if read_dtype is not None and read_dtype not in QUANTIZED:
        raise ConfigError(f"read_dtype must be None or one of {list(QUANTIZED)}, got {read_dtype!r}")
    if read_dtype is not None and sdt in QUANTIZED:
        raise ConfigError(f"a read copy needs a high-precision checkpoint (fp32, bf16 or fp16), "
                          f"not {sdt!r}: a quantised checkpoint is read directly")
    uses_fp8 = "fp8" in (sdt, read_dtype)
    if fp8_scale is not None and fp8_scale not in FP8_SCALES:
        raise ConfigError(f"fp8_scale must be one of {list(FP8_SCALES)}, got {fp8_scale!r}")
    if fp8_scale is not None and not uses_fp8:
        raise ConfigError("fp8_scale applies only to an fp8 checkpoint or read copy")
    fp8_scale = (fp8_scale or FP8_SCALES[0]) if uses_fp8 else None
    gates = _gate_records(spec, gate_records)
    record_dtypes = dict(record_dtypes or {})
    if gates == "cumulative":
        # A cumulative log decay G grows to L·|g| while the replay weights need
        # G_t - G_j to the precision of one step's g: a bf16 G (8 bits) would lose it
        # (|G| = 20: ulp 0.125, up to 6% in a weight when rounded to nearest), so the gate
        # record is fp32 unless the caller chooses otherwise (tests/test_precision.py
        # measures both).
        record_dtypes.setdefault(str(spec.transition.gate), "fp32")
    if decode_structure is not None and decode_structure not in DECODE_STRUCTURES:
        raise ConfigError(f"decode_structure must be None or one of {sorted(DECODE_STRUCTURES)}, "
                          f"got {decode_structure!r}")
    overrides = []   # field names are checked by make_plan, which knows the record
    for name, dt in sorted(record_dtypes.items()):
        if dt not in DTYPES:
            raise ConfigError(f"record_dtypes[{name!r}] must be one of {list(DTYPES)}, got {dt!r}")
        if dt != rdt:
            overrides.append((name, dt))
    for what, v in (("block_v", block_v), ("num_warps", num_warps)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1 or v & (v - 1)):
            raise ConfigError(f"{what} must be a power of two, got {v!r}")
    T = 1 if max_drafts is None else max_drafts
    if isinstance(T, bool) or not isinstance(T, int) or T < 1:
        raise ConfigError(f"max_drafts must be an integer >= 1, got {max_drafts!r}")
    if verify_folds not in (False, True):
        raise ConfigError(f"verify_folds must be True or False, got {verify_folds!r}")
    if verify_folds:
        why = ("max_drafts >= 2" if T < 2 else f"max_drafts <= L ({L})" if T > L
               else "L <= 255 (the drafted word holds the drafts' ring row in 8 bits)"
               if L > 255 else "a plain fp32/bf16/fp16 checkpoint" if sdt in QUANTIZED
               else "no read copy" if read_dtype is not None else "")
        if why:
            raise ConfigError(f"verify_folds=True needs {why}: a verify folds only a plain "
                              f"checkpoint, and a commit after it must stay within L records")
    return KernelConfig(spec.name, tuple((d, dims[d]) for d in spec.dim_names), L, sdt, rdt,
                        block_v, num_warps, stochastic, read_dtype, fp8_scale, tuple(overrides), T,
                        gates, decode_structure, verify_folds)


GATE_RECORDS = ("step", "cumulative")


def _gate_records(spec: Spec, choice: str | None) -> str:
    """What the gate record holds. "cumulative" (G_j = g_1 + ... + g_j since the
    checkpoint; the current token's G_t = G_(n-1) + g_t from ring row n - 1) turns every
    replay weight exp(G_t - G_j) into one subtraction, with no scan over the records: the
    default for per-channel decays, whose scan is a [BL, K] tile per head (per key chunk
    in the key-chunk decode; bench/NOTES.md, version 6). Per-step bf16 or fp16 gates
    would move 3.0% fewer bytes in KDA's non-flush step, but its decode ran 0.985x as
    fast amortised at best (H100, Kimi-Linear 48B, batch 256; session 65). Scalar decays keep "step":
    their [BL] scan is cheap, and a gate rebuilt from other fields (Mamba-2's g from Δ)
    has no record of its own to hold the sum. "cumulative" needs the gate to be a
    record field itself (a token quantity named by transition.gate)."""
    t = spec.transition
    if choice is None:
        choice = "cumulative" if t.decay == "channel" else "step"
    if choice not in GATE_RECORDS:
        raise ConfigError(f"gate_records must be None or one of {list(GATE_RECORDS)}, got {choice!r}")
    if choice == "cumulative":
        q = spec.quantities.get(str(t.gate)) if isinstance(t.gate, sympy.Symbol) else None
        if t.decay != "channel" or q is None or not q.token:
            raise ConfigError(f"{spec.name}: gate_records='cumulative' needs a per-channel decay "
                              f"whose gate is a token quantity (transition.gate = {t.gate!r}, "
                              f"decay = {t.decay!r})")
    return choice


@dataclass(frozen=True)
class StateFormat:
    """How one copy of the state (the checkpoint, or the read copy) is stored.

    kind "plain": `dtype` elements (fp32, bf16, fp16), rounded to nearest or, with
    `stochastic`, stochastically; "fp8": e4m3 values with fp32 scales per `scale`
    (row, col or tile); "nvfp4": packed e2m1 values, e4m3 scales per 16 K elements and
    an fp32 scale per value tile. `prefix` names its kernel arguments ({prefix}_ptr,
    {prefix}_scale_ptr, {prefix}_bscale_ptr); `scale_bcast` broadcasts an fp8 scale
    vector against a [BV, BK] tile and `amax` reduces |x| to that scale's shape.
    """

    prefix: str
    kind: str
    dtype: str
    stochastic: bool = False
    scale: str | None = None
    scale_bcast: str = ""
    amax: str = ""
    # keys per block of a blocked layout (0: rows of K keys). A read copy that a key-chunk
    # decode reads, with K a multiple of 32, stores each value head's per-row data as
    # [units / B, V, B] (units_per_block): a chunk of rows by 32 keys is one contiguous
    # run (read_format)
    key_block: int = 0

    def units_per_block(self, unit: str) -> int:
        """Units of a row per key block, by the constant that counts them per row: "K"
        elements, "KW" 8-byte words (8 FP8 or 16 NVFP4 keys), "KH" NVFP4 packed bytes
        (2 keys), "KS" NVFP4 block scales (NVFP4_BLOCK keys)."""
        keys = {"K": 1, "KW": READ_WORD_KEYS[self.kind], "KH": 2, "KS": NVFP4_BLOCK}[unit]
        return self.key_block // keys

    @property
    def line_elems(self) -> int:
        """Elements of a plain copy in one 128-byte cache line (the L2 prefetch of a
        value-tile decode that streams first touches one element per line)."""
        return 128 // {"fp32": 4, "fp16": 2, "bf16": 2}[self.dtype]


FP8_REDUCE = {   # granularity -> (|x| reduced to the scale's shape, broadcast back)
    "row": ("tl.max(tl.abs(x_q), axis=1)", "[:, None]"),
    "col": ("tl.max(tl.abs(x_q), axis=0)", "[None, :]"),
    "tile": ("tl.max(tl.max(tl.abs(x_q), axis=1), axis=0)", ""),
}


READ_KEY_BLOCK = 32   # keys per block of a blocked read copy (StateFormat.key_block)


def read_format(read: StateFormat, decode_template: str, K: int) -> StateFormat:
    """The read copy's layout, once the decode's structure is chosen: an FP8 copy that the
    key-chunk decode reads, of rows that split into whole 32-key blocks, is stored blocked
    (StateFormat.key_block), so that each of the decode's [rows, 32-key] chunks is one
    contiguous run, not a 32-byte visit to every 128-byte row. H100, the H200's tables,
    batch 256, L = 16 (session 41, call 1): non-flush 1.12x (GDN 4B and 122B) and 1.18x
    (Mamba-2 Nano), amortised 1.08-1.13x. A value-tile decode reads whole rows, and
    stays row-major: KDA's blocked copy ran 0.97x there. NVFP4 copies stay in rows: blocked
    (bench/proto/s41_nvfp4_key_blocks.diff; H100, session 41 call 6) GDN 4B and Mamba-2
    Super ran 1.09x non-flush and 1.05x amortised, Mamba-2 Nano 1.0x, but GDN 122B at its
    plan launch (no tuned entry) 0.85x and 0.89x."""
    if read.kind == "fp8" and decode_template == KEY_CHUNKS and K % READ_KEY_BLOCK == 0:
        return dataclasses.replace(read, key_block=READ_KEY_BLOCK)
    return read


def state_format(prefix: str, dtype: str, stochastic: bool, fp8_scale: str | None) -> StateFormat:
    if dtype == "fp8":
        amax, bcast = FP8_REDUCE[fp8_scale]
        return StateFormat(prefix, "fp8", dtype, scale=fp8_scale, scale_bcast=bcast, amax=amax)
    if dtype == "nvfp4":
        return StateFormat(prefix, "nvfp4", dtype, scale="tile")
    return StateFormat(prefix, "plain", dtype, stochastic)


@dataclass(frozen=True)
class Statement:
    target: str
    expr: str


@dataclass(frozen=True)
class TensorArg:
    """A per-token input or a parameter, as a kernel argument."""

    name: str
    head: str       # "key" | "value" | "none"
    axis: str       # "scalar" | "K" | "V"
    optional: bool
    per_token: bool


@dataclass(frozen=True)
class ProbeFactor:
    """One probe role of the key-chunked verify, split by sympy into a factor free of the
    key axis (reductions, per-token scalars, constants) times one raw key-axis input:
    the role's chunk value is `factor` * `tensor`[chunk]. The checkpoint stream then
    multiplies raw input rows and the factors scale its result's columns once."""

    role: str       # "query" | "key"
    tensor: str     # the per-token key-axis input read raw
    head: str       # its head kind ("key" | "value" | "none")
    factor: str     # printed over the drafts' [BT] vectors (red_*, b_*)
    value_level: bool = False   # the factor reads a value head's quantity


@dataclass(frozen=True)
class RingField:
    name: str
    head: str
    axis: str
    width: int      # elements per record entry: 1, K or V
    dtype: str


@dataclass(frozen=True)
class KernelPlan:
    config: KernelConfig
    spec_name: str
    spec_hash: str
    H: int
    HV: int
    K: int
    V: int
    L: int
    GROUP: int
    BK: int
    BV: int
    BL: int
    NV: int
    T_MAX: int            # most drafts per verify call
    RING: int             # ring rows: CAP + T_MAX (the capacity rule, see make_plan)
    CAP: int              # the most committed records any operation leaves (L or L - 1)
    VERIFY_FOLDS: bool    # a verify first folds a row whose drafts would pass CAP (make_plan)
    BT: int               # verify probe rows: T_MAX queries (+ T_MAX keys for a delta rule)
    BLF: int              # record tile rows of a fold (up to RING records)
    BVW: int              # the value axis padded to a power of two (a commit's record move: one tile)
    fold_dot: bool        # fold records with tl.dot (every tile dim >= 16) or a broadcast sum
    dot_precision: str    # tl.dot input precision of the fold
    solve_by_products: bool  # a delta rule's verify takes (I + A)^-1 by products (else row by row)
    solve_precision: str  # ... of the verify's [BT, BT] solve products
    solve_squarings: int  # squarings of A in the verify's (I + A)^-1 = (I - A)(I + A^2)...
    num_warps: int
    decay: str
    delta_rule: bool
    inputs: tuple[TensorArg, ...]
    params: tuple[TensorArg, ...]
    ring: tuple[RingField, ...]
    optional_flags: tuple[str, ...]
    head_code: tuple[Statement, ...]      # current token: scalar / key-axis values
    key_head_code: tuple[Statement, ...]  # ... q and k alone (empty where a value head's quantity enters)
    tile_code: tuple[Statement, ...]      # current token: value-axis values, per V tile
    record_head_code: tuple[Statement, ...]   # records as tiles: rec_key, rec_gate
    record_tile_code: tuple[Statement, ...]   # ... and rec_value, per value tile
    # decode kernel: the checkpoint streamed in [DBV, BKT] chunks of the key axis
    DBV: int              # decode value tile (usually the whole value dim: one pass)
    DNV: int
    BKT: int              # key-axis chunk
    NK: int
    decode_fold_dot: bool   # the decode kernel's flush folds a [DBV, BL] x [BL, BKT] dot
    NSPLIT: int           # programs per (row, value head) of the key-chunk decode (tuned: small batches)
    HPP: int              # value heads per key-chunked verify or decode program, of one key group (tuned)
    STREAM_STAGES: int    # software-pipeline depth of the key-chunk decode's chunk streams (see below)
    FLUSH_STAGES: int     # ... and of its fused flush's pass over the checkpoint (launch_constants)
    FUSED_FLUSH: bool     # a decode row whose ring fills folds in the decode launch (see below)
    STREAM_FIRST: bool    # the decode's stream goes before its head-level work (streams_first)
    READ_WORDS: bool      # the value-tile decode reads its read copy in 8-byte words (launch_constants)
    READ_MMA: bool        # ... or its FP8 read copy's tiles on tensor cores (launch_constants)
    HEAD_SCORES: bool     # the key-chunk decode takes the records' scores once per program (scores_at_head)
    RECORD_BLOCK: int     # 0: the records' terms over the whole ring; b: over the committed ones, b rows at a time (record_blocks)
    ONEPASS_FLUSH: bool   # the key-chunk decode folds while it streams; the token opens the window (onepass_flushes)
    FLUSH_ORDER: int      # 0: grid order; s: flushing rows' programs every s-th from the launch's start (launch_order)
    SPLIT_HEAD: int       # the value-tile verify in one launch (0) or as a head launch (1) and a stream launch (2)
    WS: int               # ... the fp32 floats per (row, value head) the head launch leaves the stream launch
    ROWS_P2: int          # ... a power of two >= the launch's rows (set per launch by the runtime)
    fold_split: int       # otherwise: programs per queued block of the fold launch (see below)
    decode_warps: int
    decode_template: str  # the decode kernel's structure: key chunks or value tiles
    channel_gate: bool    # per-key-channel decay: decays are [BKT] per chunk, not scalars
    gate_field: str       # ring field holding cumulative log decays G_j ("": per-step gates)
    chunk_tensors: tuple[TensorArg, ...]    # key-axis inputs/params loaded per chunk
    chunk_code: tuple[Statement, ...]       # current token per key chunk: c_*, ct_*
    record_scalar_code: tuple[Statement, ...]  # records: scalar gate rows [BL] (head level)
    record_chunk_code: tuple[Statement, ...]   # records per key chunk: rec_key (, rec_gate)
    gate_rows: str        # broadcasts a record gate quantity to [BL, BK] ("[:, None]" if scalar)
    gate_mask: str        # broadcasts the row mask to the record gate's shape
    gate_cols: str        # broadcasts a checkpoint decay to [BV, BK] ("" if scalar)
    replay_weight: str
    checkpoint_weight: str
    skip_expr: str
    gate_expr: str
    gate_condition: str                   # optional inputs the output gate needs
    write_value: str                      # ring field holding the written value (delta: u)
    # speculative verification: drafts as [BT] / [BT, BK] tiles
    verify_warps: int
    verify_template: str  # the verify kernel's structure: key chunks or value tiles
    verify_dbv: int       # key-chunked verify: value tile (its key chunk is BKT)
    reductions: tuple[str, ...]           # head-level whole-axis reductions the chunk code reads
    verify_scalars: tuple[str, ...]       # per-token scalars a key-chunked verify carries per draft
    draft_code: tuple[Statement, ...]     # key-chunked verify: the drafts' scalars as [BT] vectors
    reduction_code: tuple[Statement, ...]  # ... and their reductions from [BT, BK] tiles
    draft_key_code: tuple[Statement, ...]  # ... and their key-axis values as [BT, BK] tiles
    probe_factors: tuple[ProbeFactor, ...]  # ... and each probe role as factor x raw input
                                            # (empty: some role does not split)
    score_factors: tuple[ProbeFactor, ...]  # (query, key), each role split so: the scores
                                            # S_c, S_w from raw rows (empty: one does not)
    draft_scalars: tuple[str, ...]        # per-token scalars the value-tile code reads
    gate_tile: str                        # shape of the drafts' cumulative gates
    draft_weight: str                     # exp(G_d - G_n): decay from the committed end n to draft i
    draft_ck_weight: str                  # exp(G_d): decay from the checkpoint to draft i
    pair_weight: str                      # exp(min(G_d, G_c) - G_c): decay from draft c to each probe
    probe_checkpoint_factor: str          # exp(G_n): draft_ck_weight over draft_weight (per channel)
    window_key_factor: str                # exp(G_n - G_d): the window's key factor (times the probes'
                                          # draft_weight: the pair's decay)
    window_span: float                    # the most log decay the drafts may span for that split
    # the value-tile verify's FOLDING launch with its drafts all at once (rows of [BT, BK]
    # tiles, as the key-chunked verify's) where that measured faster: per-channel decays
    # without a delta rule (GLA)
    fold_tile_head: bool
    draft_scalar_code: tuple[Statement, ...]  # ... the drafts' scalars as [BT] vectors
    draft_tile_code: tuple[Statement, ...]    # ... their key-axis values as [BT, BK] tiles (ht_<role>)
    draft_gate: str                       # ... each draft's log decay ([BT] or [BT, BK])
    # the value-tile verify's launches (plain and folding) with a delta rule's drafts as
    # probe rows (one raw input tile: queries at rows i, keys at rows T_MAX + i) where the
    # roles split so
    probe_rows_head: bool
    probe_row_code: tuple[Statement, ...]      # ... each row's factor: fac_query, fac_key ([BT])
    probe_reduction_code: tuple[Statement, ...]  # ... the reductions the other tiles read
    probe_tile_code: tuple[Statement, ...]     # ... the keys, gates and key records (h_, ht_)
    probe_gate_tensors: tuple[TensorArg, ...]  # ... their inputs: at every probe row
    probe_key_tensors: tuple[TensorArg, ...]   # ... at the drafts' own rows
    state_dtype: str
    record_dtype: str
    ckpt: StateFormat                     # the checkpoint: carries the recurrence
    read: StateFormat | None              # the read copy non-flush steps read, if any
    KH: int               # bytes of a packed NVFP4 row (ceil(K / 2))
    KS: int               # NVFP4 block scales per row (ceil(K / 16))
    NB: int               # NVFP4 blocks per [BV, BK] tile row (BK / min(16, BK))
    # keys per 8-byte word of the read copy whose products the key-chunk decode's
    # non-flush step takes word by word (formats.read_words_dot): 16 for
    # NVFP4, 8 for FP8, when K is a multiple (rows of whole words); 0: per element in fp32
    read_word_keys: int = 0

    @property
    def stream(self) -> StateFormat:
        """The copy a non-flush step reads."""
        return self.read or self.ckpt

    @property
    def onepass_flushes(self) -> bool:
        """Whether a launch of this plan's decode may fold in one pass (onepass_flushes)."""
        return onepass_flushes(self)

    @property
    def scores_at_head(self) -> bool:
        """Whether a launch of this plan's decode may take its records' scores at the head
        (scores_at_head)."""
        return scores_at_head(self)

    @property
    def record_blocks(self) -> bool:
        """Whether a launch of this plan's decode may walk its records in blocks
        (record_blocks)."""
        return record_blocks(self)

    @property
    def record_block_fields(self) -> tuple[str, ...]:
        """The ring fields the records' key and value code reads (plan.record_chunk_code,
        plan.record_tile_code): what a record block loads (replay_decode_record_block)."""
        read = set().union(*(_names_read(s.expr) for s in self.record_chunk_code + self.record_tile_code))
        return tuple(f.name for f in self.ring if f"r_{f.name}" in read)

    @property
    def key_head_inputs(self) -> tuple[TensorArg, ...]:
        """The inputs and parameters of the key heads or of no head (what key_head_code
        may read)."""
        return tuple(x for x in self.inputs + self.params if x.head != "value")

    @property
    def decode_shares_keys(self) -> bool:
        """Whether a decode program may serve several value heads of one key group
        (decode_shares_keys)."""
        return decode_shares_keys(self)

    @property
    def formats(self) -> tuple[StateFormat, ...]:
        return (self.ckpt,) + ((self.read,) if self.read else ())

    @property
    def vtile_read_words(self) -> bool:
        """Whether the value-tile decode may read the read copy in 8-byte words
        (Launch.read_words): rows of whole words whose scales factor out of a row's key
        sum (FP8 row or tile scales; NVFP4's block scale is one per word), over the whole
        key block (K a power of two, so BK = K)."""
        return bool(self.read_word_keys and self.read.scale != "col" and self.BK == self.K)

    @property
    def vtile_read_mma(self) -> bool:
        """Whether the value-tile decode may take its non-flush products from an FP8 read
        copy on tensor cores (Launch.read_mma, formats.mma_probe_operand): e4m3 tiles of
        whole rows whose scales factor out of a row's key sum, as vtile_read_words, of at
        least 32 keys (one e4m3 product's depth)."""
        return self.vtile_read_words and self.read.kind == "fp8" and self.K >= 32

    @property
    def quantized(self) -> StateFormat | None:
        """The copy load_state fills by quantising (a quantised checkpoint or the read copy)."""
        return next((f for f in self.formats if f.kind != "plain"), None)

    @property
    def uses_nvfp4(self) -> bool:
        return any(f.kind == "nvfp4" for f in self.formats)

    @property
    def name(self) -> str:
        return self.config.name


def _next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _pick_block_v(V: int, BK: int) -> int:
    """The value tile: 16 rows, the smallest tile tl.dot takes (the fold needs it), or
    the whole value dim padded to a power of two when it is smaller. The H200 sweeps of
    2026-11-29 (bench/results/) found the smallest tiles fastest for every real geometry:
    each program streams its head's checkpoint tile by tile with the next load in flight,
    and small tiles keep registers low and many programs resident."""
    return 16 if V >= 16 and BK >= 16 else _next_pow2(V)


def _pick_decode_tiles(V: int, BK: int) -> tuple[int, int]:
    """The key-chunked decode kernel's [DBV, BKT] checkpoint chunk: 32 key columns by 64
    value rows when 64 divides V, else the whole value dim padded (at most 128). H200,
    2026-11-29 (bench/results/proto-kchunk-*.json, sweep-kchunk-*.json): [64, 32] and
    [128, 32] chunks were the fastest of 9 shapes (16 rows or 128 columns the slowest);
    [64, 32] beat [128, 32] by 4% for GDN (V = 128) but lost 48% for Mamba-2 with
    V = 80, whose second 64-row pass is mostly masked."""
    return (64 if V % 64 == 0 else min(_next_pow2(V), 128)), min(BK, 32)


def _read_word_keys(read: StateFormat | None, K: int) -> int:
    """Keys per 8-byte word of a read copy the key-chunk decode multiplies word by word
    (KernelPlan.read_word_keys), or 0 when its rows are not whole words."""
    keys = READ_WORD_KEYS.get(read.kind) if read else None
    return keys if keys and K % keys == 0 else 0


# The key-chunk decode's fused flush pass over the checkpoint is pipelined at most
# MAX_FLUSH_STAGES deep, and no deeper than the launch's stream: against a plain loop (a
# round trip per chunk) 2 stages took GDN 4B [64, 32]/w1/s3 from 0.1715 to 0.1688 ms
# amortised (226 -> 210 registers) where 3 lost (0.1729), and a 1-stage stream (Mamba-2
# Nano [128, 32]/w2/s1) lost 5% with 2 (H200, session 13).
MAX_FLUSH_STAGES = 2
DEFAULT_STREAM_STAGES = 3   # the plan's own launch: Triton's default depth (make_plan)
# launch_order.flush_first holds one flag per row in a program's registers (1024 rows: 32
# per thread at one warp, in the prologue only); a larger launch keeps grid order
MAX_ORDERED_ROWS = 1024
# ... and its epoch word counts a launch's programs in 24 bits (rows x HV x split)
MAX_ORDERED_PROGRAMS = (1 << 24) - 1


def flush_stages(stream_stages: int) -> int:
    """FLUSH_STAGES of a key-chunk decode whose stream is `stream_stages` deep."""
    return min(stream_stages, MAX_FLUSH_STAGES)


KEY_CHUNKS = "replay_decode_kchunks.py.j2"
VALUE_TILES = "replay_decode_vtiles.py.j2"
VERIFY_KEY_CHUNKS = "verify_kchunks.py.j2"
VERIFY_VALUE_TILES = "verify.py.j2"
DECODE_STRUCTURES = {"kchunks": KEY_CHUNKS, "vtiles": VALUE_TILES}


def _pick_decode_template(channel_gate: bool, cumulative: bool, ckpt: StateFormat,
                          read: StateFormat | None, forced: str | None) -> str:
    """Structure of the decode kernel, chosen from H200 measurements (batch 256, L = 16,
    amortised; bench/results/session3-2026-11-29/).

    * Key chunks ([DBV] accumulators, one layout) for scalar decays with a plain
      round-to-nearest checkpoint and no read copy or an FP8 row/tile-scale read copy
      (the scale factors out of the key sum): GDN fp32 0.194 ms vs 0.251 in value tiles
      (version 6), GDN FP8 read 0.212 vs 0.253, Mamba-2 FP8 read 0.418 vs 0.428.
    * Key chunks for NVFP4 read copies (with a plain fp32 or stochastically rounded
      checkpoint), whose flush then runs in a second launch (the plan's FUSED_FLUSH is
      false; the fold kernel quantises the read copy): session 7, GDN amortised 0.2237
      ms ([64, 32]/w1) vs 0.3705 in value tiles, fp16-SR + NVFP4 0.3254 vs 0.4723;
      Mamba-2 0.4288 vs 0.7181 and 0.6227 vs 0.8519. With the flush fused, key chunks
      lost (GDN 0.4936; session 3: 0.506 vs 0.365): the key-chunk flush folds, stores,
      re-reads and quantises per chunk.
    * Value tiles otherwise. Stochastic rounding without a read copy: its key-chunk flush
      draws Philox bits per chunk (fp16-SR + NVFP4 with the flush fused: 0.538 ms vs
      0.469, session 3). Per-channel decays: even with cumulative gate records (no scan per
      chunk) key chunks lost (KDA 0.261 ms vs 0.212 for cumulative records in value
      tiles, 0.230 for per-step records). Shared quantised checkpoints and FP8 column
      scales do not factor out of a chunk's key sum.
    `forced` (KernelConfig.decode_structure) overrides the choice so that both can be
    timed; key chunks need a plain checkpoint (and, for per-channel decays, no read copy
    or stochastic rounding)."""
    precise = ckpt.kind != "plain" or ckpt.stochastic or read is not None
    if channel_gate:   # (per-step gates in key chunks: a [BL, BKT] scan per chunk)
        chunkable = not precise
        preferred = False
    else:
        chunkable = ckpt.kind == "plain" and (read is None or read.kind == "nvfp4"
                                              or read.scale in ("row", "tile"))
        preferred = ckpt.kind == "plain" and (
            (not ckpt.stochastic and (read is None or (read.kind == "fp8" and read.scale in ("row", "tile"))))
            or (read is not None and read.kind == "nvfp4"))
    if forced is not None:
        if forced == "kchunks" and not chunkable:
            raise ConfigError("decode_structure='kchunks' needs a plain checkpoint (and, for "
                              "per-channel decays, no read copy or stochastic rounding; for "
                              "scalar decays no fp8 column scales)")
        return DECODE_STRUCTURES[forced]
    return KEY_CHUNKS if preferred else VALUE_TILES


def _pick_verify_template(channel_gate: bool, drafts_in_chunks: bool = True) -> str:
    """Structure of the verify kernel. Key chunks for scalar decays, as the decode: the
    value-tile verify measured 0.62 ms for GDN (Qwen3.5-4B, batch 256, T = 8) against
    0.30 ms for a conventional step (bench/results/spec-2026-11-29), latency-bound by the
    draft math before and between its [BV, K] tiles. Per-channel decays keep the value
    tiles: their [BT, BKT] cumulative gates per chunk are the scan that made the key-chunk
    decode lose for KDA and GLA. Verify reads the plain checkpoint only (never a read
    copy, never writes it), so the precision configuration does not matter here. The key
    chunks compute the drafts' head-level quantities as vectors over the drafts, store
    their key-axis record fields from the chunk values, and compute their key-level work
    once for the value heads of a program (`drafts_in_chunks`: the variant's quantities
    allow all three)."""
    return VERIFY_VALUE_TILES if channel_gate or not drafts_in_chunks else VERIFY_KEY_CHUNKS


def _pick_verify_value_tile(V: int) -> int:
    """The key-chunked verify's value tile DBV (its key chunk is the decode's BKT): the
    whole value dim (padded, at most 128), so that the drafts' key-side work (their
    chunks, the record and window scores, the solve) is done once per program, not once
    per value tile. Not measured yet: bench/spec_bench.py times alternatives."""
    return min(_next_pow2(V), 128)


def _pick_verify_chunk_warps(DBV: int, BKT: int) -> int:
    """One warp per 1024 chunk elements: 4 for [128, 32] (an [BT, DBV] fp32 accumulator
    of 16 registers per thread, the chunk 32). Not measured yet (see above)."""
    return max(1, min(8, DBV * BKT // 1024))


def verify_is_chunked(plan: "KernelPlan") -> bool:
    """Whether the verify kernel streams [DBV, BKT] key chunks (launch tiles DBV, BKT)."""
    return plan.verify_template == VERIFY_KEY_CHUNKS


def decode_splits(plan: "KernelPlan") -> bool:
    """Whether the decode kernel can split a (row, value head) over NSPLIT programs: the
    key-chunk decode always; the value-tile decode for a plain round-to-nearest state
    without a read copy (its format macros address the tile index and scale tiles of an
    unsplit walk)."""
    return decode_is_chunked(plan) or (plan.ckpt.kind == "plain" and not plan.ckpt.stochastic
                                       and plan.read is None)


def decode_is_chunked(plan: "KernelPlan") -> bool:
    """Whether the decode kernel streams [DBV, BKT] key chunks (its launch tiles are DBV and
    BKT) rather than [BV, BK] value tiles."""
    return plan.decode_template == KEY_CHUNKS


def streams_first(plan: "KernelPlan") -> bool:
    """Whether the decode can stream first (Launch.stream_first, STREAM_FIRST): the
    key-chunk decode of scalar decays issues its stream before the records' decays; the
    value-tile decode of a plain checkpoint (no read copy, not quantised) prefetches its
    program's first STREAM_STAGES value tiles into L2 right after the slot load, before
    the cursor, records and head-level work whose end the software-pipelined tile loop's
    first loads wait for (offline sm_90 SASS, GLA at batch 1: the first cp.async at
    instruction 513 of 960, after ~400 of head work; the hand prefetch it replaced went
    first)."""
    if decode_is_chunked(plan):
        return not plan.channel_gate
    return plan.stream.kind == "plain"


def scores_at_head(plan: "KernelPlan") -> bool:
    """Whether the decode can take its records' scores at the head (Launch.head_scores,
    HEAD_SCORES): the key-chunk decode of scalar decays. Its stream otherwise loads the
    record keys' chunk and takes their products with q (and k) in every chunk of every
    value tile, so a program of DNV / NSPLIT value tiles repeats that work as often
    (offline sm_90, GDN 4B FP8 [64, 32] at one warp: 172 of the chunk loop's 399
    instructions). At the head, one [BL, K] pass per program serves every value tile, the
    chunk loop keeps the state's work only (227 instructions), and the stream starts that
    much later. Per-channel decays weight each chunk's keys by its own decays: they keep
    the scores in the stream."""
    return decode_is_chunked(plan) and not plan.channel_gate


def decode_shares_keys(plan: "KernelPlan") -> bool:
    """Whether a key-chunk decode program may serve HPP value heads of one key group
    (Launch.heads with head_scores): where its records' scores come at the head
    (scores_at_head) and the token's query and key read no value head's quantity
    (plan.key_head_code), the records' raw scores (their keys, a key-head ring field,
    against that query and key) are the same for every head of the group; each head then
    weights them by its own scalar decays. Taken once per program, they cost one [BL, K]
    pass per group instead of one per value head (offline sm_90, Mamba-2 Nano FP8, one
    value tile per head: the chunk loop 360 -> 257 instructions with head scores, 12
    value heads per key group)."""
    return scores_at_head(plan) and plan.GROUP > 1 and bool(plan.key_head_code)


def record_blocks(plan: "KernelPlan") -> bool:
    """Whether the decode can walk its committed records in blocks (Launch.record_block,
    RECORD_BLOCK): where its records' scores may come at the head (scores_at_head) and the
    records' own code (plan.record_chunk_code, plan.record_tile_code) reads nothing but
    ring fields (r_*), the rows' offsets and mask (o_l, m_l) and what it defines itself,
    so that a function of its own (replay_decode_record_block) can evaluate it at a
    block's rows. The whole-ring tiles ([BL, K] keys, [BL, DBV] values) take every
    ring row's work whatever the cursor n; the blocks take ceil(n / RECORD_BLOCK) of it
    (offline sm_90, GDN 4B NVFP4 at [128, 32] one warp: ~51 instructions per ring row
    of a ~2,900-instruction program)."""
    if not scores_at_head(plan):
        return False
    known = {f"r_{f.name}" for f in plan.ring} | {"o_l", "m_l", "tl", "devmath"}
    for s in plan.record_chunk_code + plan.record_tile_code:
        if _names_read(s.expr) - known:
            return False
        known.add(s.target)
    return True


def _names_read(expr: str) -> set[str]:
    """The names a statement's expression (Triton source) reads."""
    return {n.id for n in ast.walk(ast.parse(expr, mode="eval")) if isinstance(n, ast.Name)}


def onepass_flushes(plan: "KernelPlan") -> bool:
    """Whether the decode can fold a flushing row in one pass (Launch.onepass_flush,
    ONEPASS_FLUSH): the key-chunk decode of scalar decays over a plain round-to-nearest
    checkpoint without a read copy. A flushing program then folds its n committed records
    into each checkpoint chunk as it streams it, with the decays to the last record
    (`fold_checkpoint_weight`, `fold_replay_weight`), and stores the chunk; the token
    itself is not folded but becomes ring row 0 of the fresh window (cursor 1), so
    nothing waits for its delta-rule value, which needs the whole stream. The default
    flush streams the checkpoint a second time after the output (from L2) to fold the
    token too; its flushing programs run 2-3x as long as the others and a launch's last
    ones make a tail (H200, session 30: GDN 4B's staggered launch 7 us longer with them
    spread than first; one pass: the every-row flush step 1.13-1.21x faster). The
    token's record is rounded to the record precision like every other token's, and a row
    flushes every L - 1 steps instead of every L (the window's first record is the last
    flush's token): 1/15 more fold traffic at L = 16, which the tuner's amortised cycle
    measures (perf.Workload.cycle). A key-
    head record field is shared by the value heads of a key group, which all read its
    row 0 until they have streamed: the last of them to arrive (a count per (slot, key
    head) after the fold queue, ReplayState.fold_queue) writes the token's row 0."""
    return decode_is_chunked(plan) and not plan.channel_gate and plan.read is None \
        and plan.ckpt.kind == "plain" and not plan.ckpt.stochastic


def plan_tiles(plan: "KernelPlan", kernel: str) -> tuple[int, int | None, int]:
    """The plan's own launch of `kernel` (replay_decode, fold, conventional_decode,
    verify, verify_fold, commit) as (value tile, key chunk or None, num_warps): the fallback of
    every tuned launch."""
    kernel = launch_kind(kernel)
    if kernel == "replay_decode":
        if decode_is_chunked(plan):
            return plan.DBV, plan.BKT, plan.decode_warps
        return plan.BV, None, plan.decode_warps
    if kernel == "verify":
        if verify_is_chunked(plan):
            return plan.verify_dbv, plan.BKT, plan.verify_warps
        return plan.BV, None, plan.verify_warps
    return plan.BV, None, plan.num_warps


def launch_kind(kernel: str) -> str:
    """The kernel whose launch rules `kernel` follows: verify_fold (plan.VERIFY_FOLDS: the
    launch of the verify kernel that serves the rows which fold first, FOLDING) is the
    verify kernel, compiled without the plain rows' code and tuned on its own; commit (a
    commit's launch of the fold kernel, where a few rows fold CAP + 1 or more records and
    the rest only move their cursors) is the fold kernel, tuned on its own."""
    return {"verify_fold": "verify", "commit": "fold"}.get(kernel, kernel)


def launch_constants(plan: "KernelPlan", kernel: str, BV: int, BKT: int | None = None,
                     split: int = 1, stages: int | None = None,
                     separate_flush: bool = False, heads: int = 1,
                     stream_first: bool = False, read_words: bool = False,
                     onepass_flush: bool = False, flush_order: int = 0,
                     read_mma: bool = False, head_launch: bool = False,
                     head_scores: bool = False, record_block: int = 0) -> dict[str, int | bool]:
    """The tl.constexpr arguments that follow from a launch's tiles (the kernels take them
    as arguments, so one module launches with any tiles): for the key-chunked decode
    kernel and the key-chunked verify BV is the value tile DBV (DNV passes cover V) and
    BKT the key chunk (NK chunks cover BK); for the others BV is the value tile (NV tiles). A fold takes tl.dot when
    every tile dim is >= 16 (FOLD_DOT / DECODE_FOLD_DOT), a broadcast sum otherwise; the
    ring tile BL then holds at least 16 rows (the extra rows are masked). These are the
    rules make_plan applies to its own choice (a test checks every committed module);
    tuned launches (replaygen/tuning.py) go through here. `split` programs share one (row,
    value head) of the decode, each taking every split-th value tile (NSPLIT; at most
    the tile count; see decode_splits); other kernels take 1. `stages` (a launch's
    num_stages; None: the plan's) is the depth of the key-chunk decode's chunk stream
    (STREAM_STAGES); `separate_flush` (decode only) leaves full rings to a fold launch
    (FUSED_FLUSH false); `heads` (the key-chunked verify; the key-chunk decode with
    head_scores, unsplit, where decode_shares_keys) is the number of value heads of one
    key group a program serves (HPP), sharing its key-level work: a divisor of GROUP.
    `stream_first` (decodes where streams_first(plan) holds: STREAM_FIRST), in the
    value-tile decode, prefetches the program's first value tiles into L2 before the cursor
    (streams_first); in the key-chunk decode of scalar decays it issues
    the state stream's first loads once the cursor has arrived, before the records' gates
    and their decays: the checkpoint's decay and the records' decays are scalars per row,
    applied to the stream's sums after it. Without it the stream also waits for the
    decays: one more dependent memory round trip per program. A program of several value
    tiles takes the decays once, after its first tile's stream, inside the tile loop (the
    compiler hoists loop-invariant code out of the loop, ahead of the first stream: offline
    sm_90 PTX, session 12). Which is faster depends on the configuration, so
    the tuner tries both (H200, session 12, tables' launches: Mamba-2 Nano fp32 5% faster
    amortised, GDN fp32 + NVFP4 5% slower: more registers). `read_words` (the value-tile
    decode of a read copy whose rows are whole 8-byte words, plan.vtile_read_words, with
    its flush in the fold launch: READ_WORDS) takes the non-flush products as the
    key-chunk decode does, word by word (formats.read_words_dot2), instead of
    decoding each element to fp32 and multiplying it per probe (offline sm_90, KDA FP8
    row [8, 128] at one warp: 358 instructions per tile, ~2.5 of them per element for the
    e4m3 conversion alone). It needs the flush out of the launch: a flushing row reads
    the fp32 checkpoint tile, which the word path never forms. `read_mma` (the same
    decode of an FP8 read copy, plan.vtile_read_mma, its flush in the fold launch, value
    tiles of at least 16 rows: READ_MMA) multiplies each e4m3 tile by an e4m3 probe
    operand built once per program (formats.mma_probe_operand): at four warps per
    program, wgmma's e4m3 product from shared memory, no per-element work in the threads
    (with fewer warps or fewer than 64 rows, Triton widens the tile to fp16 for an
    mma.sync; FP8 tile scales hold the value tile at their plan.BV rows). `onepass_flush`
    (onepass_flushes(plan), fused flush, unsplit: ONEPASS_FLUSH) folds a flushing row in its
    stream instead of a second pass over its checkpoint (onepass_flushes says how).
    `flush_order` (the key-chunk decode, its flush fused: FLUSH_ORDER; 0 for grid order, a
    power of two s otherwise) runs the flushing rows' programs first, at every s-th launch
    position (launch_order.flush_first; ROWS_P2 follows from the launch's rows, so the
    runtime sets it, and drops the choice past MAX_ORDERED_ROWS rows or
    MAX_ORDERED_PROGRAMS programs). `head_launch` (the value-tile verify, SPLIT_HEAD; its
    plain and its folding rows, each their own choice) runs the verify as two launches of
    its kernel: the drafts' and records' key-side work (the head phase) for every (row,
    value head), its products left in a workspace of WS fp32 floats each (a folding
    launch's with the fold's weights), then the value-tile stream, which reads them. In one
    launch a program streams nothing while it does its head phase (KDA T = 8: about two
    thirds of its instructions at one warp, and half its stall samples, ncu, session 34);
    split, the stream launch's programs start streaming at once, for more bytes (KDA, T =
    8: the workspace's 12 KB written and read again per (row, value head), against its 64
    KB checkpoint and ~20 KB of records and drafts). `head_scores` (the key-chunk decode of
    scalar decays, scores_at_head; not with stream_first, whose stream goes before the
    records, nor onepass_flush, whose stream folds each chunk's record keys: HEAD_SCORES)
    takes the records' scores and the token's own once per program, before the value
    tiles, instead of in every chunk of every value tile's stream. `record_block` (with
    head_scores, where record_blocks(plan), the flush in the fold launch: RECORD_BLOCK; 0
    for none, else a power of two at most BL) takes the records' terms in each value tile
    by a loop over the committed records, record_block rows at a time, instead of from
    whole-ring tiles and scores at the head: at a cursor n, ceil(n / record_block) blocks
    of records' work instead of BL rows' (the loads past n were masked, but not the
    arithmetic). The head keeps the token's own score; a flushing row's fold would need
    the whole ring's tiles, hence the flush out of the launch."""
    folding = kernel == "verify_fold"
    kernel = launch_kind(kernel)
    for what, v in (("value tile", BV), ("key chunk", BKT), ("split", split)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1 or v & (v - 1)):
            raise ConfigError(f"the {what} must be a power of two, got {v!r}")
    chunked = ((kernel == "replay_decode" and decode_is_chunked(plan))
               or (kernel == "verify" and verify_is_chunked(plan)))
    # tile and column scales are stored per plan.BV-row tile (index block * NV + tile): a
    # chunked kernel reads them per plan.BV rows of its value tile (a multiple), a
    # value-tile kernel at another BV would write or read them in another layout
    tiled = [f for f in plan.formats if f.scale in ("tile", "col")]
    if chunked:
        BKT = BKT or plan.BKT
        if BKT > plan.BK:
            raise ConfigError(f"the key chunk {BKT} exceeds the key block {plan.BK}")
        # the key-chunked verify's products also have BT (draft probe) rows
        dot_ok = BV >= 16 and BKT >= 16 and (kernel != "verify" or plan.BT >= 16)
        if tiled and BV % plan.BV:
            raise ConfigError(f"the decode value tile {BV} must be a multiple of the read copy's "
                              f"scale tile {plan.BV} rows")
        if plan.uses_nvfp4 and BKT < min(NVFP4_BLOCK, plan.BK):
            raise ConfigError(f"the key chunk {BKT} must hold whole NVFP4 blocks "
                              f"({min(NVFP4_BLOCK, plan.BK)} keys)")
        if kernel == "replay_decode" and BKT < plan.read_word_keys:
            raise ConfigError(f"the key chunk {BKT} must hold whole 8-byte words of the read "
                              f"copy ({plan.read_word_keys} keys)")
        out = {"DBV": BV, "DNV": -(-plan.V // BV), "BKT": BKT, "NK": plan.BK // BKT,
               "DECODE_FOLD_DOT": dot_ok}
        dot = out["DECODE_FOLD_DOT"] or plan.fold_dot
    else:
        if tiled and BV != plan.BV:
            raise ConfigError(f"the {kernel} value tile {BV} must be the {tiled[0].kind} "
                              f"copy's scale tile, {plan.BV} rows (its {tiled[0].scale} "
                              f"scales are stored per {plan.BV}-row tile)")
        out = {"BV": BV, "NV": -(-plan.V // BV), "FOLD_DOT": plan.BK >= 16 and BV >= 16}
        dot = out["FOLD_DOT"] or plan.decode_fold_dot
    if kernel == "replay_decode":
        tiles = out["DNV"] if chunked else out["NV"]
        if split > 1 and not decode_splits(plan):
            raise ConfigError("the value-tile decode of a quantised, stochastically rounded or "
                              "read-copy state does not split rows")
        if split > tiles:
            raise ConfigError(f"a split of {split} programs exceeds the {tiles} value tiles")
        out["NSPLIT"] = split
    elif split != 1:
        raise ConfigError(f"only the decode kernel splits rows, not {kernel}")
    if separate_flush and kernel != "replay_decode":
        raise ConfigError(f"only the decode kernel has a flush to separate, not {kernel}")
    if isinstance(heads, bool) or not isinstance(heads, int) or heads < 1:
        raise ConfigError(f"the value heads per program must be a positive integer, got {heads!r}")
    if heads != 1 and not ((kernel == "verify" and chunked)
                           or (kernel == "replay_decode" and chunked and decode_shares_keys(plan)
                               and head_scores and split == 1)):
        raise ConfigError(f"only the key-chunked verify, and the key-chunk decode that shares its "
                          f"records' scores across a key group (decode_shares_keys) with "
                          f"head_scores and its rows unsplit, serve several value heads per "
                          f"program, not the {kernel} kernel of {plan.name}"
                          + (" without head_scores" if kernel == "replay_decode" and not head_scores else "")
                          + (f" split {split} ways" if split != 1 else ""))
    if plan.GROUP % heads:
        raise ConfigError(f"{heads} value heads per program do not divide the key group of "
                          f"{plan.GROUP} value heads")
    out["HPP"] = heads
    out["STREAM_STAGES"] = plan.STREAM_STAGES if stages is None else stages
    out["FLUSH_STAGES"] = flush_stages(out["STREAM_STAGES"])
    # (a plan whose decode never folds in its own launch keeps that for every launch)
    out["FUSED_FLUSH"] = plan.FUSED_FLUSH and not separate_flush
    if stream_first and not (kernel == "replay_decode" and streams_first(plan)):
        raise ConfigError("only the key-chunk decode of scalar decays and the value-tile decode "
                          f"of a plain checkpoint stream first, not the {kernel} kernel of {plan.name}")
    out["STREAM_FIRST"] = bool(stream_first)
    if read_words and not (kernel == "replay_decode" and not chunked and plan.vtile_read_words
                           and not out["FUSED_FLUSH"]):
        raise ConfigError("only the value-tile decode of a read copy in whole 8-byte words "
                          "(FP8 row or tile scales, NVFP4; K a power of two) with its flush in "
                          f"the fold launch reads words, not the {kernel} kernel of {plan.name}"
                          + (" with its flush fused" if out["FUSED_FLUSH"] else ""))
    out["READ_WORDS"] = bool(read_words)
    if read_mma and not (kernel == "replay_decode" and not chunked and plan.vtile_read_mma
                         and not out["FUSED_FLUSH"] and BV >= 16 and not read_words):
        raise ConfigError("only the value-tile decode of an FP8 read copy (row or tile scales; K a "
                          "power of two, at least 32) with its flush in the fold launch, value "
                          "tiles of at least 16 rows and no word products, takes its products "
                          f"on tensor cores, not the {kernel} kernel of {plan.name}"
                          + (" with its flush fused" if out["FUSED_FLUSH"] else "")
                          + (f" at BV = {BV}" if BV < 16 else "")
                          + (" reading words" if read_words else ""))
    out["READ_MMA"] = bool(read_mma)
    if onepass_flush and not (kernel == "replay_decode" and onepass_flushes(plan)
                              and out["FUSED_FLUSH"] and split == 1):
        raise ConfigError("only the key-chunk decode of a plain round-to-nearest checkpoint with "
                          "scalar decays and no read copy, its flush fused and its rows unsplit, "
                          f"folds in one pass, not the {kernel} kernel of {plan.name}"
                          + (" with its flush separate" if not out["FUSED_FLUSH"] else "")
                          + (f" split {split} ways" if split != 1 else ""))
    out["ONEPASS_FLUSH"] = bool(onepass_flush)
    if head_scores and not (kernel == "replay_decode" and chunked and scores_at_head(plan)
                            and not stream_first and not onepass_flush):
        raise ConfigError("only the key-chunk decode of scalar decays, its stream not first and "
                          "its flush not in one pass, takes its records' scores at the head, "
                          f"not the {kernel} kernel of {plan.name}"
                          + (" streaming first" if stream_first else "")
                          + (" folding in one pass" if onepass_flush else ""))
    out["HEAD_SCORES"] = bool(head_scores)
    if record_block and not (isinstance(record_block, int) and not isinstance(record_block, bool)
                             and record_block > 0 and not record_block & (record_block - 1)):
        raise ConfigError(f"the record block must be 0 or a power of two, got {record_block!r}")
    if record_block and not (kernel == "replay_decode" and chunked and record_blocks(plan)
                             and head_scores and not out["FUSED_FLUSH"]):
        raise ConfigError("only the key-chunk decode of scalar decays whose records' code reads "
                          "nothing but ring fields (record_blocks), with head_scores and its flush "
                          f"in the fold launch, walks its records in blocks, not the {kernel} "
                          f"kernel of {plan.name}"
                          + (" without head_scores" if not head_scores else "")
                          + (" with its flush fused" if out["FUSED_FLUSH"] else ""))
    out["RECORD_BLOCK"] = record_block or 0
    if isinstance(flush_order, bool) or not isinstance(flush_order, int) or flush_order < 0 \
            or flush_order & (flush_order - 1):
        raise ConfigError(f"the flush order must be 0 or a power of two, got {flush_order!r}")
    if flush_order and not (kernel == "replay_decode" and chunked and out["FUSED_FLUSH"]):
        raise ConfigError("only the key-chunk decode with its flush fused orders its flushing "
                          f"programs first, not the {kernel} kernel of {plan.name}"
                          + (" with its flush separate" if not out["FUSED_FLUSH"] else ""))
    out["FLUSH_ORDER"] = flush_order
    out["ROWS_P2"] = 1
    out["BL"] = max(_next_pow2(plan.L), 16) if dot else _next_pow2(plan.L)
    if out["RECORD_BLOCK"] > out["BL"]:
        raise ConfigError(f"the record block {out['RECORD_BLOCK']} exceeds the ring tile of "
                          f"{out['BL']} rows")
    if head_launch and not (kernel == "verify" and not chunked):
        raise ConfigError("only the value-tile verify takes its head phase in a launch of its "
                          f"own, not the {'verify_fold' if folding else kernel} kernel of {plan.name}")
    out["SPLIT_HEAD"] = int(bool(head_launch))
    # the workspace macro's fields: P_ck [BT, BK], S_c [BT, BL], S_d (and for a delta
    # rule M_v, M_x) [BT, BT], one [BT] per draft scalar; a folding launch's kw [BL, BK]
    # and ck_weight [BK]
    square = 3 if plan.delta_rule else 1
    fold = out["BL"] * plan.BK + plan.BK if folding else 0
    out["WS"] = (plan.BT * (plan.BK + out["BL"] + square * plan.BT + len(plan.draft_scalars)) + fold
                 if head_launch else 0)
    return out


def _pick_num_warps(BV: int, BK: int) -> int:
    """One warp per 1024 tile elements (2 warps for [16, 128], 4 for [16, 256]): the
    fastest in the same sweeps, whose 8-warp programs ran up to 2x slower."""
    return max(1, min(8, BV * BK // 1024))


def _pick_verify_warps(BV: int, BK: int, channel_gate: bool) -> int:
    """As the decode, but at least 4 warps with per-channel gates: their drafts carry a
    [BT, BK] cumulative-gate tile and [BT, BK] pair decays besides the probes (ptxas,
    sm_90, KDA at K = 128, T_MAX = 8: 255 registers and spills with 2 warps, 214 and none
    with 4)."""
    return max(_pick_num_warps(BV, BK), 4 if channel_gate else 1)


def make_plan(deriv: Derivation, config: KernelConfig) -> KernelPlan:
    spec = deriv.spec
    t = spec.transition
    dims = config.dim_map
    g = spec.geometry
    H, HV, K, V = (dims[g[r]] for r in ("key_heads", "value_heads", "key_dim", "value_dim"))
    L = config.buffer_length
    T_MAX = config.max_drafts
    ckpt = state_format("ckpt", config.state_dtype, config.stochastic, config.fp8_scale)
    read = (state_format("read", config.read_dtype, False, config.fp8_scale)
            if config.read_dtype else None)
    # Capacity rule: every operation leaves at most CAP committed records, and a verify
    # appends its <= T_MAX drafts at rows n..n+T-1 <= CAP + T_MAX - 1: the ring has
    # CAP + T_MAX rows, for any L and T_MAX (no power of two).
    # VERIFY_FOLDS (config.verify_folds: speculative configurations, 2 <= T_MAX <= L, a
    # plain checkpoint without a read copy, make_config checks): a verify whose drafts
    # would take a row past CAP = L committed records folds that row's committed records
    # into its checkpoint first, in a launch of the verify kernel for those rows: the
    # checkpoint is read there anyway, so the fold costs one checkpoint write where a
    # commit's fold cost a read and a write (T = 8, L = 16: one checkpoint read in three
    # saved). The drafts still go to ring rows n + i, past the folded ones, which other
    # programs of the launch may still be reading (a key group's shared key records); the
    # commit moves the accepted ones to the ring's start. Decode (it folds at n + 1 >= L)
    # and flush take up to L committed records. With T_MAX <= L a commit after such a
    # verify stays within CAP, so a commit never folds (and never folds moved records).
    # Not the default: the fused launch moves fewer bytes, but on the H200 (session 18,
    # T = 8, batch 256) the verify of the folding rows took 70-75% of a separate fold's
    # time on top of the verify's (KDA: 136%), and the whole step measured Mamba-2 1.17x
    # -> 1.15x a decode step, GDN 1.26x -> 1.33x, KDA 1.77x -> 2.28x.
    # Without VERIFY_FOLDS the verify never writes the checkpoint, and a commit folds
    # when its accepted drafts would take a row past CAP. For T_MAX >= 2 that is CAP = L
    # as well: at T = 8, L = 16 a row of full acceptance goes 0 -> 8 -> 16 and folds 24
    # records in the third commit, where CAP = L - 1 folded 16 in every second one (H200,
    # session 24, call 5, batch 256, verify + commit over a conventional decode step:
    # GDN 1.184x -> 1.042x, Mamba-2 1.159x -> 1.007x, KDA 1.511x -> 1.373x, GLA 1.257x ->
    # 1.229x; the ring has 24 rows either way). With one draft at most (T_MAX = 1,
    # decode-only configurations) CAP = L - 1, as the decode leaves it (it folds at
    # n + 1 >= L): the ring is L rows.
    VERIFY_FOLDS = config.verify_folds
    CAP = L if T_MAX > 1 else L - 1
    RING = CAP + T_MAX
    BK = _next_pow2(K)
    if "nvfp4" in (config.state_dtype, config.read_dtype):
        BK = max(BK, 2)   # values are packed in pairs along K
    BV = config.block_v or _pick_block_v(V, BK)
    BL = _next_pow2(L)       # decode and verify read n <= CAP <= L committed records
    BLF = _next_pow2(RING)   # a fold takes up to RING (a commit's, or a decode's queued one)
    # a verify's probe rows: the drafts' queries, and for a delta rule their keys after
    # them (rows T_MAX + i), so one product with each checkpoint tile serves both
    BT = _next_pow2(T_MAX * (2 if t.update == "delta" else 1))
    fold_dot = BK >= 16 and BV >= 16
    DBV, BKT = _pick_decode_tiles(V, BK)
    if config.block_v is not None:
        DBV = config.block_v
    channel_gate = t.decay == "channel"
    cumulative = config.gate_records == "cumulative"
    if cumulative and not deriv.cumulative_gate:
        raise ConfigError(f"{spec.name}: gate_records='cumulative' needs the gate {t.gate} "
                          f"stored as a record field; the record holds "
                          f"{sorted(f.name for f in deriv.fields)}")
    decode_template = _pick_decode_template(channel_gate, cumulative, ckpt, read,
                                            config.decode_structure)
    if read is not None:
        read = read_format(read, decode_template, K)
    if decode_template == KEY_CHUNKS and read is not None and read.scale == "tile":
        DBV = max(DBV, BV)   # a decode value tile holds whole scale tiles (powers of two)
    decode_fold_dot = DBV >= 16 and BKT >= 16
    # the key-chunk decode of an NVFP4 read copy leaves full rings to a fold launch
    fused_flush = not (decode_template == KEY_CHUNKS and read is not None and read.kind == "nvfp4")
    if fold_dot or decode_fold_dot:
        BL = max(BL, 16)   # tl.dot needs every tile dim >= 16; the extra rows are masked
    if fold_dot:
        BLF, BT = max(BLF, 16), max(BT, 16)
    dim_subs = {sympy.Symbol(d): n for d, n in dims.items()}
    quantities = spec.quantities
    field_names = {f.name for f in deriv.fields}

    def subs(e):
        return e.xreplace(dim_subs) if e is not None else None

    # -- current token ----------------------------------------------------------
    wanted = {"query": t.query, "key": t.key}
    if t.gate is not None:
        wanted["gate"] = t.gate
    if t.update == "delta":
        wanted["beta"] = t.beta
    wanted["value"] = t.value
    for f in deriv.fields:
        if f.name != deriv.written_value_name:
            wanted[f"field_{f.name}"] = sympy.Symbol(f.name)
    outputs = [e for e in (spec.output_skip, spec.output_gate) if e is not None]

    needed: list[str] = []   # derived quantities, in declaration (dependency) order

    def need(expr):
        for s in expr.free_symbols:
            q = quantities[s.name]
            if q.kind == "derived" and s.name not in needed:
                need(q.expr)
                needed.append(s.name)
    for e in list(wanted.values()) + outputs:
        need(e)
    needed.sort(key=list(quantities).index)

    names = {sympy.Symbol(n): f"b_{n}" for n in quantities}
    # the token's scalars: a key-axis value divided by one is printed as the value times
    # one quotient (q / sqrt(sumsq(q)): one division per token, not one per element)
    scalars = frozenset(sympy.Symbol(n) for n, q in quantities.items() if q.axis == "scalar")
    head_code, tile_code = [], []
    for n in needed:
        q = quantities[n]
        if q.axis == "V":
            tile_code.append(Statement(f"b_{n}", print_triton(subs(q.expr), names)))
        else:
            head_code.append(Statement(f"b_{n}", print_triton(subs(q.expr), names,
                                                              row_scalars=scalars)))
    for role in ("query", "key", "gate", "beta"):
        if role in wanted:
            head_code.append(Statement(f"t_{role}", print_triton(subs(wanted[role]), names,
                                                                 row_scalars=scalars)))
    tile_code.append(Statement("t_value", print_triton(subs(t.value), names)))

    # -- current token per key chunk -----------------------------------------------
    # The decode kernel streams the checkpoint in [DBV, BKT] chunks of the key axis and
    # recomputes the token's key-axis quantities per chunk (c_<name>, loads at the
    # chunk's offsets). A sumsq inside them reduces the whole axis: it is computed once
    # at head level (red_<i>, from the full-axis values) and enters the chunk as a scalar.
    chunk_roles = {"query": t.query, "key": t.key}
    if channel_gate:
        chunk_roles["gate"] = t.gate
    reductions: dict[sympy.Expr, sympy.Symbol] = {}

    def hoist(e):
        for node in sorted(e.atoms(sumsq), key=sympy.default_sort_key):
            reductions.setdefault(node, sympy.Symbol(f"red_{len(reductions)}"))
        return e.xreplace(reductions)

    chunk_deps: list[str] = []

    def need_chunk(expr):
        for sym in hoist(expr).free_symbols:
            q = quantities.get(sym.name)
            if q is not None and q.axis == "K" and sym.name not in chunk_deps:
                if q.kind == "derived":
                    need_chunk(q.expr)
                chunk_deps.append(sym.name)
    for e in chunk_roles.values():
        need_chunk(e)
    chunk_names = {**names, **{sympy.Symbol(n): f"c_{n}" for n in chunk_deps}}
    chunk_names.update({r: r.name for r in reductions.values()})

    def key_axis_code(names, value_prefix, role_prefix, row_scalars=None, deps=None, roles=None):
        """The token's key-axis values the chunk needs (derived ones, then the roles),
        printed with `names`: per key chunk (c_, ct_) or over the whole axis for a
        verify's drafts (h_, ht_); `deps` and `roles`: of those, these (default: all)."""
        def show(e):
            return print_triton(subs(hoist(e)), names, row_scalars=row_scalars)
        code = [Statement(f"{value_prefix}{n}", show(quantities[n].expr))
                for n in sorted(chunk_deps if deps is None else deps, key=list(quantities).index)
                if quantities[n].kind == "derived"]
        return code + [Statement(f"{role_prefix}{role}", show(e))
                       for role, e in (chunk_roles if roles is None else roles).items()]

    chunk_code = key_axis_code(chunk_names, "c_", "ct_")
    head_code += [Statement(r.name, print_triton(subs(node), names))
                  for node, r in reductions.items()]
    # per-token scalars the chunk code reads besides the reductions: a key-chunked verify
    # carries them per draft as [BT] vectors (as the reductions)
    chunk_exprs = [hoist(quantities[n].expr) for n in chunk_deps
                   if quantities[n].kind == "derived"] + [hoist(e) for e in chunk_roles.values()]
    chunk_scalars = {sym.name for e in chunk_exprs for sym in e.free_symbols
                     if sym.name in quantities and quantities[sym.name].token
                     and quantities[sym.name].axis == "scalar"}
    chunk_tensors = tuple(TensorArg(q.name, q.head, q.axis, q.optional, q.kind == "input")
                          for q in spec.inputs() + spec.params()
                          if q.name in chunk_deps and q.axis == "K")

    # The key-chunked verify computes every draft's head-level quantities at once, as [BT]
    # vectors over its probe rows: the scalar ones from [BT] loads of the scalar inputs
    # (draft_code), the whole-axis reductions from [BT, BK] tiles of the key-axis tensors
    # (reduction_code: h_<name> tiles, reducing axis 1). Possible when
    # the scalars read scalars only and the reductions read loaded tensors only.
    scalar_names = {n for n, q in quantities.items() if q.axis == "scalar"}
    draft_code = [Statement(f"b_{n}", print_triton(subs(quantities[n].expr), names))
                  for n in needed if quantities[n].axis == "scalar"]
    draft_code += [Statement(f"t_{role}", print_triton(subs(wanted[role]), names))
                   for role in ("gate", "beta") if role in wanted]
    draft_names = {**names, **{sympy.Symbol(n): f"h_{n}" for n in chunk_deps}}
    reduction_code = [Statement(r.name, print_triton(subs(node), draft_names, reduce_axis=1))
                      for node, r in reductions.items()]
    # ... and their key-axis values over the whole axis ([BT, BK] tiles, the chunk code's
    # statements with h_ names, ht_<role>), for the scores that need no checkpoint
    draft_names.update({r: r.name for r in reductions.values()})
    draft_key_code = key_axis_code(draft_names, "h_", "ht_")
    # The value-tile verify's folding launch may take its drafts all at once as well: the
    # scalar quantities as [BT] vectors (draft_code, whose gate is a key-axis tile for a
    # per-channel decay: ht_gate), the key-axis ones as [BT, BK] tiles in which per-token
    # scalars broadcast as [BT, 1] columns and a division by a per-row value is one
    # quotient per row.
    tile_names = {**draft_names, **{sympy.Symbol(s): f"b_{s}[:, None]" for s in chunk_scalars}}
    draft_tile_code = key_axis_code(tile_names, "h_", "ht_", scalars | frozenset(reductions.values()))
    draft_scalar_code = [st for st in draft_code if not (channel_gate and st.target == "t_gate")]

    def drafts_at_once(scalar_roles) -> bool:
        """Whether the drafts' head-level quantities can be computed for all drafts at once:
        the scalar ones (and `scalar_roles`) from scalars only, as [BT] vectors, and the
        whole-axis reductions from loaded key-axis inputs."""
        return (all(sym.name in scalar_names for n in needed if quantities[n].axis == "scalar"
                    for sym in subs(quantities[n].expr).free_symbols)
                and all(sym.name in scalar_names for role in scalar_roles if role in wanted
                        for sym in subs(wanted[role]).free_symbols)
                and all(sym.name in chunk_deps and quantities[sym.name].kind != "derived"
                        for node in reductions for sym in subs(node).free_symbols))
    # ... and the value-tile verify's stores its key-axis records from the tiles (h_<field>,
    # or the drafts' cumulative decays for a cumulative gate record)
    drafts_as_tiles = (drafts_at_once(("beta",) if channel_gate else ("gate", "beta"))
                       and all(f.name in chunk_deps or (f.name == deriv.cumulative_gate and cumulative)
                               for f in deriv.fields if f.axis == "K"))
    # each role split once: the probe rows use the query (and, for a delta rule, the key);
    # the head-level scores need the drafts' keys for every variant (S_w = P · K_dᵀ)
    splits = {role: _split_probe(role, hoist(chunk_roles[role]), quantities, hoist, subs,
                                 chunk_names) for role in ("query", "key")}
    probe_roles = ("query", "key") if t.update == "delta" else ("query",)

    # The value-tile verify's plain launch may take a delta rule's drafts as probe rows:
    # row r of its [BT, BK] tiles holds draft r's query (r < T_MAX) or draft r - T_MAX's
    # key, each role's input loaded raw at its rows (one tile) and scaled by the role's
    # factor (the split above) over that row's own reductions (probe_row_code: fac_query,
    # fac_key, [BT]); the keys at the drafts' own rows, the gate at every probe row and the
    # key-axis records come from tiles of the inputs they read (probe_tile_code). Possible
    # when both roles split, each factor reduces its own input only, and nothing but the
    # query reads the query's input (it is then loaded once, at the query rows).
    red_nodes = {sym: node for node, sym in reductions.items()}
    tile_roles = {role: e for role, e in chunk_roles.items() if role != "query"}

    def key_axis_deps(exprs) -> list[str]:
        """The key-axis quantities (derived ones and inputs) `exprs` read, through derived
        quantities and the inputs of the reductions they read."""
        deps: list[str] = []

        def visit(expr):
            for sym in hoist(expr).free_symbols:
                if sym in red_nodes:
                    visit(red_nodes[sym].args[0])
                q = quantities.get(sym.name)
                if q is not None and q.axis == "K" and sym.name not in deps:
                    if q.kind == "derived":
                        visit(q.expr)
                    deps.append(sym.name)
        for e in exprs:
            visit(e)
        return deps
    key_fields = [sympy.Symbol(f.name) for f in deriv.fields
                  if f.axis == "K" and f.name != deriv.cumulative_gate]
    tile_deps = key_axis_deps(list(tile_roles.values()) + key_fields)
    gate_deps = key_axis_deps([tile_roles["gate"]] if "gate" in tile_roles else [])
    row_splits = {role: _probe_split(hoist(chunk_roles[role]), quantities, hoist)
                  for role in ("query", "key")}

    def reduces_own(split) -> bool:
        """The factor reads reductions of its own input x, constants and parameters only
        (the block computes it before any draft's scalars are loaded)."""
        x, factor = split
        return all(red_nodes[sym].free_symbols <= {x} if sym in red_nodes
                   else sym.name in quantities and not quantities[sym.name].token
                   for sym in factor.free_symbols)
    probe_rows_head = (t.update == "delta" and drafts_as_tiles and all(row_splits.values())
                       and row_splits["query"][0] != row_splits["key"][0]
                       and row_splits["query"][0].name not in tile_deps
                       and all(reduces_own(sp) for sp in row_splits.values()))
    probe_row_code, probe_tile_code, probe_reduction_code = [], [], []
    if probe_rows_head:
        row_names: dict[sympy.Symbol, str] = {}
        printed: dict[str, str] = {}   # a reduction's text -> its name (one per distinct sum)
        for role, (x, factor) in row_splits.items():
            for sym in sorted(factor.free_symbols & red_nodes.keys(), key=lambda r: r.name):
                text = print_triton(subs(red_nodes[sym]), {**names, x: "raw_probe"}, reduce_axis=1)
                if text not in printed:
                    printed[text] = f"pr_{sym.name}"
                    probe_row_code.append(Statement(printed[text], text))
                row_names[sym] = printed[text]
            probe_row_code.append(Statement(f"fac_{role}", print_triton(subs(factor), {**names, **row_names})))
        tile_reds = {sym.name for n in tile_deps if quantities[n].kind == "derived"
                     for sym in hoist(quantities[n].expr).free_symbols if sym in red_nodes}
        tile_reds |= {sym.name for e in tile_roles.values() for sym in hoist(e).free_symbols
                      if sym in red_nodes}
        probe_reduction_code = [st for st in reduction_code if st.target in tile_reds]
        probe_tile_code = key_axis_code(tile_names, "h_", "ht_", scalars | frozenset(reductions.values()),
                                        deps=tile_deps, roles=tile_roles)
    # ... the inputs of those tiles: at every probe row (the gate's), or at the drafts' own
    probe_tensors = [x for x in chunk_tensors if probe_rows_head and x.name in tile_deps]
    probe_gate_tensors = tuple(x for x in probe_tensors if x.name in gate_deps)
    probe_key_tensors = tuple(x for x in probe_tensors if x.name not in gate_deps)
    probe_factors = tuple(splits[r] for r in probe_roles)
    probe_factors = probe_factors if all(probe_factors) else ()
    score_factors = (splits["query"], splits["key"]) if probe_factors and all(splits.values()) else ()
    drafts_vectorised = drafts_at_once(("gate", "beta"))

    # -- records as tiles ---------------------------------------------------------
    derived_not_stored = {sympy.Symbol(n): q.expr for n, q in quantities.items()
                          if q.kind == "derived" and n not in field_names}

    def from_fields(e):
        for _ in range(len(quantities)):
            if not e.free_symbols & derived_not_stored.keys():
                break
            e = e.xreplace(derived_not_stored)
        return subs(e)

    def axis_of(e) -> str:
        """Axis of a record expression: K or V if any symbol has it ("scalar" otherwise);
        a sumsq reduces its K axis away."""
        if isinstance(e, sympy.Symbol):
            return deriv.field(e.name).axis if e.name in field_names else quantities[e.name].axis
        if isinstance(e, sumsq):
            return "scalar"
        axes = {axis_of(a) for a in e.args} - {"scalar"}
        return axes.pop() if axes else "scalar"

    def print_record(e) -> str:
        """A record expression on ring tiles: scalar fields are [BL] vectors; in a 2-D
        (K or V axis) expression they broadcast as [BL, 1] columns."""
        e = from_fields(e)
        two_d = axis_of(e) != "scalar"
        rn = {**names, **{sympy.Symbol(f.name): f"r_{f.name}" + ("[:, None]" if two_d and f.axis == "scalar" else "")
                          for f in deriv.fields}}
        return print_triton(e, rn, 1, keep_dims=two_d)

    record_head_code = (
        Statement("rec_key", print_record(deriv.key)),
        # identity decay: a zero log decay per row
        Statement("rec_gate", print_record(deriv.gate) if deriv.gate is not None
                  else "tl.zeros(o_l.shape, tl.float32)"))

    def zero_past_cursor(e) -> bool:
        """Whether a record expression is exactly zero on ring rows past the cursor as
        the kernels load them: value-axis fields read 0 there (masked, other=0:
        load_records at tile level), any other record field whatever the ring holds (NaN
        in a fresh pool). True when every record field it reads is value-axis and it
        vanishes where they do."""
        e = from_fields(e)
        fields = {s for s in e.free_symbols if s.name in field_names}
        if not fields or any(deriv.field(s.name).axis != "V" for s in fields):
            return False
        return sympy.simplify(e.xreplace({s: 0 for s in fields})) == 0

    record_tile_code = (Statement("rec_value", print_record(deriv.value)),)
    if not zero_past_cursor(deriv.value):
        # the value reads a ring field loaded without the cursor's mask (Mamba-2's dt):
        # select the rows past n away. Elsewhere the load's own mask zeroes them, and a
        # select repeating it cost 64 FSEL per program (offline sm_90, GDN's decodes)
        record_tile_code += (Statement("rec_value", "tl.where(m_l[:, None], rec_value, 0.0)"),)
    # the decode kernel's record contexts: scalar gate rows once per head, key-axis
    # quantities per key chunk (ring fields loaded as [BL, BKT] tiles there)
    gate_stmt = record_head_code[1]
    record_scalar_code = () if channel_gate else (gate_stmt,)
    record_chunk_code = (record_head_code[0],) + ((gate_stmt,) if channel_gate else ())
    if any(sumsq in {type(a) for a in from_fields(e).atoms(sympy.Function)}
           for e in (deriv.key, deriv.gate) if e is not None):
        raise ConfigError(f"{spec.name}: a record's key or gate reduces over the key axis; "
                          "the chunked decode kernel cannot evaluate it per chunk")
    if t.gate is None:
        head_code.append(Statement("t_gate", "0.0"))
        draft_code.append(Statement("t_gate", "0.0"))
    scalar_gate = t.decay != "channel"

    unknown = sorted(set(dict(config.record_dtypes)) - field_names)
    if unknown:
        raise ConfigError(f"record_dtypes: {spec.name} has no record field {unknown[0]!r}; "
                          f"fields: {sorted(field_names)}")
    ring = tuple(RingField(f.name, f.head, f.axis, {"scalar": 1, "K": K, "V": V}[f.axis],
                           config.record_dtype_of(f.name)) for f in deriv.fields)
    inputs = tuple(TensorArg(q.name, q.head, q.axis, q.optional, True) for q in spec.inputs())
    params = tuple(TensorArg(q.name, q.head, q.axis, False, False) for q in spec.params())
    gate_flags = ()
    if spec.output_gate is not None:
        gate_flags = tuple(s.name for s in expand_inputs(spec, spec.output_gate)
                           if quantities[s.name].optional)
    weight_names = {G_t: "G_t", G_j: "G_rec"}
    gate_cols = "" if scalar_gate else "[None, :]"
    # per-token scalars (inputs or derived) that value-tile code reads: a verify carries
    # one per draft as a [BT] vector and broadcasts it as a [BT, 1] column
    tile_exprs = [subs(t.value)] + [subs(quantities[n].expr) for n in needed
                                    if quantities[n].axis == "V"]
    tile_exprs += [subs(e) for e in outputs]
    draft_scalars = sorted({s.name for e in tile_exprs for s in e.free_symbols
                            if s.name in quantities and quantities[s.name].token
                            and quantities[s.name].axis == "scalar"},
                           key=list(quantities).index)
    # the key-chunked verify stores the drafts' key-axis record fields from the chunk
    # code's values (c_<field>), so each must be one of them
    # What a key-chunked verify program computes before its per-head loop is shared by the
    # HPP value heads of one key group it serves (Launch.heads): the drafts' key-axis
    # inputs, their reductions, the probe roles' factors (score_factors: each role is
    # factor x raw input) and the records' keys. None of it may read a value head's
    # quantity; the template is picked only where that holds.
    ring_heads = {f.name: f.head for f in ring}
    record_key_shared = all(ring_heads.get(sym.name) != "value"
                            for sym in from_fields(deriv.key).free_symbols)
    key_level = (bool(score_factors)
                 and not any(f.value_level for f in score_factors)
                 and all(quantities[n].head != "value" for n in set(chunk_deps) | chunk_scalars
                         if n in quantities)
                 and record_key_shared)
    # The decode's counterpart (decode_shares_keys): the token's query and key from
    # key-head quantities (key_head_code, the head code's statements they need) and record
    # keys from key-head ring fields. Empty where a value head's quantity enters either.
    key_closure: set[str] = set()

    def close(expr):
        for sym in expr.free_symbols:
            q = quantities.get(sym.name)
            if q is not None and sym.name not in key_closure:
                key_closure.add(sym.name)
                if q.kind == "derived":
                    close(q.expr)
    close(wanted["query"])
    close(wanted["key"])
    key_targets = {f"b_{n}" for n in key_closure} | {"t_query", "t_key"}
    key_head_code = tuple(st for st in head_code if st.target in key_targets)
    if any(quantities[n].head == "value" for n in key_closure) or not record_key_shared:
        key_head_code = ()
    verify_template = _pick_verify_template(
        channel_gate, drafts_vectorised and key_level
        and all(f.name in chunk_deps for f in ring if f.axis == "K"))
    verify_dbv = config.block_v or _pick_verify_value_tile(V)
    if verify_template == VERIFY_KEY_CHUNKS:   # (the probe rows are the value-tile verify's)
        probe_rows_head, probe_row_code, probe_reduction_code, probe_tile_code = False, [], [], []
        probe_gate_tensors = probe_key_tensors = ()
    return KernelPlan(
        config=config, spec_name=spec.name, spec_hash=spec.source_hash,
        H=H, HV=HV, K=K, V=V, L=L, GROUP=HV // H, BK=BK, BV=BV, BL=BL,
        NV=-(-V // BV), T_MAX=T_MAX, RING=RING, CAP=CAP, VERIFY_FOLDS=VERIFY_FOLDS, BT=BT, BLF=BLF, BVW=_next_pow2(V),
        fold_dot=fold_dot,
        # The fold's operands are records; their own rounding sets its error budget.
        # bf16 records (2^-9 each; exactly representable in tf32) or a bf16 checkpoint
        # (2^-8): plain tf32 (2^-11 on the decayed keys) stays well inside it, one tensor-
        # core product instead of three; so does an fp8 or NVFP4 checkpoint (2^-4 and
        # coarser). fp32 records into an fp32/fp16 checkpoint: tf32x3 (three tf32
        # products) keeps fp32 accuracy with far fewer registers than an FMA ("ieee")
        # product.
        dot_precision=("tf32" if {"bf16", "fp8", "nvfp4"} & {config.state_dtype, config.record_dtype}
                       else "tf32x3"),
        # H100, T = 8, batch 256 (session 48, calls E, F and H): the products made KDA's
        # value-tile verify 1.029-1.039x faster, GDN's key-chunked one 0.973x slower (at
        # its cap of 168 registers they spill 28 B). Three tf32 passes keep fp32's accuracy
        # (the inverse scales every written value): tf32 alone would round each power of A
        solve_by_products=verify_template != VERIFY_KEY_CHUNKS,
        solve_precision="tf32x3", solve_squarings=solve_squarings(T_MAX),
        num_warps=config.num_warps or _pick_num_warps(BV, BK),
        decay=t.decay, delta_rule=t.update == "delta",
        inputs=inputs, params=params, ring=ring,
        optional_flags=tuple(q.name for q in inputs if q.optional),
        head_code=tuple(head_code), key_head_code=key_head_code, tile_code=tuple(tile_code),
        record_head_code=record_head_code, record_tile_code=record_tile_code,
        DBV=DBV, DNV=-(-V // DBV), BKT=BKT, NK=BK // BKT, decode_fold_dot=decode_fold_dot,
        # The key-chunk decode's chunk loops carry no tl.dot, and Triton pipelines such a
        # loop only when it asks (tl.range(..., num_stages=...)): without that each chunk
        # waited a whole memory latency (ncu, session 3: 69% of issue slots idle, 61% of
        # stalls on global loads). A tuned launch's num_stages sets the depth
        # (runtime.launch_args); the plan's own launch gets Triton's default, 3. The
        # value-tile decode pipelines its tile loop at the same depth, its state tiles
        # loaded inside the loop (session 13: KDA 0.2136 -> 0.1903 ms amortised; session
        # 4's tl.range over a loop that also prefetched by hand had lost, 0.213 -> 0.254);
        # so does the value-tile verify (session 14: KDA T = 8 0.4913 -> 0.3904 ms).
        STREAM_STAGES=DEFAULT_STREAM_STAGES,
        FLUSH_STAGES=flush_stages(DEFAULT_STREAM_STAGES),
        # The plan's decode folds a full ring in the same launch (the flush on the device,
        # per row). A tuned launch may fold in a second launch instead (Launch.
        # separate_flush, runtime.decode): the decode kernel then has no fold code, which
        # cut ptxas's registers from 228 to 155 (GDN, [64, 32] 1 warp) and from 168 to 94
        # (Mamba-2 Nano, [128, 32] 2 warps), for one more launch per step. The key-chunk
        # decode of an NVFP4 read copy always folds so (_pick_decode_template).
        FUSED_FLUSH=fused_flush,
        STREAM_FIRST=False,   # (tuned per launch: Launch.stream_first)
        READ_WORDS=False,     # (tuned per launch: Launch.read_words)
        READ_MMA=False,       # (tuned per launch: Launch.read_mma)
        HEAD_SCORES=False,    # (tuned per launch: Launch.head_scores)
        RECORD_BLOCK=0,       # (tuned per launch: Launch.record_block)
        ONEPASS_FLUSH=False,  # (tuned per launch: Launch.onepass_flush)
        FLUSH_ORDER=0,        # (tuned per launch: Launch.flush_order)
        SPLIT_HEAD=0,         # (tuned per launch: Launch.head_launch; 2 set by runtime.verify)
        WS=0,                 # (with SPLIT_HEAD: launch_constants)
        ROWS_P2=1,            # (only read with FLUSH_ORDER: runtime.Kernels._launch)
        # That fold launch takes the (slot, value head) blocks the decode queued, each
        # split into this many programs (each folds every fold_split-th value tile, and
        # each loads the block's records and decays again). One program per block: at
        # batch 256 (16 of 256 rows queued) splits of 2, 4 and 8 were all slower at every
        # warp count (H200, session 11, bench/fold_launch_bench.py: GDN fp32 + NVFP4
        # amortised 0.0921 ms at 1 and 4 warps, 0.0957 / 0.0989 / 0.1045 split; Mamba-2
        # Nano 0.1717 vs 0.1907 / 0.2235 / 0.1945). Splits remain a tuned choice.
        fold_split=1,
        NSPLIT=1, HPP=1, decode_warps=config.num_warps or (
            _pick_num_warps(BV, BK) if decode_template == VALUE_TILES
            # key chunks: 64 chunk elements per thread; 32 with stochastic rounding,
            # whose Philox bits in the flush pass spilled at 64 (ptxas, sm_90, GDN:
            # 255 registers and ~800 bytes of spills with 1 warp, 167 and none with 2);
            # and twice the warps per 16 ring rows past 16: the [BL, BKT] record tiles of
            # each chunk (GDN at L = 32 spilled 100 bytes at one warp with Triton 3.9's
            # ptxas, none at two)
            else max(1, min(8, DBV * BKT * max(1, BL // 16)
                            // (1024 if ckpt.stochastic and fused_flush else 2048)))),
        decode_template=decode_template,
        channel_gate=channel_gate, gate_field=deriv.cumulative_gate if cumulative else "",
        chunk_tensors=chunk_tensors, chunk_code=tuple(chunk_code),
        record_scalar_code=record_scalar_code, record_chunk_code=record_chunk_code,
        gate_rows="[:, None]" if scalar_gate else "", gate_mask="" if scalar_gate else "[:, None]",
        gate_cols=gate_cols,
        replay_weight=print_triton(REPLAY_WEIGHT, weight_names),
        checkpoint_weight=print_triton(CHECKPOINT_WEIGHT, weight_names),
        skip_expr=print_triton(subs(spec.output_skip), names) if spec.output_skip is not None else "",
        gate_expr=print_triton(subs(spec.output_gate), names) if spec.output_gate is not None else "",
        gate_condition=" and ".join(f"HAS_{n}" for n in gate_flags),
        write_value=deriv.written_value_name,
        verify_warps=config.num_warps or (
            _pick_verify_chunk_warps(verify_dbv, BKT) if verify_template == VERIFY_KEY_CHUNKS
            else _pick_verify_warps(BV, BK, not scalar_gate)),
        verify_template=verify_template, verify_dbv=verify_dbv,
        reductions=tuple(r.name for r in reductions.values()),
        draft_code=tuple(draft_code), reduction_code=tuple(reduction_code),
        draft_key_code=tuple(draft_key_code), probe_factors=probe_factors,
        score_factors=score_factors,
        verify_scalars=tuple(sorted(chunk_scalars | set(draft_scalars), key=list(quantities).index)),
        draft_scalars=tuple(draft_scalars),
        gate_tile="[BT]" if scalar_gate else "[BT, BK]",
        draft_weight=print_triton(DRAFT_WEIGHT, {G_t: "G_d", G_n: "G_n" + gate_cols}),
        draft_ck_weight=print_triton(CHECKPOINT_WEIGHT, {G_t: "G_d"}),
        # (for the causal pairs G_d <= G_c: the minimum keeps the others' weights finite)
        pair_weight=print_triton(REPLAY_WEIGHT, {G_t: f"tl.minimum(G_d, G_c{gate_cols})",
                                                 G_j: "G_c" + gate_cols}),
        probe_checkpoint_factor=print_triton(PROBE_CHECKPOINT_FACTOR, {G_n: "G_n"}),
        window_key_factor=print_triton(WINDOW_KEY_FACTOR, {G_n: "G_n" + gate_cols, G_j: "G_d"}),
        # the split at n: the probes' factor in [e^-80, 1], the keys' in [1, e^80], both
        # normal in fp32 (and tf32: its exponent is fp32's; e^-87 is the smallest normal),
        # and a causal pair's product <= 1 per channel; past 80, pair by pair. A
        # non-causal pair's (masked after the product with a select) may overflow to inf
        # or NaN unharmed. (The split at the drafts' mid decay kept both factors within
        # e^±40 but the window product its own probe tile: H100, T = 8, the split at n
        # 1.009x (KDA) and 1.006x (GLA) the verify; session 43, call 2.)
        # The product runs at dot_precision, as the fold: tf32 with bf16 records (whose
        # own rounding is 4x tf32's; KDA's T = 8 outputs moved by ~1e-3 normwise against
        # the pairwise fp32 sums, H200, session 21), tf32x3 with fp32 records (for bf16
        # records too it cost 14 KiB of shared memory and 86 registers at two warps).
        window_span=80.0,
        # H200, KDA and GLA at T = 8, batch 256 (session 21, calls 1-3): the drafts as
        # tiles made GLA's folding launch 1.17x faster (0.469 -> 0.401 ms) and KDA's
        # launches (a delta rule: queries' and keys' rows, [BT, BK] tiles at one warp)
        # slower; GLA's plain launch gained nothing at its tuned four warps
        fold_tile_head=channel_gate and t.update != "delta" and drafts_as_tiles,
        draft_scalar_code=tuple(draft_scalar_code), draft_tile_code=tuple(draft_tile_code),
        draft_gate="t_gate" if scalar_gate else "ht_gate",
        # H100, KDA at T = 8, batch 256 (session 48, calls A-C): the probe rows made the
        # verify 1.017-1.029x faster at the table's launch (cap 224 registers), 1.062x
        # uncapped (0.3363 -> 0.3167 ms); the drafts one at a time had no tile loads to
        # spare at one warp (the standalone head of session 46 found the form)
        probe_rows_head=probe_rows_head, probe_row_code=tuple(probe_row_code),
        probe_reduction_code=tuple(probe_reduction_code), probe_tile_code=tuple(probe_tile_code),
        probe_gate_tensors=probe_gate_tensors, probe_key_tensors=probe_key_tensors,
        state_dtype=config.state_dtype, record_dtype=config.record_dtype,
        ckpt=ckpt, read=read, KH=-(-K // 2), KS=-(-K // NVFP4_BLOCK),
        read_word_keys=_read_word_keys(read, K),
        NB=BK // min(NVFP4_BLOCK, BK),
    )


def solve_squarings(t_max: int) -> int:
    """Squarings of A that (I + A)^-1 = (I - A)(I + A^2)...(I + A^(2^m)) needs for a
    strictly lower triangular A of t_max rows (A^t_max = 0): the product telescopes to
    I - A^(2^(m+1)) over (I + A), so 2^(m+1) >= t_max."""
    return max(0, (t_max - 1).bit_length() - 1)


def _split_probe(role, expr, quantities, hoist, subs, names) -> ProbeFactor | None:
    """`expr` (a probe role's chunk expression, reductions hoisted) as factor * x for one
    raw per-token key-axis input x, the factor free of the key axis; None when the role
    is not of that form (then the verify keeps computing its probes per chunk). GDN's
    query K^-1/2 q / sqrt(sumsq(q) + eps) splits into the factor K^-1/2 / sqrt(red + eps)
    and q; Mamba-2's C into 1 and C."""
    split = _probe_split(expr, quantities, hoist)
    if split is None:
        return None
    x, factor = split
    value_level = any(quantities[s.name].head == "value" for s in factor.free_symbols
                      if s.name in quantities)
    return ProbeFactor(role, x.name, quantities[x.name].head, print_triton(subs(factor), names),
                       value_level)


def _probe_split(expr, quantities, hoist) -> tuple[sympy.Symbol, sympy.Expr] | None:
    """_split_probe's sympy part: (x, factor) with expr == factor * x, or None."""
    for _ in range(len(quantities)):   # derived key-axis quantities down to inputs
        derived = {sym: hoist(quantities[sym.name].expr) for sym in expr.free_symbols
                   if sym.name in quantities and quantities[sym.name].kind == "derived"
                   and quantities[sym.name].axis == "K"}
        if not derived:
            break
        expr = expr.xreplace(derived)
    key_axis = [sym for sym in expr.free_symbols
                if sym.name in quantities and quantities[sym.name].axis == "K"]
    if len(key_axis) != 1:
        return None
    x = key_axis[0]
    q = quantities[x.name]
    if q.kind != "input" or not q.token:
        return None
    factor = sympy.simplify(expr / x)
    if factor.free_symbols & set(key_axis) or sympy.simplify(factor * x - expr) != 0:
        return None
    return x, factor


def expand_inputs(spec: Spec, expr) -> list[sympy.Symbol]:
    """Inputs an expression depends on, through derived quantities."""
    from .derive import expand_derived
    e = expand_derived(spec, expr)
    return sorted((s for s in e.free_symbols if spec.quantities[s.name].kind == "input"),
                  key=lambda s: s.name)
