"""Runtime: load generated kernels for one configuration and call them on torch tensors.

Input: `load(variant, **config)`. Output: a `Kernels` object whose methods launch the
generated Triton kernels. Invariants: every launch is asynchronous and host-sync free
(CUDA-graph safe when the caller passes `out`); every argument is checked for shape,
dtype and device before any state is touched, and errors name the tensor and what was
expected; states are slot-indexed pools and rows whose slot is negative are padding.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.util
import os
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import torch

from .derive import derive
from .emit import GENERATED_DIR
from .errors import ConfigError, InputError
from .plan import (MAX_ORDERED_PROGRAMS, MAX_ORDERED_ROWS, KernelPlan, launch_constants,
                   launch_kind, make_config, make_plan, plan_tiles)
from . import render
from .render import render_module
from .spec import Spec, load_spec, load_variant
from .tuning import FOLD_PROGRAMS_PER_SM, Launch, TuningTable, compile_options, table_for

TORCH_DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
# Storage of the quantised formats (replaygen/formats.py): e4m3 values, packed NVFP4 bytes.
VALUE_DTYPES = {**TORCH_DTYPES, "fp8": torch.float8_e4m3fn, "nvfp4": torch.uint8}
FLOAT_INPUTS = (torch.float32, torch.bfloat16, torch.float16)


def cache_dir() -> Path:
    """Where modules for configurations outside `generated/` are rendered."""
    env = os.environ.get("REPLAYGEN_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "replaygen"


def commit_move_warps(plan) -> int:
    """Warps per program of a verify_folds commit (record moves, compiled without the
    fold): as few as hold its widest field tile ([BT, BVW] or [BT, BK]) at <= 64 elements
    a thread. The launch is one program per (row, value head), each a short chain of
    round trips: the fewer warps, the more of them run at once (Mamba-2 Nano, H200,
    session 19: 24576 programs, 0.026 ms per T = 8 step at four warps)."""
    return max(1, min(8, plan.BT * max(plan.BVW, plan.BK) // (32 * 64)))


@dataclass
class ReplayState:
    """One layer's ReplaySSM state pool: checkpoints, record rings, cursors, weights.

    checkpoint [slots, HV, V, K] in the state precision (NVFP4: [slots, HV, V, ceil(K/2)]
    packed bytes); ring[field] [slots, heads, RING(, width)] in each field's record
    precision, RING = CAP + T_MAX rows (committed records, then a verify's drafts; CAP,
    the most committed records any call leaves, is L with max_drafts >= 2, else L - 1);
    cursor [slots, HV] int32, the number of committed records of each slot and value head
    (all heads of a slot move together); params: the layer's parameter tensors (A_log,
    dt_bias, ...), needed to rebuild records. `aux` holds the precision configuration's
    other tensors, by kernel argument name: "read" (the read copy's values), "read_scale"
    / "ckpt_scale" (fp32 scales), "read_bscale" / "ckpt_bscale" (NVFP4 e4m3 block
    scales) and "flushes" ([slots, HV] int32 flush counters that key stochastic
    rounding); `seed` is the stochastic-rounding seed of this pool. drafted [slots, HV]
    int32: the drafts of the last verify that a commit may still accept (cleared by
    commit, decode, a flush that folds, load_state; with plan.VERIFY_FOLDS the low 8
    bits, and bits 8-15 the ring row of the first draft: `pending_drafts` reads the
    count). fold_queue [2 + slots * (HV + H) + 1 + 2 * slots] int32: scratch between a decode launch whose flush is separate and the fold launch that follows it
    (word 0: the number of queued (slot, value head) blocks whose ring filled, word 1 the
    fold programs that have finished, then the blocks), then one arrival count per (slot,
    key head) for a one-pass flush (plan.onepass_flushes: the last value head of a key
    group to finish streaming writes the token's shared key record), all empty (zero
    counts) between calls; then the decode's launch-order words (Launch.flush_order,
    replaygen/launch_order.py: an epoch word and two buffers of one flag per slot), which
    carry from one decode to the next.
    """

    checkpoint: torch.Tensor
    ring: dict[str, torch.Tensor]
    cursor: torch.Tensor
    params: dict[str, torch.Tensor] = field(default_factory=dict)
    aux: dict[str, torch.Tensor] = field(default_factory=dict)
    seed: int = 0
    drafted: torch.Tensor | None = None
    fold_queue: torch.Tensor | None = None

    @property
    def num_slots(self) -> int:
        return self.checkpoint.shape[0]

    @property
    def device(self) -> torch.device:
        return self.checkpoint.device


def order_word_at(plan: KernelPlan, num_slots: int) -> int:
    """Where the launch order's epoch word sits in ReplayState.fold_queue: after the fold
    queue (2 + slots * HV words) and the one-pass arrival counts (slots * H); its two flag
    buffers follow it (the templates' order_words macro says the same)."""
    return 2 + num_slots * (plan.HV + plan.H)


def fold_queue_words(plan: KernelPlan, num_slots: int) -> int:
    """The int32 words of ReplayState.fold_queue for a pool of num_slots slots."""
    return order_word_at(plan, num_slots) + 1 + 2 * num_slots


def order_flags(state: "ReplayState", plan: KernelPlan) -> torch.Tensor:
    """[2, slots] view of the decode's launch-order flags in state.fold_queue, one buffer per
    epoch (launch_order.flush_first): 1 where the slot's ring fills at its next decode."""
    start = order_word_at(plan, state.num_slots) + 1
    return state.fold_queue[start:start + 2 * state.num_slots].view(2, state.num_slots)


def _import_module(path: Path, name: str):
    mod_name = "replaygen_generated." + name
    if mod_name in sys.modules and getattr(sys.modules[mod_name], "__file__", None) == str(path):
        return sys.modules[mod_name]
    settle_helper_cache_keys()
    spec = importlib.util.spec_from_file_location(mod_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module
    spec.loader.exec_module(module)
    return module


@functools.cache
def settle_helper_cache_keys() -> None:
    """Hash the device helpers (devmath, formats, launch_order) to a fixed point before any
    kernel is hashed, so that a kernel's on-disk cache key is the same in every process.

    A JIT function's hash (JITFunction.cache_key, computed once per process) takes in the
    constexpr globals its callees use (formats._NATIVE, ...) only from callees already
    hashed: Triton 3.6 merges a callee's used_global_vals before it hashes the callee. So
    a kernel hashed first left them out, and one hashed after another kernel had hashed the
    same helpers took them in: the tuner's compile workers (the decode first) and its
    timing process (the workload's other kernels first) keyed Mamba-2 Nano's FP8 decode
    differently, and the timing process compiled every candidate again, ~2 s each (H100,
    session 47 calls 3-4; Triton 3.9 hashes the callee first). The helpers are hashed
    until no hash changes (one round per level of helper calls), each round from scratch."""
    import triton
    from . import devmath, formats, launch_order
    helpers = [fn for mod in (devmath, formats, launch_order) for _, fn in sorted(vars(mod).items())
               if isinstance(fn, triton.runtime.jit.JITFunction)]
    keys = None
    for _ in range(len(helpers) + 1):
        for fn in helpers:
            fn.hash = None
        now = [fn.cache_key for fn in helpers]
        if now == keys:
            return
        keys = now


def module_path(plan: KernelPlan, text: str) -> Path:
    """The committed module if it is current, else a rendered copy in the cache."""
    committed = GENERATED_DIR / plan.spec_name / f"{plan.name}.py"
    if committed.is_file():
        if committed.read_text() == text:
            return committed
        if render.TEMPLATE_DIR == render.PACKAGE_TEMPLATE_DIR:   # (other templates differ by design)
            warnings.warn(f"{committed} is stale; using a freshly rendered copy "
                          "(run `replaygen build` to update it)", stacklevel=3)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = cache_dir() / plan.spec_name / f"{plan.name}__{digest}.py"
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(text)
        tmp.replace(path)
    return path


def load(variant: str | os.PathLike, *, config: str | None = None, L: int | None = None,
         buffer_length: int | None = None, state_dtype: str | None = None,
         record_dtype: str | None = None, block_v: int | None = None,
         num_warps: int | None = None, tuning: TuningTable | os.PathLike | bool | None = None,
         stochastic: bool = False, read_dtype: str | None = None, fp8_scale: str | None = None,
         record_dtypes: dict[str, str] | None = None, max_drafts: int | None = None,
         gate_records: str | None = None, decode_structure: str | None = None,
         verify_folds: bool = False, **dims: int) -> "Kernels":
    """Kernels of one configuration of `variant`: a spec name in specs/, or the path of a
    spec file (a variant under development, or a test fixture).

    Dims use the spec's model-native names (e.g. `H=16, HV=32, K=128, V=128`, or for
    Mamba-2 `nheads=..., headdim=..., ngroups=..., dstate=...`); `config` names one of
    the spec's geometries instead (default: its first). `L` (alias `buffer_length`) is
    the ring length; `state_dtype` the checkpoint format (fp32, bf16, fp16, or a shared
    quantised checkpoint: fp8, nvfp4), `stochastic` stores an fp16/bf16 checkpoint with
    stochastic rounding; `read_dtype` ("fp8" or "nvfp4") adds a low-precision read copy
    that non-flush steps read; `fp8_scale` ("row", "col", "tile") is the fp8 scale
    granularity; `record_dtype` the records' precision and `record_dtypes` per-field
    exceptions (e.g. {"g": "fp32"}).
    `block_v` and `num_warps` override the plan's launch choices (a module of their own,
    launched with exactly those choices). Otherwise launches follow `tuning`: by default
    the table committed next to the kernels (`generated/<variant>/tuning.json`, written by
    `replaygen tune`), looked up per kernel, batch and GPU at call time, with the plan's
    choice wherever it has no entry; a path or a `TuningTable` to use another; False
    for the plan's choice only. A quantised copy's scales are laid out per value tile of
    the plan, so such configurations launch with the plan's tiles, but for the key-chunk
    decode of a read copy (it indexes scales per row; launch_constants checks the tiles).
    `max_drafts` (T_MAX, default 1) is the most draft tokens one `verify` may append;
    it sizes the rings (plan.RING rows) and is part of the kernels' identity.
    `gate_records` ("step" or "cumulative"; default: cumulative for per-channel decays)
    is what the gate record holds, and `decode_structure` ("kchunks" or "vtiles")
    forces the decode kernel's structure (default: the plan's); both exist so that the
    alternatives can be timed against each other (replaygen/plan.py, _gate_records).
    `verify_folds` (max_drafts in 2..L, a plain checkpoint, no read copy): a verify folds
    the committed records of the rows whose drafts would pass L into the checkpoint it
    reads, in a launch of its own (fewer bytes; slower on the H200 so far, bench/NOTES.md
    session 18), instead of the commit folding them.
    """
    if isinstance(variant, os.PathLike) or str(variant).endswith(".toml"):
        spec = load_spec(variant)
    else:
        spec = load_variant(variant)
    if L is not None and buffer_length is not None and L != buffer_length:
        raise InputError("pass the buffer length once (L or buffer_length)")
    L = L if L is not None else buffer_length
    if dims and config is not None:
        raise InputError("pass either dims or config=, not both")
    if not dims:
        named = {c.name: c for c in spec.configs}
        if config is not None and config not in named:
            raise InputError(f"{variant}: unknown config {config!r}; known: {sorted(named)}")
        dims = dict((named[config] if config else spec.configs[0]).dims)
    kcfg = make_config(spec, dims, L, state_dtype, record_dtype, block_v, num_warps,
                       stochastic=stochastic, read_dtype=read_dtype, fp8_scale=fp8_scale,
                       record_dtypes=record_dtypes, max_drafts=max_drafts,
                       gate_records=gate_records, decode_structure=decode_structure,
                       verify_folds=verify_folds)
    deriv = derive(spec)
    plan = make_plan(deriv, kcfg)
    text = render_module(plan, deriv)
    module = _import_module(module_path(plan, text), plan.name)
    if block_v is not None or num_warps is not None or tuning is False:
        table = None     # explicit launch choices are not overridden by a table
    elif tuning is None or tuning is True:
        table = table_for(GENERATED_DIR / plan.spec_name, plan.spec_name)
    elif isinstance(tuning, TuningTable):
        table = tuning
    else:
        table = TuningTable.read(tuning, plan.spec_name)
    return Kernels(spec, plan, module, table)


_DEVICE_NAMES: dict[tuple[str, int | None], str] = {}


def device_name(device: torch.device) -> str:
    """The name a tuning table keys launches by: the CUDA device name (e.g. "NVIDIA H200"),
    "cpu" for the Triton interpreter. Cached: asking the driver costs microseconds."""
    key = (device.type, device.index)
    name = _DEVICE_NAMES.get(key)
    if name is None:
        name = torch.cuda.get_device_name(device) if device.type == "cuda" else device.type
        _DEVICE_NAMES[key] = name
    return name


def table_device_names(device: torch.device, table: TuningTable | None = None) -> list[str]:
    """The GPU names tuned launches are looked up under, in order: REPLAYGEN_TUNING_GPU
    alone when set (any GPU's entries, e.g. to time one GPU's launches on another), else
    the device's own name and then its stand-ins in `table` (TuningTable.stand_ins: tuned
    GPUs of the same compute capability, e.g. the H200 for an H100)."""
    override = os.environ.get("REPLAYGEN_TUNING_GPU")
    if override:
        return [override]
    name = device_name(device)
    if table is None:
        return [name]
    return table.stand_ins(name, capability(device), multiprocessors(device))


def capability(device: torch.device) -> str:
    """The device's compute capability as "major.minor" (the interpreter: its device
    type, so that CPU tables stand in only for each other)."""
    if device.type != "cuda":
        return device.type
    major, minor = torch.cuda.get_device_capability(device)
    return f"{major}.{minor}"


# The Triton interpreter runs programs one after another, as on one multiprocessor: 3
# programs of a queued fold launch there (tuning.FOLD_PROGRAMS_PER_SM per multiprocessor
# on a GPU), so that tests see programs take several blocks and share one.
INTERPRETER_FOLD_PROGRAMS = 3
_FOLD_PROGRAMS: dict[tuple[str, int | None, int | None], int] = {}


def fold_programs(device: torch.device, per_sm: int | None = None) -> int:
    """The most programs a queued fold launch runs: per_sm per multiprocessor (None:
    FOLD_PROGRAMS_PER_SM, or INTERPRETER_FOLD_PROGRAMS in the interpreter, which counts
    as one multiprocessor); cached per device."""
    key = (device.type, device.index, per_sm)
    n = _FOLD_PROGRAMS.get(key)
    if n is None:
        default = FOLD_PROGRAMS_PER_SM if device.type == "cuda" else INTERPRETER_FOLD_PROGRAMS
        n = multiprocessors(device) * (default if per_sm is None else per_sm)
        _FOLD_PROGRAMS[key] = n
    return n


_MULTIPROCESSORS: dict[tuple[str, int | None], int] = {}


def multiprocessors(device: torch.device) -> int:
    """The device's multiprocessors (cached per device; the interpreter: 1)."""
    key = (device.type, device.index)
    n = _MULTIPROCESSORS.get(key)
    if n is None:
        n = (torch.cuda.get_device_properties(device).multi_processor_count
             if device.type == "cuda" else 1)
        _MULTIPROCESSORS[key] = n
    return n


# The fold launch over (rows, value heads) of a commit, flush or materialize splits each
# block over more programs while the grid stays within this many programs per
# multiprocessor (Kernels.fold_grid_split). H200, T = 8 commits with rows staggered
# (bench/commit_split_bench.py, session 25): GLA's blocks of 512 KiB folded 0.1628 ms per
# step unsplit at batch 256 (1024 blocks), 0.1348 split in 2 (2048 programs), 0.1364 in 4;
# at batch 64, 0.0770 -> 0.0394 split in 8 (the best of 1-8), at 128 split 4 and at 512
# unsplit were the best too. With 2048 or more blocks (GDN, KDA at batch 64; Mamba-2
# too at 256) every split lost (the commit 11% to 65% slower: each program reloads the
# block's records and decays, and every program of the grid takes a place on the GPU).
FOLD_GRID_PROGRAMS_PER_SM = 16


class Kernels:
    """The generated kernels of one configuration, with checked entry points."""

    def __init__(self, spec: Spec, plan: KernelPlan, module, tuning: TuningTable | None = None):
        self.spec, self.plan, self.module = spec, plan, module
        self.tuning = tuning
        # Launches forced per kernel name, over the table: `replaygen tune` times its
        # candidates through the very entry points (and lookup) that serving uses.
        self.forced: dict[str, Launch] = {}
        self.forced_fold_grid_split: int | None = None   # over fold_grid_split's rule
        self._launches: dict[tuple, tuple[dict, dict, Launch | None]] = {}
        self.dims = plan.config.dim_map   # model-native dim name -> size
        self.heads = {"key": plan.H, "value": plan.HV, "none": 1}
        self.state_shape = (plan.HV, plan.V, plan.K)
        self.state_dtype = VALUE_DTYPES[plan.state_dtype]
        self.record_dtype = TORCH_DTYPES[plan.record_dtype]
        self.layout = self._state_layout()
        self._consts = dict(module.CONSTEXPRS)
        self._has = {f"HAS_{n}": False for n in plan.optional_flags}
        # Size-based dispatch: batches below this fold every step (see decode()). 0: the
        # H200 suite of 2026-11-29 found folding every step slower than the replay step
        # at every batch (batch 1, GDN: 0.016 vs 0.007 ms), so it never engages by default.
        self.fold_below_rows = 0

    def __repr__(self) -> str:
        return f"<replaygen.Kernels {self.plan.name}>"

    @property
    def name(self) -> str:
        return self.plan.name

    # -- state ---------------------------------------------------------------------
    def new_state(self, num_slots: int, device, **params: torch.Tensor) -> ReplayState:
        """Allocate a pool of `num_slots` states (zero checkpoints, empty rings) for one
        layer whose parameter tensors are `params` (model-native names and shapes)."""
        if not isinstance(num_slots, int) or num_slots < 1:
            raise InputError(f"num_slots must be a positive integer, got {num_slots!r}")
        device = torch.empty(0, device=device).device   # "cuda" -> "cuda:0"
        checked = self._check_params(params, device)
        p = self.plan
        made = {name: torch.zeros((num_slots,) + shape, dtype=dtype, device=device)
                for name, (shape, dtype) in self.layout.items()}
        ring = {}
        for f in p.ring:
            width = () if f.axis == "scalar" else (f.width,)
            # Entries past the cursor are never read; NaN makes any such bug loud.
            ring[f.name] = torch.full((num_slots, self.heads[f.head], p.RING) + width, float("nan"),
                                      dtype=TORCH_DTYPES[f.dtype], device=device)
        # One cursor per (slot, value head): each kernel program owns one.
        cursor = torch.zeros((num_slots, p.HV), dtype=torch.int32, device=device)
        drafted = torch.zeros((num_slots, p.HV), dtype=torch.int32, device=device)
        # A fresh stochastic-rounding seed per pool (host randomness, drawn once here).
        seed = int.from_bytes(os.urandom(4), "little") & 0x7FFFFFFF
        fold_queue = torch.zeros(fold_queue_words(p, num_slots), dtype=torch.int32, device=device)
        return ReplayState(made.pop("ckpt"), ring, cursor, checked, made, seed, drafted, fold_queue)

    def read_copy(self, state: ReplayState) -> dict[str, torch.Tensor]:
        """The read copy's tensors in row order, by suffix: "" the values [slots, HV, V, K]
        (FP8 e4m3; NVFP4 packed bytes [..., KH]), "_scale" its fp32 scales and, for NVFP4,
        "_bscale" its block scales [slots, HV, V, KS], whatever their storage layout: a
        blocked copy (StateFormat.key_block) is viewed with its rows back in order.
        Read-only use (tests, inspection)."""
        f = self.plan.read
        if f is None:
            raise ConfigError(f"{self.name}: this configuration has no read copy")
        blocked = {f.prefix, f.prefix + "_bscale"} if f.key_block else set()   # (_state_layout)
        out = {}
        for name, t in state.aux.items():
            if not name.startswith(f.prefix):
                continue
            if name in blocked:   # [slots, HV, units / B, V, B] -> [slots, HV, V, units]
                t = t.permute(0, 1, 3, 2, 4).reshape(t.shape[0], t.shape[1], t.shape[3], -1)
            out[name[len(f.prefix):]] = t
        return out

    def _state_layout(self) -> dict[str, tuple[tuple[int, ...], torch.dtype]]:
        """Every state tensor past the slot dim, by kernel argument name (see ReplayState):
        (shape, dtype)."""
        p = self.plan
        out = {}
        for f in p.formats:
            if f.kind == "nvfp4":
                out[f.prefix] = (self._rows_shape(f, "KH", p.KH), torch.uint8)
                out[f.prefix + "_scale"] = ((p.HV, p.NV), torch.float32)
                out[f.prefix + "_bscale"] = (self._rows_shape(f, "KS", p.KS), torch.float8_e4m3fn)
                continue
            out[f.prefix] = (self._rows_shape(f, "K", p.K), VALUE_DTYPES[f.dtype])
            if f.kind == "fp8":
                out[f.prefix + "_scale"] = ({"row": (p.HV, p.V), "col": (p.HV, p.NV, p.K),
                                             "tile": (p.HV, p.NV)}[f.scale], torch.float32)
        if p.ckpt.stochastic:
            out["flushes"] = ((p.HV,), torch.int32)
        return out

    def _rows_shape(self, f, unit: str, n: int) -> tuple[int, ...]:
        """Shape past the slot dim of copy f's rows of n `unit`s (templates' row_offsets):
        [HV, V, n], or blocked (StateFormat.key_block) [HV, n / B, V, B]."""
        p = self.plan
        if not f.key_block:
            return (p.HV, p.V, n)
        b = f.units_per_block(unit)
        return (p.HV, n // b, p.V, b)

    def _state_args(self, state: ReplayState) -> dict:
        args = {f"{n}_ptr": t for n, t in state.aux.items()}
        if self.plan.ckpt.stochastic:
            args["sr_seed"] = state.seed
        return args

    def load_state(self, state: ReplayState, slots: torch.Tensor, S: torch.Tensor) -> None:
        """Set the checkpoints of `slots` from full states S [len(slots), HV, V, K] (after
        prefill, say) and empty their rings."""
        self._check_state(state)
        slots = self._check_slots(slots, state, allow_padding=False)
        self._check_tensor("S", S, (slots.shape[0],) + self.state_shape, state.device,
                           FLOAT_INPUTS, contiguous=False)
        if self.plan.ckpt.kind == "plain":   # rounded to nearest (stochastic: at flushes)
            state.checkpoint[slots.long()] = S.to(self.state_dtype)
        if self.plan.quantized and slots.shape[0]:
            # the read copy (or quantised checkpoint) from S itself, as a flush would store it
            src = S.to(torch.float32).contiguous()
            self.module.quantize_kernel[(slots.shape[0], self.plan.HV)](
                slots_ptr=slots, num_slots=state.num_slots, src_ptr=src, ckpt_ptr=state.checkpoint,
                **self._state_args(state), **self._has, **self._consts,
                **compile_options(self.module.NUM_WARPS))
        state.cursor[slots.long()] = 0
        state.drafted[slots.long()] = 0
        # an empty ring does not flush at its next decode (L >= 2): the launch order's
        # flags of these slots, which a previous occupant may have set, cleared in both
        # epochs' buffers (launch_order; stale flags would only cost time)
        order_flags(state, self.plan)[:, slots.long()] = int(self.plan.L < 2)

    def folds_every_step(self, rows: int) -> bool:
        """The size-based dispatch: does a decode of `rows` rows fold every step by default?"""
        return rows < self.fold_below_rows

    def decode(self, state: ReplayState, slots: torch.Tensor, *, out: torch.Tensor | None = None,
               fold_every_step: bool | None = None, **inputs: torch.Tensor) -> torch.Tensor:
        """One ReplaySSM decode step for each row; returns the outputs [rows, HV, V].

        `fold_every_step` makes every row fold its records and the token into the
        checkpoint (cursor back to 0): the conventional step's traffic, for batches too
        small for the replay to pay. None (the default) decides by size: rows below
        `self.fold_below_rows` (measured per configuration, 0 when unmeasured) fold.
        """
        self._check_state(state)
        slots = self._check_slots(slots, state)
        rows = slots.shape[0]
        args, has, dtype = self._check_inputs(inputs, rows, state.device)
        out = self._check_out(out, rows, dtype, state.device)
        if rows:
            consts, launch, chosen = self._launch("replay_decode", rows, state.device)
            fold_all = bool(fold_every_step if fold_every_step is not None
                            else self.folds_every_step(rows))
            if fold_all and consts["ONEPASS_FLUSH"]:
                # folding every step leaves a plain checkpoint (cursor 0): a one-pass flush
                # would leave the token in the ring, so this launch folds in two passes
                consts, launch, chosen = self._launch(
                    "replay_decode", rows, state.device, dataclasses.replace(chosen, onepass_flush=False))
            fused = consts["FUSED_FLUSH"]
            self.module.replay_decode_kernel[(rows, self.plan.HV // consts["HPP"], consts["NSPLIT"])](
                slots_ptr=slots, num_slots=state.num_slots, cursor_ptr=state.cursor,
                drafted_ptr=state.drafted, fold_queue_ptr=state.fold_queue,
                ckpt_ptr=state.checkpoint, **self._state_args(state), **self._ring_args(state), **args,
                **self._param_args(state.params),
                out_ptr=out, stride_out=out.stride(0), **has, **consts,
                FOLD_EVERY_STEP=fold_all, **launch)
            if not fused:
                # the decode appended every row's record and queued the blocks whose ring
                # filled (every block when each step folds): fold those
                self._fold_queued(state, rows, chosen)
        return out

    def _fold(self, state: ReplayState, slots, dst, flush: bool, accepted=None, num_warps=None,
              split: int = 1, kernel: str = "fold"):
        """The fold kernel over (rows, value heads, split): flush, commit or materialize
        (num_warps: in place of the launch's; split: programs per (row, value head), each
        folding every split-th value tile; kernel: whose launch, fold or commit)."""
        consts, launch = self.launch_args(kernel, slots.shape[0], state.device)
        if num_warps is not None:
            launch = {**launch, "num_warps": num_warps}
        split = max(1, min(split, consts["NV"]))
        self.module.fold_kernel[(slots.shape[0], self.plan.HV, split)](
            slots_ptr=slots, num_slots=state.num_slots, cursor_ptr=state.cursor,
            ckpt_ptr=state.checkpoint, **self._state_args(state), **self._ring_args(state),
            **self._param_args(state.params), dst_ptr=dst,
            drafted_ptr=state.drafted, accepted_ptr=slots if accepted is None else accepted,
            fold_queue_ptr=state.fold_queue, FLUSH=flush, COMMIT=accepted is not None,
            QUEUED=False, QSPLIT=split, QSTAGES=None, **self._has, **consts, **launch)

    def _fold_queued(self, state: ReplayState, rows: int, chosen: Launch | None):
        """The fold launch after a decode whose flush is separate: the blocks the decode
        queued, each split into `fold_split` programs' value tiles, taken in turn by a
        grid whose size depends on the batch size only (CUDA graphs), never on how many
        rings filled: at most one program per (block, split), and no more than the GPU
        holds at once (fold_programs). After a decode step with staggered rows one block
        in L is queued: the grid over every (row, value head) this replaced ran L times
        the programs, nearly all of them idle, each taking a place on the GPU (bench/NOTES.md,
        session 11). The decode launch's fold_stages pipelines the fold's tile loop, and
        its fold_programs sets the programs per multiprocessor."""
        consts, launch = self.launch_args("fold", rows, state.device)
        if chosen is not None and chosen.fold_warps is not None:
            launch = {**launch, "num_warps": chosen.fold_warps}   # the decode launch's choice
        split = (chosen.fold_split if chosen is not None and chosen.fold_split is not None
                 else self.plan.fold_split)
        split = min(split, consts["NV"])
        stages = chosen.fold_stages if chosen is not None else None   # (None: a plain tile loop)
        per_sm = chosen.fold_programs if chosen is not None else None
        programs = min(rows * self.plan.HV * split, fold_programs(state.device, per_sm))
        # slots, accepted and dst are unused when QUEUED: int32 and fp32 stand-ins of the
        # types the other modes pass, so the launch specialises as the sm_90 check compiles it
        self.module.fold_kernel[(programs,)](
            slots_ptr=state.cursor, num_slots=state.num_slots, cursor_ptr=state.cursor,
            ckpt_ptr=state.checkpoint, **self._state_args(state), **self._ring_args(state),
            **self._param_args(state.params), dst_ptr=state.fold_queue.view(torch.float32),
            drafted_ptr=state.drafted, accepted_ptr=state.cursor,
            fold_queue_ptr=state.fold_queue, FLUSH=True, COMMIT=False, QUEUED=True,
            QSPLIT=split, QSTAGES=stages, **self._has, **consts, **launch)

    def materialize(self, state: ReplayState, slots: torch.Tensor,
                    out: torch.Tensor | None = None) -> torch.Tensor:
        """The full fp32 states of `slots` (checkpoint folded with the committed records)
        as [rows, HV, V, K]; nothing changes. Padding rows give zeros."""
        self._check_state(state)
        slots = self._check_slots(slots, state)
        shape = (slots.shape[0],) + self.state_shape
        if out is None:
            out = torch.empty(shape, dtype=torch.float32, device=state.device)
        else:
            self._check_tensor("out", out, shape, state.device, (torch.float32,))
        if slots.shape[0]:
            self._fold(state, slots, out, flush=False,
                       split=self.fold_grid_split(slots.shape[0], state.device))
        return out

    def flush(self, state: ReplayState, slots: torch.Tensor) -> None:
        """Fold the committed records of `slots` into their checkpoints; empty the rings."""
        self._check_state(state)
        slots = self._check_slots(slots, state)
        if slots.shape[0]:
            self._fold(state, slots, state.checkpoint, flush=True,
                       split=self.fold_grid_split(slots.shape[0], state.device))

    def conventional_decode(self, S: torch.Tensor, slots: torch.Tensor, *,
                            out: torch.Tensor | None = None, **inputs: torch.Tensor) -> torch.Tensor:
        """The conventional step on a plain pool S [slots, HV, V, K] (updated in place);
        `inputs` holds the per-token inputs and the layer's parameters."""
        self._check_pool(S)
        slots = self._check_slots(slots, S)
        params = {n: inputs.pop(n) for n in [p.name for p in self.plan.params] if n in inputs}
        rows = slots.shape[0]
        args, has, dtype = self._check_inputs(inputs, rows, S.device)
        params = self._check_params(params, S.device)
        out = self._check_out(out, rows, dtype, S.device)
        if rows:
            consts, launch = self.launch_args("conventional_decode", rows, S.device)
            self.module.conventional_decode_kernel[(rows, self.plan.HV, consts["NV"])](
                slots_ptr=slots, num_slots=S.shape[0], state_ptr=S, **args, **self._param_args(params),
                out_ptr=out, stride_out=out.stride(0), **has, **consts, **launch)
        return out

    # -- speculative decoding -------------------------------------------------------
    def verify(self, state: ReplayState, slots: torch.Tensor, *,
               num_drafts: torch.Tensor | None = None, out: torch.Tensor | None = None,
               check: bool = True, **draft_inputs: torch.Tensor) -> torch.Tensor:
        """Outputs [rows, T, HV, V] of each row's draft tokens appended after its
        committed records, by output-only evaluation (the checkpoint is read once for
        all T drafts). The drafts' records go to ring rows past the cursor, and the slot
        remembers how many were drafted, for `commit`. Nothing committed changes, except
        that with load(..., verify_folds=True) a row whose drafts would take it past L
        committed records first folds them into its checkpoint, in a second launch of
        the verify kernel for those rows (a flush of committed records only: the
        materialised state stays the same up to rounding, and the drafts never enter the
        checkpoint); the checkpoint is read there anyway, so that fold costs one write
        where a commit's fold costs a read and a write.

        `draft_inputs` are the model-native inputs with a draft axis, [rows, T, ...],
        T <= max_drafts; rows and drafts must merge (`x.view(rows * T, ...)` works) and
        the dims past them be contiguous. `num_drafts` [rows] int32/int64 gives each
        row's count (default: all T); outputs of drafts past a row's count are zeros,
        padding rows (slot < 0) get zeros, slots outside the pool NaNs. With `check`
        the counts are validated on the host (one sync; InputError if outside [0, T]);
        pass check=False inside a CUDA graph: the kernel clamps counts to [0, T].
        A quantised (fp8/nvfp4) checkpoint is refused: verify reads plain checkpoints.
        """
        self._check_state(state)
        if self.plan.ckpt.kind != "plain":
            raise ConfigError(f"{self.name}: verify reads a plain (fp32/bf16/fp16) checkpoint; "
                              f"a shared {self.plan.ckpt.kind} checkpoint is not supported yet")
        slots = self._check_slots(slots, state)
        rows = slots.shape[0]
        T = self._draft_count(draft_inputs, rows)
        args, has, dtype = self._check_inputs(draft_inputs, rows, state.device, drafts=T)
        num_drafts = self._check_counts("num_drafts", num_drafts, rows, T, state.device, check)
        out = self._check_draft_out(out, rows, T, dtype, state.device)
        if rows and T:
            # the rows that do not fold, then (VERIFY_FOLDS) those that do: the folding
            # launch sees the cursors the first one read (it writes them), and each is
            # compiled without the other's code, with its own launch
            for folding in (False, True) if self.plan.VERIFY_FOLDS else (False,):
                consts, launch, chosen = self._launch("verify_fold" if folding else "verify",
                                                      rows, state.device)
                # Launch.head_launch: the head phase's launch (SPLIT_HEAD 1) leaves its
                # products in a workspace (per call: a CUDA graph keeps its own) for the
                # stream's launch (2), the head's at its own warps where the launch says
                # (head_warps); a folding launch's workspace also holds the fold's weights
                two = bool(consts["SPLIT_HEAD"])
                ws = (torch.empty(rows * self.plan.HV * consts["WS"], dtype=torch.float32,
                                  device=state.device) if two else None)
                for split in (1, 2) if two else (0,):
                    options = (launch if split != 1 or chosen.head_warps is None
                               else {**launch, "num_warps": chosen.head_warps})
                    self.module.verify_kernel[(rows, self.plan.HV // consts["HPP"])](
                        slots_ptr=slots, num_slots=state.num_slots, cursor_ptr=state.cursor,
                        drafted_ptr=state.drafted, ckpt_ptr=state.checkpoint,
                        **self._state_args(state), **self._ring_args(state), **args,
                        **self._param_args(state.params), num_drafts_ptr=num_drafts, T_IN=T,
                        out_ptr=out, stride_out=_token_stride(out, out.shape[1]), ws_ptr=ws,
                        **has, **{**consts, "SPLIT_HEAD": split}, FOLDING=folding, **options)
        return out

    def commit(self, state: ReplayState, slots: torch.Tensor, num_accepted: torch.Tensor, *,
               check: bool = True) -> None:
        """Accept the first num_accepted[r] drafts of each row's last verify: advance the
        cursors (0 keeps only what was committed before), on the device. A row whose
        committed records pass CAP (L with max_drafts >= 2, else L - 1; with
        plan.VERIFY_FOLDS the verify folds first and a commit never needs to) folds them
        into its checkpoint in the same launch, so the next verify's drafts fit the
        ring's CAP + max_drafts rows.
        After a verify that folded, the accepted drafts' records move to the ring's start.
        Clears the pending drafts.

        With `check` (one sync) a count outside [0, drafts of the slot's last verify]
        raises InputError before anything is written; a verify's drafts stop being
        pending at the next commit, decode, load_state or folding flush of the slot.
        With check=False (CUDA graphs) the kernel clamps the count to that range, so a
        bad count accepts at most the drafts actually verified and never corrupts state.
        """
        self._check_state(state)
        slots = self._check_slots(slots, state)
        rows = slots.shape[0]
        num_accepted = self._check_counts("num_accepted", num_accepted, rows, self.plan.T_MAX,
                                          state.device, check=False)
        if check and rows:
            valid = (slots >= 0) & (slots < state.num_slots)
            pending = self.pending_drafts(state)[slots.long().clamp(0, state.num_slots - 1)]
            bad = valid & ((num_accepted < 0) | (num_accepted > pending))
            if bool(bad.any()):
                r = int(bad.nonzero()[0, 0])
                raise InputError(
                    f"'num_accepted' of row {r} (slot {int(slots[r])}) is {int(num_accepted[r])}, "
                    f"but that slot has {int(pending[r])} pending drafts (accept 0..{int(pending[r])};"
                    " drafts are pending from a verify until the slot's next commit, decode, "
                    "folding flush or load_state)")
        if rows:
            if self.plan.VERIFY_FOLDS:   # the commit only moves records (compiled without the fold)
                self._fold(state, slots, state.checkpoint, flush=True, accepted=num_accepted,
                           num_warps=commit_move_warps(self.plan))
            else:
                self._fold(state, slots, state.checkpoint, flush=True, accepted=num_accepted,
                           split=self.fold_grid_split(rows, state.device, "commit"),
                           kernel="commit")

    def fold_grid_split(self, rows: int, device, kernel: str = "fold") -> int:
        """Programs per (row, value head) of the fold launch of a commit (kernel "commit")
        or a flush or materialize ("fold"): `forced_fold_grid_split` if set (the
        benchmarks' sweeps), else the largest power of two, up to the launch's value
        tiles, that keeps the grid within FOLD_GRID_PROGRAMS_PER_SM programs per
        multiprocessor (1 when the rows' blocks alone reach that)."""
        if self.forced_fold_grid_split is not None:
            return self.forced_fold_grid_split
        device = torch.device(device)
        limit = multiprocessors(device) * FOLD_GRID_PROGRAMS_PER_SM
        tiles = self.launch_args(kernel, rows, device)[0]["NV"]
        split = 1
        while 2 * split <= tiles and rows * self.plan.HV * 2 * split <= limit:
            split *= 2
        return split

    def pending_drafts(self, state: ReplayState) -> torch.Tensor:
        """[slots] the drafts of each slot's last verify that a commit may still accept."""
        count = state.drafted[:, 0]
        return count & 255 if self.plan.VERIFY_FOLDS else count

    def snapshot_shape(self, rows: int) -> tuple[int, ...]:
        """Shape of the conventional path's per-draft state snapshots for `rows` rows."""
        return (rows, self.plan.T_MAX) + self.state_shape

    def conventional_verify(self, S: torch.Tensor, slots: torch.Tensor, snapshots: torch.Tensor, *,
                            num_drafts: torch.Tensor | None = None, out: torch.Tensor | None = None,
                            check: bool = True, **inputs: torch.Tensor) -> torch.Tensor:
        """The conventional speculative step on a plain pool S [slots, HV, V, K] (serving
        engines' way, the baseline and a fallback): the state after each draft is written
        to snapshots [rows, max_drafts, HV, V, K] (dtype of S; one state write per draft);
        S is not changed. Returns the outputs [rows, T, HV, V] (as `verify`); `inputs`
        holds the draft inputs [rows, T, ...] and the layer's parameters."""
        self._check_pool(S)
        slots = self._check_slots(slots, S)
        rows = slots.shape[0]
        params = {n: inputs.pop(n) for n in [p.name for p in self.plan.params] if n in inputs}
        T = self._draft_count(inputs, rows)
        args, has, dtype = self._check_inputs(inputs, rows, S.device, drafts=T)
        params = self._check_params(params, S.device)
        self._check_tensor("snapshots", snapshots, self.snapshot_shape(rows), S.device, (S.dtype,))
        num_drafts = self._check_counts("num_drafts", num_drafts, rows, T, S.device, check)
        out = self._check_draft_out(out, rows, T, dtype, S.device)
        if rows and T:
            self.module.conventional_verify_kernel[(rows, self.plan.HV, self.plan.NV)](
                slots_ptr=slots, num_slots=S.shape[0], state_ptr=S, **args, **self._param_args(params),
                num_drafts_ptr=num_drafts, T_IN=T, snap_ptr=snapshots, out_ptr=out,
                stride_out=_token_stride(out, out.shape[1]), **has, **self._consts,
                **compile_options(self.module.NUM_WARPS))
        return out

    def conventional_commit(self, S: torch.Tensor, slots: torch.Tensor, snapshots: torch.Tensor,
                            num_accepted: torch.Tensor, *, check: bool = True) -> None:
        """Make snapshots[r, a - 1] the state of slots[r] (a = num_accepted[r]; 0 keeps
        S[slot]). With `check` (one sync) a count outside [0, max_drafts] raises InputError;
        the kernel clamps to that range. Accepting more drafts than the last
        conventional_verify computed installs a stale snapshot: the caller owns that."""
        self._check_pool(S)
        slots = self._check_slots(slots, S)
        rows = slots.shape[0]
        self._check_tensor("snapshots", snapshots, self.snapshot_shape(rows), S.device, (S.dtype,))
        num_accepted = self._check_counts("num_accepted", num_accepted, rows, self.plan.T_MAX,
                                          S.device, check)
        if rows:
            self.module.conventional_select_kernel[(rows, self.plan.HV, self.plan.NV)](
                slots_ptr=slots, num_slots=S.shape[0], state_ptr=S, snap_ptr=snapshots,
                accepted_ptr=num_accepted, **self._has, **self._consts,
                **compile_options(self.module.NUM_WARPS))

    # -- launch configurations ---------------------------------------------------------
    def launch_args(self, kernel: str, rows: int, device, launch: Launch | None = None):
        """(constexpr arguments, launch options) of `kernel` for a launch of `rows` rows on
        `device`: `launch` if given (or forced for this kernel in `self.forced`, the tuner's
        candidates), else the tuning table's entry
        for this configuration, kernel, batch bucket and GPU, else the plan's choice.
        Memoised per (kernel, rows, device): a dict lookup per call after the first."""
        consts, options, _ = self._launch(kernel, rows, device, launch)
        return consts, options

    def tabled_launch(self, kernel: str, rows: int, device) -> Launch | None:
        """The tuning table's launch of `kernel` for `rows` rows on `device`: table_launch
        under the GPU of table_device_names (the device's own name, then its stand-ins)
        whose entry serves `rows` (TuningTable.serving_order); None: the plan's."""
        return next(self._tabled(kernel, rows, device), (None, None))[1]

    def tuned_gpu(self, device, kernel: str = "replay_decode", rows: int = 1) -> str | None:
        """The GPU whose entry `kernel`'s launches of `rows` rows on `device` take (the
        device's own, a stand-in of the same compute capability, or REPLAYGEN_TUNING_GPU's),
        or None where no GPU of those has one for this configuration: the plan's launch."""
        return next(self._tabled(kernel, rows, device), (None, None))[0]

    def _tabled(self, kernel: str, rows: int, device):
        """(GPU name, launch) of every GPU of table_device_names with an entry, the one
        that serves `rows` first (TuningTable.serving_order)."""
        if self.tuning is None:
            return
        found = [(gpu, *entry) for gpu in table_device_names(torch.device(device), self.tuning)
                 if (entry := self._table_entry(kernel, rows, gpu)) is not None]
        for gpu, _, launch in TuningTable.serving_order(found, rows):
            yield gpu, launch

    def _launch(self, kernel: str, rows: int, device, launch: Launch | None = None):
        """launch_args, and the Launch chosen (None: the plan's), whose other choices
        (a decode's `fold_warps`) belong to the launches that follow it."""
        device = torch.device(device)
        launch = launch or self.forced.get(kernel)
        key = (kernel, rows, str(device), launch)
        hit = self._launches.get(key)
        if hit is not None:
            return hit
        if launch is None and self.tuning is not None:
            # (a quantised copy's scales are stored per plan.BV-row tile: launch_constants
            # refuses a tuned launch that would read or write them in another layout, so a
            # value-tile launch of a read copy with tile scales keeps the plan's BV, and one
            # with row scales may retile. Until session 26 this lookup skipped every
            # quantised configuration but the key-chunk decode of a read copy: KDA's and
            # GLA's read-copy decodes, and every read copy's fold and conventional
            # launches, ran the plan's whatever the tables said)
            launch = self.tabled_launch(kernel, rows, device)
        if launch is None and kernel in ("verify_fold", "commit"):   # untuned: the verify's / fold's
            base = self._launch(launch_kind(kernel), rows, device)
            if base[2] is None:   # (the plan's launch: its constants serve both)
                return base
            # a tuned Launch, whose constants follow from this kernel's rules (a folding
            # verify's workspace also holds the fold's weights: launch_constants' WS)
            launch = base[2]
        if launch is None:
            # the plan's own launch, through the same rules as a tuned one (for the kernels
            # whose tiles the module's CONSTEXPRS hold, this reproduces them: a test checks)
            bv, bkt, warps = plan_tiles(self.plan, kernel)
            hit = ({**self._consts, **launch_constants(self.plan, kernel, bv, bkt)},
                   compile_options(warps), None)
        else:
            hit = ({**self._consts, **launch.constants(self.plan, kernel)},
                   launch.options(), launch)
        if hit[0].get("FLUSH_ORDER"):
            # launch_order.flush_first holds one flag per row of this launch: a power of
            # two of rows (one compile per power of two); a larger launch, or one whose
            # programs would overflow the epoch word's count, keeps grid order
            ordered = (rows <= MAX_ORDERED_ROWS
                       and rows * self.plan.HV // hit[0]["HPP"] * hit[0]["NSPLIT"] <= MAX_ORDERED_PROGRAMS)
            hit[0].update({"ROWS_P2": 1 << max(rows - 1, 0).bit_length()} if ordered
                          else {"FLUSH_ORDER": 0})
        self._launches[key] = hit
        return hit

    def table_launch(self, kernel: str, rows: int, gpu: str) -> Launch | None:
        """The tuning table's launch of `kernel` for `rows` rows on `gpu` (None: untuned,
        the plan's): TuningTable.launch (below every tabled batch, a decode's entry with
        its split raised for the fewer rows), a verify_folds verify falling back to the
        plain configuration's."""
        entry = self._table_entry(kernel, rows, gpu)
        return None if entry is None else entry[1]

    def _table_entry(self, kernel: str, rows: int, gpu: str) -> tuple[int, Launch] | None:
        """(tabled batch, table_launch's launch), or None."""
        if self.tuning is None:
            return None
        found = self.tuning.served(self.plan, kernel, gpu, rows)
        if found is None and kernel == "verify" and self.plan.VERIFY_FOLDS:
            # the plain rows' verify is the same kernel as without verify_folds (but
            # for CAP and RING): untuned, it takes that configuration's launch
            plain = dataclasses.replace(self.plan.config, verify_folds=False).name
            found = self.tuning.served(self.plan, kernel, gpu, rows, config=plain)
        return found

    def warmup(self, state: ReplayState, batch_sizes, *, pool: torch.Tensor | None = None,
               dtype: torch.dtype = torch.bfloat16, slots_dtype: torch.dtype = torch.int32) -> int:
        """Compile, ahead of time, every launch configuration that decode, flush (and
        conventional_decode, when a state `pool` is given; verify of max_drafts drafts and
        commit, for a configuration built for drafts) will use for these batch sizes,
        so that capturing them in a CUDA graph never compiles. The launches use padding
        rows only (slot -1): no state is read or written. Triton specialises on argument
        properties too (integers equal to 1 or divisible by 16, pointer alignment), so pass
        the `state`/`pool` the model will use, and the inputs' and slots' dtypes (a verify
        of fewer drafts than max_drafts may specialise again). Returns the number of
        distinct launch configurations seen."""
        self._check_state(state)
        seen = set()
        T = self.plan.T_MAX
        for rows in sorted(set(batch_sizes)):
            slots = torch.full((rows,), -1, dtype=slots_dtype, device=state.device)
            inputs = {q.name: torch.zeros((rows,) + self.shape_of(q), dtype=dtype, device=state.device)
                      for q in self.spec.inputs()}
            out = torch.empty((rows, self.plan.HV, self.plan.V), dtype=dtype, device=state.device)
            self.decode(state, slots, out=out, **inputs)
            self.flush(state, slots)
            kernels = [("replay_decode", 1), ("fold", self.fold_grid_split(rows, state.device))]
            if pool is not None:
                self.conventional_decode(pool, slots, out=out, **inputs, **state.params)
                kernels.append(("conventional_decode", 1))
            if T > 1:
                drafts = {q.name: torch.zeros((rows, T) + self.shape_of(q), dtype=dtype,
                                              device=state.device) for q in self.spec.inputs()}
                none = torch.zeros((rows,), dtype=torch.int32, device=state.device)
                self.verify(state, slots, num_drafts=none, check=False, **drafts)
                self.commit(state, slots, none, check=False)
                kernels += [("verify", 1)] + ([("verify_fold", 1)] if self.plan.VERIFY_FOLDS else [
                    ("commit", self.fold_grid_split(rows, state.device, "commit"))])
            for k, split in kernels:
                consts, launch = self.launch_args(k, rows, state.device)
                seen.add((k, consts["BV"], split, tuple(sorted(launch.items()))))
        return len(seen)

    # -- checks ---------------------------------------------------------------------
    def _check_pool(self, S):
        if not isinstance(S, torch.Tensor) or S.dim() != 4 or tuple(S.shape[1:]) != self.state_shape:
            raise InputError(f"S must be a state pool [slots, {', '.join(map(str, self.state_shape))}]"
                             f", got {_describe(S)}")
        if S.dtype not in FLOAT_INPUTS or not S.is_contiguous():
            raise InputError(f"S must be a contiguous fp32/bf16/fp16 tensor, got {_describe(S)}")

    def _draft_count(self, inputs, rows) -> int:
        """T of the draft inputs [rows, T, ...] (the first present one; all are then
        checked against it), at most max_drafts."""
        present = [(n, t) for n, t in inputs.items() if isinstance(t, torch.Tensor)]
        if not present:
            return 0   # _check_inputs reports the missing inputs
        name, t = present[0]
        native = {q.name: self.shape_of(q) for q in self.spec.inputs()}.get(name)
        if native is None:
            return 0   # an unknown input: _check_inputs names it
        if t.dim() != 2 + len(native):
            raise InputError(f"'{name}' must have a draft axis: [rows, T, {', '.join(map(str, native))}]"
                             f", got {_describe(t)}")
        T = t.shape[1]
        if T > self.plan.T_MAX:
            raise InputError(f"'{name}' holds T = {T} drafts per row, but these kernels take at most "
                             f"max_drafts = {self.plan.T_MAX} (load(..., max_drafts=...))")
        return T

    def _check_counts(self, name, counts, rows, hi, device, check):
        """A per-row count tensor [rows] int32/int64 (None: hi for every row); with
        `check`, its values in [0, hi] (one host sync)."""
        if counts is None:
            return torch.full((rows,), hi, dtype=torch.int32, device=device)
        self._check_tensor(name, counts, (rows,), device, (torch.int32, torch.int64))
        if check and rows and bool(((counts < 0) | (counts > hi)).any()):
            raise InputError(f"'{name}' must lie in [0, {hi}], got {counts.tolist()}")
        return counts

    def _check_draft_out(self, out, rows, T, dtype, device):
        shape = (rows, T, self.plan.HV, self.plan.V)
        if out is None:
            return torch.empty(shape, dtype=dtype, device=device)
        self._check_tensor("out", out, shape, device, FLOAT_INPUTS, contiguous=False)
        _check_merge("out", out)
        return out

    def shape_of(self, q) -> tuple[int, ...]:
        """Model-native shape (no batch dim) of an input or parameter `Quantity`."""
        return tuple(self.dims[d] for d in q.shape)

    def _check_tensor(self, name, t, shape, device, dtypes, contiguous=True, inner=False):
        if not isinstance(t, torch.Tensor):
            raise InputError(f"'{name}' must be a torch.Tensor of shape {list(shape)}, got {type(t).__name__}")
        if tuple(t.shape) != tuple(shape):
            raise InputError(f"'{name}' must have shape {list(shape)}, got {list(t.shape)}")
        if not _same_device(t.device, torch.device(device)):
            raise InputError(f"'{name}' must be on {device}, got {t.device}")
        if t.dtype not in dtypes:
            raise InputError(f"'{name}' must have dtype in {[str(d) for d in dtypes]}, got {t.dtype}")
        if contiguous and not t.is_contiguous():
            raise InputError(f"'{name}' must be contiguous")
        if inner and t.dim() > 1 and t.shape[0] > 0 and t[0].numel() > 1 and not t[0].is_contiguous():
            raise InputError(f"'{name}' must be contiguous past its batch dim (strides {t.stride()})")

    def _check_state(self, state):
        if not isinstance(state, ReplayState):
            raise InputError(f"state must be a ReplayState from new_state(), got {type(state).__name__}")
        tensors = {"ckpt": state.checkpoint, **state.aux}
        if set(tensors) != set(self.layout):
            raise InputError(f"state belongs to another configuration (tensors {sorted(tensors)}, "
                             f"expected {sorted(self.layout)} for {self.name})")
        for name, (shape, dtype) in self.layout.items():
            t = tensors[name]
            if tuple(t.shape) != (state.num_slots,) + shape or t.dtype != dtype:
                raise InputError(f"state belongs to another configuration ({name}: {_describe(t)}, "
                                 f"expected [slots, {', '.join(map(str, shape))}] {dtype})")
        queue = fold_queue_words(self.plan, state.num_slots)
        q = state.fold_queue
        if not isinstance(q, torch.Tensor) or q.dtype != torch.int32 or q.dim() != 1 or q.numel() < queue \
                or q.device != state.device:
            # the decode's fold queue, a one-pass flush's arrival counts and the launch
            # order's words live there
            raise InputError(f"state.fold_queue must be a zeroed int32 tensor of {queue} elements on "
                             f"{state.device} (2 + slots * (HV + H) + 1 + 2 * slots), got {_describe(q)}; "
                             f"make states with new_state()")
        rows = {n: t.shape[2] for n, t in state.ring.items()}
        if set(rows.values()) != {self.plan.RING} or state.drafted is None:
            raise InputError(f"state belongs to another configuration (ring rows {rows}, expected "
                             f"{self.plan.RING} = {self.plan.CAP} committed + max_drafts with L = {self.plan.L}, "
                             f"max_drafts = {self.plan.T_MAX})")

    def _check_slots(self, slots, pool, allow_padding=True):
        device = pool.device
        if not isinstance(slots, torch.Tensor) or slots.dim() != 1 or slots.dtype not in (torch.int32, torch.int64):
            raise InputError(f"'slots' must be a 1-D int32/int64 tensor, got {_describe(slots)}")
        if slots.device != device:
            raise InputError(f"'slots' must be on {device}, got {slots.device}")
        if not allow_padding and slots.numel() and bool((slots < 0).any()):
            raise InputError("'slots' may not hold padding (negative) entries here")
        return slots.contiguous()

    def _check_params(self, params, device):
        want = {p.name: p for p in self.spec.params()}
        missing = sorted(set(want) - set(params))
        extra = sorted(set(params) - set(want))
        if missing or extra:
            raise InputError(f"{self.spec.name} parameters: missing {missing}, unknown {extra}; "
                             f"expected {sorted(want)}")
        out = {}
        for n, q in want.items():
            t = params[n]
            shape = self.shape_of(q)
            if isinstance(t, torch.Tensor) and tuple(t.shape) != shape and t.numel() == _prod(shape):
                t = t.reshape(shape)   # e.g. KDA's dt_bias stored flat as [HV*K]
            self._check_tensor(n, t, shape, device, FLOAT_INPUTS)
            out[n] = t
        return out

    def _check_inputs(self, inputs, rows, device, drafts=None):
        """Per-token inputs [rows, ...]; with `drafts` = T, draft inputs [rows, T, ...]
        whose rows and drafts merge (the kernels index draft i of row r as r * T + i)."""
        want = {q.name: q for q in self.spec.inputs()}
        unknown = sorted(set(inputs) - set(want))
        missing = sorted(n for n, q in want.items() if not q.optional and inputs.get(n) is None)
        if unknown or missing:
            raise InputError(f"{self.spec.name} inputs: missing {missing}, unknown {unknown}; "
                             f"expected {sorted(want)} (parameters belong to new_state())")
        args, has, dtype, absent = {}, {}, None, []
        for n, q in want.items():
            t = inputs.get(n)
            if t is None:
                has[f"HAS_{n}"] = False
                absent.append(n)
                continue
            lead = (rows,) if drafts is None else (rows, drafts)
            self._check_tensor(n, t, lead + self.shape_of(q), device, FLOAT_INPUTS,
                               contiguous=False, inner=drafts is None)
            if drafts is not None:
                _check_merge(n, t)
            dtype = dtype or t.dtype
            args[f"{n}_ptr"], args[f"stride_{n}"] = t, _token_stride(t, drafts)
            if q.optional:
                has[f"HAS_{n}"] = True
        present = next(t for t in inputs.values() if t is not None)
        for n in absent:
            # An absent optional input is never read (its HAS_ flag is False): any valid
            # pointer will do, and reusing an input allocates nothing (CUDA graphs).
            args[f"{n}_ptr"], args[f"stride_{n}"] = present, 0
        return args, has, dtype

    def _check_out(self, out, rows, dtype, device):
        shape = (rows, self.plan.HV, self.plan.V)
        if out is None:
            return torch.empty(shape, dtype=dtype, device=device)
        self._check_tensor("out", out, shape, device, FLOAT_INPUTS, contiguous=False, inner=True)
        return out

    def _ring_args(self, state):
        return {f"ring_{n}_ptr": t for n, t in state.ring.items()}

    @staticmethod
    def _param_args(params):
        return {f"{n}_ptr": t for n, t in params.items()}


def _same_device(a: torch.device, b: torch.device) -> bool:
    """'cuda' and 'cuda:0' are the same device when 0 is the current one."""
    if a.type != b.type:
        return False
    if a.type == "cuda":
        current = torch.cuda.current_device()
        return (a.index if a.index is not None else current) == (
            b.index if b.index is not None else current)
    return True


def _token_stride(t, drafts):
    """Elements from one token to the next: the batch stride of a decode input; the draft
    stride of a draft input (with one draft per row, the row stride)."""
    return t.stride(0) if drafts is None or drafts == 1 else t.stride(1)


def _check_merge(name, t):
    """t [rows, T, ...]: the dims past T contiguous, and rows and drafts one axis (the
    row stride is T times the draft stride), so element (r, i) is token r * T + i."""
    inner = t[0, 0] if t.shape[0] and t.shape[1] else None
    if inner is not None and inner.numel() > 1 and not inner.is_contiguous():
        raise InputError(f"'{name}' must be contiguous past its draft dim (strides {t.stride()})")
    if t.shape[0] > 1 and t.shape[1] > 1 and t.stride(0) != t.shape[1] * t.stride(1):
        raise InputError(f"'{name}' [rows, T, ...] must have rows and drafts mergeable "
                         f"(stride(0) == T * stride(1)), got strides {t.stride()}")


def _prod(shape):
    out = 1
    for s in shape:
        out *= s
    return out


def _describe(t) -> str:
    if isinstance(t, torch.Tensor):
        return f"{t.dtype} tensor of shape {list(t.shape)} on {t.device}"
    return type(t).__name__
