"""GPU measurement machinery shared by `replaygen tune` and `replaygen bench`.

Input: the `Kernels` of one configuration, a CUDA device, batch sizes.
Output: median milliseconds of launches of the real entry points (`decode`, `flush`,
`conventional_decode`) replayed from CUDA graphs, or launched eagerly; the provenance
of a run (GPU, driver, versions, commit, command, date).
Invariants: only throwaway buffers allocated here are ever launched on (never a caller's
state: no autotuning on live state); every ring row a timed launch may read holds a
real record, written by real decode steps; each timed launch is preceded by an L2
flush (a 256 MiB write), so small batches are not timed out of a warm cache; setup work
(resetting cursors) runs before the start event, outside the timed interval.
"""
from __future__ import annotations

import datetime
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

from .errors import ReplaygenError

ROOT = Path(__file__).resolve().parent.parent


def require_cuda(command: str) -> torch.device:
    """The CUDA device, or a clear refusal: timings in the Triton interpreter mean nothing."""
    if not torch.cuda.is_available():
        raise ReplaygenError(
            f"`replaygen {command}` times kernels on a CUDA GPU and none is available here "
            "(torch.cuda.is_available() is False); it does not run on the CPU or in the Triton "
            "interpreter. Run it on the GPU machine (see bench/README.md).")
    if os.environ.get("TRITON_INTERPRET") == "1":
        raise ReplaygenError(f"`replaygen {command}` cannot time kernels with TRITON_INTERPRET=1; "
                             "unset it")
    return torch.device("cuda", torch.cuda.current_device())


def commit() -> str:
    """The commit measured: REPLAYGEN_COMMIT when set (a copied tree's .git may be stale,
    as on the lent GPU machine), else git's HEAD (+dirty)."""
    if os.environ.get("REPLAYGEN_COMMIT"):
        return os.environ["REPLAYGEN_COMMIT"]
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
    except OSError:
        out, dirty = "", ""
    out = out or os.environ.get("REPLAYGEN_COMMIT", "unknown")
    return out + ("+dirty" if dirty else "")


def environment(argv: list[str] | None = None) -> dict:
    """Provenance of a run: GPU name, compute capability, multiprocessors and driver,
    torch/triton/Python versions, the installed external baselines' package versions,
    commit, command line and UTC date."""
    import triton
    meta = dict(gpu=torch.cuda.get_device_name() if torch.cuda.is_available() else "cpu",
                driver="unknown", torch=torch.__version__, triton=triton.__version__,
                python=sys.version.split()[0], commit=commit(),
                command="replaygen " + " ".join(sys.argv[1:] if argv is None else argv),
                date=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    if torch.cuda.is_available():
        # what decides whether this GPU's tuned launches can serve another GPU
        # (TuningTable.stand_ins): the compute capability, then the multiprocessor count
        props = torch.cuda.get_device_properties(torch.cuda.current_device())
        meta["capability"] = f"{props.major}.{props.minor}"
        meta["multiprocessors"] = props.multi_processor_count
    # the external baselines' packages: their speed changes between releases (GDN's fla
    # conventional step at batch 256 was 0.291 ms in session 4 and 0.261 in session 5)
    from importlib import metadata
    for package in ("fla-core", "vllm", "sglang", "flashinfer-python"):
        try:
            meta.setdefault("packages", {})[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            pass
    try:
        meta["driver"] = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=20).stdout.strip().splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        pass
    return meta


class Timer:
    """Median ms of `fn` over `reps` timed runs, each preceded by `setup` and an L2 flush.

    graph=True captures fn once in a CUDA graph (after one eager run, which compiles) and
    times graph replays, as a serving engine runs decode; graph=False times the Python
    launches themselves, so launch overhead shows at small batch. The number of reps
    shrinks for long runs (at least `min_reps`) so that one timing costs about
    `budget_ms` of GPU time.
    """

    def __init__(self, device: torch.device, reps: int = 20, warmup: int = 2,
                 min_reps: int = 5, budget_ms: float = 60.0):
        self.device = device
        self.reps, self.warmup, self.min_reps, self.budget_ms = reps, warmup, min_reps, budget_ms
        self.l2 = torch.empty(256 << 20, dtype=torch.int8, device=device)
        self.events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                       for _ in range(reps)]

    def __call__(self, fn, setup=None, graph: bool = True, steps: int = 1) -> float:
        """Median ms per step of `fn` (which runs `steps` steps)."""
        setup = setup or (lambda: None)
        setup()
        fn()                      # compile (or load from Triton's cache) outside any capture
        torch.cuda.synchronize()
        run = fn
        g = None
        if graph:
            g = torch.cuda.CUDAGraph()
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                setup()
                fn()
            torch.cuda.current_stream().wait_stream(side)
            setup()
            with torch.cuda.graph(g):
                fn()
            run = g.replay
        first = self._time(run, setup, 1)[0]
        reps = max(self.min_reps, min(self.reps, int(self.budget_ms / max(first, 1e-3))))
        for _ in range(self.warmup):
            setup()
            run()
        times = self._time(run, setup, reps)
        del g
        return statistics.median(times) / steps

    def _time(self, run, setup, reps):
        for start, end in self.events[:reps]:
            setup()
            self.l2.zero_()
            start.record()
            run()
            end.record()
        torch.cuda.synchronize()
        return [s.elapsed_time(e) for s, e in self.events[:reps]]


def copy_bandwidth(device: torch.device, timer: Timer, nbytes: int = 1 << 30) -> dict:
    """Device-to-device copy of `nbytes`, timed eagerly and from a graph, in bytes (read +
    write) per second: the ceiling the kernels' achieved bandwidth is compared with."""
    a = torch.empty(nbytes // 4, dtype=torch.float32, device=device).normal_()
    b = torch.empty_like(a)
    out = {}
    for mode, graph in (("eager", False), ("graph", True)):
        out[mode] = 2 * nbytes / (timer(lambda: b.copy_(a), graph=graph) * 1e-3)
    out["best"] = max(out["eager"], out["graph"])
    del a, b
    return out


class Workload:
    """Throwaway buffers for one configuration: a pool of `num_slots` slots whose rings hold
    L - 1 real records each (written by real decode steps, so any cursor 0..L-1 is legal),
    bf16 inputs and outputs for up to `num_slots` rows, and a plain state pool for the
    conventional step. Rows r < rows use slots 0..rows-1 (slices of one buffer, so every
    batch size launches with the same argument specialisation).

    init=False allocates without initialising (compile-only workers: contents never matter,
    and the launches use padding rows only, up to `rows` of them).
    """

    def __init__(self, kern, num_slots: int, device, *, seed: int = 0, init: bool = True,
                 input_dtype: torch.dtype = torch.bfloat16, rows: int = 0):
        self.kern, self.device, self.num_slots = kern, torch.device(device), num_slots
        max_rows = max(num_slots, rows)
        gen = torch.Generator(device=self.device).manual_seed(seed)
        self.gen = gen

        def draw(shape, scale=1.0, dtype=torch.float32):
            if not init:
                return torch.zeros(shape, dtype=dtype, device=self.device)
            return (torch.randn(shape, generator=gen, device=self.device) * scale).to(dtype)

        p = kern.plan
        self.params = {q.name: draw(kern.shape_of(q), 0.5) for q in kern.spec.params()}
        self.inputs = {q.name: draw((max_rows,) + kern.shape_of(q), 1.0, input_dtype)
                       for q in kern.spec.inputs()}
        self.out = torch.empty((max_rows, p.HV, p.V), dtype=input_dtype, device=self.device)
        # speculative configurations: T_MAX drafts per row ([rows, T, ...] inputs)
        self.drafts = ({q.name: draw((max_rows, p.T_MAX) + kern.shape_of(q), 1.0, input_dtype)
                        for q in kern.spec.inputs()} if p.T_MAX > 1 else {})
        self.all_slots = torch.arange(num_slots, dtype=torch.int32, device=self.device)
        self.accept_all = torch.full((max_rows,), p.T_MAX, dtype=torch.int32, device=self.device)
        self.padding = torch.full((max_rows,), -1, dtype=torch.int32, device=self.device)
        self.state = kern.new_state(num_slots, self.device, **self.params)
        self.pool = draw((num_slots,) + kern.state_shape, 0.5, kern.state_dtype)
        self.snapshots = self.draft_out = None   # conventional_spec's, made at its first call
        if init:
            kern.load_state(self.state, self.all_slots, draw((num_slots,) + kern.state_shape, 0.5))
            for _ in range(p.L - 1):      # real records in ring rows 0..L-2 of every slot
                self.decode(num_slots)
        L = p.L
        self.stagger = (torch.arange(num_slots, dtype=torch.int32, device=self.device) % L
                        ).view(-1, 1).expand_as(self.state.cursor).contiguous()
        if init and self.device.type == "cuda":
            self.settle()

    def settle(self, ms: float = 200.0) -> None:
        """Keep the GPU busy for `ms` with full-pool conventional steps before anything is
        timed. The first time taken on a new workload ran slow (H200, session 6: Mamba-2
        Nano's conventional step at batch 256, the first row timed after the buffers were
        made, 0.582 ms against 0.530 for the same kernel in precision_bench's run of the
        same call and in session 5, where batch 1 came first; a ratio past its byte cap).

        The plain pool is restored afterwards: how many steps fit in `ms` depends on the
        machine and the compile cache, and checks compare workloads built from one seed
        (session 62: template_ab's conventional check differed by 4e-3 between two
        versions of one kernel, once their compiles were cached)."""
        drawn = self.pool.clone()
        deadline = time.perf_counter() + ms / 1e3
        while time.perf_counter() < deadline:
            for _ in range(8):
                self.conventional(self.num_slots)
            torch.cuda.synchronize()
        self.pool.copy_(drawn)

    # -- launches (rows: the first `rows` slots, or padding rows only) ---------------------
    def _rows(self, rows, padding):
        return (self.padding if padding else self.all_slots)[:rows]

    def decode(self, rows: int, padding: bool = False):
        return self.kern.decode(self.state, self._rows(rows, padding), out=self.out[:rows],
                                **{n: t[:rows] for n, t in self.inputs.items()})

    def conventional(self, rows: int, padding: bool = False):
        return self.kern.conventional_decode(self.pool, self._rows(rows, padding),
                                             out=self.out[:rows], **self.params,
                                             **{n: t[:rows] for n, t in self.inputs.items()})

    def conventional_spec(self, rows: int, padding: bool = False):
        """The conventional speculative step on the plain pool (issue 3's snapshot
        baseline): T_MAX drafts per row, one state snapshot written per draft, then the
        last one installed (every draft accepted). Its buffers (the snapshots, [rows,
        T_MAX] states, and the drafts' outputs) are allocated at the first call; no check
        syncs, so the step can be captured in a CUDA graph."""
        if self.snapshots is None:
            max_rows = self.accept_all.shape[0]
            self.snapshots = torch.empty(self.kern.snapshot_shape(max_rows), dtype=self.pool.dtype,
                                         device=self.device)
            self.draft_out = torch.empty((max_rows, self.kern.plan.T_MAX) + self.out.shape[1:],
                                         dtype=self.out.dtype, device=self.device)
        slots, snaps = self._rows(rows, padding), self.snapshots[:rows]
        self.kern.conventional_verify(self.pool, slots, snaps, num_drafts=self.accept_all[:rows],
                                      out=self.draft_out[:rows], check=False, **self.params,
                                      **{n: t[:rows] for n, t in self.drafts.items()})
        self.kern.conventional_commit(self.pool, slots, snaps, self.accept_all[:rows], check=False)

    def verify(self, rows: int, padding: bool = False):
        """T_MAX drafts past every row's cursor (nothing committed: repeatable)."""
        return self.kern.verify(self.state, self._rows(rows, padding),
                                **{n: t[:rows] for n, t in self.drafts.items()})

    def flush(self, rows: int, padding: bool = False):
        self.kern.flush(self.state, self._rows(rows, padding))

    def speculate(self, rows: int, seed: int = 3):
        """A verify of seeded draft counts (0..T_MAX per row) on the first `rows` slots, then
        a commit of seeded accepted counts (0..drafts): the rows whose committed records
        would pass plan.CAP fold (in the verify with plan.VERIFY_FOLDS, else in the
        commit). Returns (verify outputs, draft counts, accepted counts, folded rows)."""
        plan = self.kern.plan
        gen = torch.Generator(device=self.device).manual_seed(seed)
        counts = torch.randint(0, plan.T_MAX + 1, (rows,), generator=gen,
                               device=self.device, dtype=torch.int32)
        slots = self.all_slots[:rows]
        n = self.state.cursor[:rows, 0].clone()
        folded = (n > 0) & (n + counts > plan.CAP) if plan.VERIFY_FOLDS else torch.zeros_like(n, dtype=torch.bool)
        out = self.kern.verify(self.state, slots, num_drafts=counts,
                               **{n: t[:rows] for n, t in self.drafts.items()})
        accepted = (torch.rand(rows, generator=gen, device=self.device) * (counts + 1)).to(torch.int32)
        folded |= (torch.where(folded, 0, n) + accepted) > plan.CAP
        self.kern.commit(self.state, slots, accepted)
        return out, counts, accepted, folded

    def commit_all(self, rows: int, padding: bool = False):
        """Accept T_MAX drafts of each of the first `rows` slots (`committing` sets the
        cursors and pending drafts)."""
        self.kern.commit(self.state, self._rows(rows, padding), self.accept_all[:rows], check=False)

    def cycle(self, rows: int):
        """A whole flush cycle: L decode launches (with staggered cursors every launch
        mixes flushing and non-flushing rows; each row flushes once)."""
        for _ in range(self.kern.plan.L):
            self.decode(rows)

    # -- cursor setups (run before each timed launch) ----------------------------------------
    def cursors(self, n: int):
        return lambda: self.state.cursor.fill_(n)

    def staggered(self):
        return lambda: self.state.cursor.copy_(self.stagger)

    def committing(self):
        """T_MAX pending drafts per row, the rows' cursors staggered over a cycle of full
        acceptance (0, T_MAX, .., k T_MAX, k = CAP // T_MAX): a commit of all of them folds
        the rows at k T_MAX (one row in k + 1) and moves the others' cursors, as in
        serving (bench/spec_bench.py's StaggeredCycle)."""
        plan = self.kern.plan
        period = plan.CAP // plan.T_MAX + 1
        cursors = ((torch.arange(self.num_slots, dtype=torch.int32, device=self.device) % period)
                   * plan.T_MAX).view(-1, 1).expand_as(self.state.cursor).contiguous()

        def setup():
            self.state.cursor.copy_(cursors)
            self.state.drafted.fill_(plan.T_MAX)
        return setup

    # -- the four measurements --------------------------------------------------------------
    def time_replay(self, timer: Timer, rows: int, graph: bool = True) -> dict:
        """nonflush (n = L/2 committed records), flush_step (every row's ring fills:
        n = L - 1), amortised (per token over a whole staggered flush cycle)."""
        L = self.kern.plan.L
        out = {}
        if L >= 2:
            out["nonflush"] = timer(lambda: self.decode(rows), self.cursors(L // 2), graph)
        out["flush_step"] = timer(lambda: self.decode(rows), self.cursors(L - 1), graph)
        out["amortised"] = timer(lambda: self.cycle(rows), self.staggered(), graph, steps=L)
        return out

    def time_kernel(self, timer: Timer, kernel: str, rows: int, graph: bool = True) -> float:
        """The quantity `replaygen tune` minimises for each kernel: replay_decode amortised
        over a staggered cycle, fold as a flush of L - 1 records, the conventional step,
        verify of T_MAX drafts past L/2 committed records, verify_fold of T_MAX drafts past
        L - 1 (the pool's real records: every row folds them first; plan.VERIFY_FOLDS,
        T_MAX >= 2), commit of T_MAX drafts per row at staggered cursors (`committing`);
        and, untuned, the snapshot baseline of T_MAX drafts (`conventional_spec`)."""
        L = self.kern.plan.L
        if kernel == "replay_decode":
            return timer(lambda: self.cycle(rows), self.staggered(), graph, steps=L)
        if kernel == "fold":
            return timer(lambda: self.flush(rows), self.cursors(L - 1), graph)
        if kernel == "conventional_decode":
            return timer(lambda: self.conventional(rows), None, graph)
        if kernel == "conventional_spec":   # (the snapshot baseline: no tuned launch)
            return timer(lambda: self.conventional_spec(rows), None, graph)
        if kernel == "verify":   # T_MAX drafts past L/2 committed records
            return timer(lambda: self.verify(rows), self.cursors(L // 2), graph)
        if kernel == "verify_fold":   # T_MAX drafts past L - 1: every row folds first
            return timer(lambda: self.verify(rows), self.cursors(L - 1), graph)
        if kernel == "commit":   # staggered cursors: one row in CAP // T_MAX + 1 folds
            return timer(lambda: self.commit_all(rows), self.committing(), graph)
        raise ValueError(f"unknown kernel {kernel!r}")

    def compile_only(self, kernel: str, rows: int = 1):
        """Launch `kernel` on `rows` padding rows (nothing is read or written): compiles it
        with the same argument specialisation, and the same size-dependent choices, as the
        timed launches of `rows` rows."""
        {"replay_decode": self.decode, "fold": self.flush, "verify": self.verify,
         "verify_fold": self.verify, "commit": self.commit_all,
         "conventional_decode": self.conventional,
         "conventional_spec": self.conventional_spec}[kernel](rows, padding=True)


# -- compiling ahead, in parallel ---------------------------------------------------------------
# compile outputs in a kernel's metadata (the rest are the compile options and the
# cache-invalidating environment variables: inputs of its on-disk cache key)
_COMPILE_OUTPUTS = frozenset({"hash", "name", "target", "triton_version", "shared", "tmem_size",
                              "global_scratch_size", "global_scratch_align",
                              "profile_scratch_size", "profile_scratch_align"})


class CompileKeys:
    """While active: (kernel name, on-disk cache key, cache hit) of every kernel this
    process compiles or loads from Triton's disk cache, through `knobs.compilation.listener`
    (Triton 3.6-3.9: called by triton.compile after each in-memory miss, with the source
    and the metadata). The key is written as its parts, " | "-separated: the source's hash
    (the kernel and every function it calls), its argument attributes, signature and
    constants, then each compile option and cache-invalidating environment variable as
    name=value. A launch the timing process compiles (cache hit False) although a compile
    worker compiled it missed the workers' disk entry: the tuner names the parts that set
    its key apart (session 46: an FP8 sweep took ~2 s per launch for that; the in-memory
    keys of jit_post_compile_hook were the workers' own, so they named nothing)."""

    def __init__(self):
        self.keys: list[tuple[str, str, bool]] = []

    def __enter__(self):
        from triton import knobs
        self._prev = knobs.compilation.listener

        def listener(*, src, metadata, metadata_group, times, cache_hit):
            self.keys.append((getattr(getattr(src, "fn", None), "__name__", "?"),
                              disk_key(src, metadata), bool(cache_hit)))
            if self._prev:
                self._prev(src=src, metadata=metadata, metadata_group=metadata_group,
                           times=times, cache_hit=cache_hit)
        knobs.compilation.listener = listener
        return self

    def __exit__(self, *exc):
        from triton import knobs
        knobs.compilation.listener = self._prev
        return False


def disk_key(src, metadata: dict) -> str:
    """The parts of a kernel's on-disk cache key (see CompileKeys), " | "-separated."""
    import json
    constants = sorted((str(k), getattr(v, "cache_key", str(v)))
                       for k, v in (getattr(src, "constants", None) or {}).items())
    parts = [f"source={getattr(getattr(src, 'fn', None), 'cache_key', '?')}",
             f"attrs={getattr(src, 'attrs', '?')}",
             f"signature={sorted((getattr(src, 'signature', None) or {}).items())}",
             f"constants={constants}"]
    parts += [f"{k}={json.dumps(v, default=str)}" for k, v in sorted(metadata.items())
              if k not in _COMPILE_OUTPUTS]
    return " | ".join(parts)


def key_difference(key: str, others) -> str:
    """What sets the cache key `key` apart from the nearest of `others` (the most shared
    " | "-separated parts): its parts the nearest lacks, and the nearest's it lacks."""
    parts = key.split(" | ")
    near = max(others, key=lambda o: len(set(parts) & set(o.split(" | "))), default=None)
    if near is None:
        return "no key of that kernel was compiled ahead"
    theirs = near.split(" | ")
    return (f"here: {' ; '.join(p for p in parts if p not in theirs) or '-'}; "
            f"ahead: {' ; '.join(p for p in theirs if p not in parts) or '-'}")


def _compile_worker(task) -> tuple[int, list[tuple[str, str]]]:
    """In a spawned process: compile the launches of one configuration (padding rows only)
    at every batch size (size-based choices in decode may differ between them). Returns
    the number of launches and the CompileKeys of what it compiled."""
    from .runtime import load
    variant, load_kwargs, launches, batches, device = task
    kern = load(variant, tuning=False, **load_kwargs)
    work = Workload(kern, 16, device, init=False, rows=max(batches))
    with CompileKeys() as compiled:
        for kernel, launch in launches:
            kern.forced = {kernel: launch} if launch is not None else {}
            for rows in batches:
                work.compile_only(kernel, rows)
        if work.device.type == "cuda":
            torch.cuda.synchronize()
    return len(launches), [(name, key) for name, key, _ in compiled.keys]


def precompile(tasks, jobs: int, log=print, keys: set | None = None) -> int:
    """Fill Triton's on-disk cache for `tasks` [(variant, load kwargs, [(kernel, Launch or
    None: the plan's choice)], batch sizes, device)] with `jobs` spawned processes, so the
    timing loop (one process, one GPU stream) loads kernels instead of compiling them one
    by one. Compiling is CPU work (Triton's passes, ptxas) and dominates a sweep. Worker
    pools have 16 slots: Triton specialises integers on divisibility by 16 (and on == 1), so
    the timed pools, whose sizes are multiples of 16, get the same compiled code. Any
    failure here is only lost time: the main process compiles what is missing. Returns
    the number of tasks that failed; `keys` gathers the workers' CompileKeys."""
    if jobs <= 1 or not tasks:
        return 0
    failed = 0
    import concurrent.futures
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
    try:
        with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=ctx) as pool:
            for fut in [pool.submit(_compile_worker, t) for t in tasks]:
                try:
                    _, compiled = fut.result()
                    if keys is not None:
                        keys.update(compiled)
                except Exception as exc:  # noqa: BLE001 - reported; the main process retries
                    failed += 1
                    log(f"  precompile: {type(exc).__name__}: {str(exc)[:300]} "
                        "(compiled in the main process instead)")
    except Exception as exc:  # noqa: BLE001 - e.g. no process pool on this machine
        log(f"  precompile skipped: {type(exc).__name__}: {exc}")
        return len(tasks)
    return failed


def pool_size(batches) -> int:
    """Slots of a timing pool: the largest batch rounded up to a multiple of 16 (see
    `precompile` for why 16)."""
    return -(-max(batches) // 16) * 16
