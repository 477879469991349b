"""Every committed kernel compiles for the H200 (sm_90), checked on a CPU machine: with
the plan's launch choice, and with every launch the committed tuning tables
(generated/<variant>/tuning.json) select.

The Triton interpreter runs kernels as NumPy code and never type-checks them the way
the compiler does (layouts, dot operand types, scf.if result types). Triton compiles to
PTX and runs ptxas without a GPU when it is given a target, so CI catches a kernel that
would not compile on the device. Pointer arguments get the 16-byte divisibility that the
runtime specialisation gives real tensors, so the code compiled is the code that runs.

The compiler must run without TRITON_INTERPRET (which the rest of the suite sets on a
CPU machine: it turns Triton's own library functions into interpreted ones), so the test
runs this file as a script in a child process. When the session collects this test,
conftest.py starts that child at once, on two worker processes (conftest.SM90_WORKERS;
once per session, pytest-xdist's workers included), and runs the test last: the compiles
(~11 CPU-minutes cold) then overlap the interpreter tests. Session 6 tried a pool of two
workers beside a serial suite, which slowed it by a third and saved nothing; beside
pytest-xdist's two workers, once the interpreter tests took a third less time, one
compile worker left the suite waiting four minutes for it (session 35: 889 -> 804 s on
two cores with two).
"""
from __future__ import annotations

import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

triton = pytest.importorskip("triton")
import torch  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

from replaygen.emit import GENERATED_DIR, default_configs, table_configs  # noqa: E402
from replaygen.plan import (decode_is_chunked, launch_constants, plan_tiles, streams_first,  # noqa: E402
                            verify_is_chunked)
from replaygen.runtime import commit_move_warps, load  # noqa: E402
from replaygen.spec import available_variants, load_variant  # noqa: E402
from replaygen.tuning import TUNING_FILE, Launch, TuningTable, compile_options  # noqa: E402

TARGET = GPUTarget("cuda", 90, 32)
TORCH_TO_TRITON = {torch.float32: "fp32", torch.bfloat16: "bf16", torch.float16: "fp16",
                   torch.float8_e4m3fn: "fp8e4nv", torch.uint8: "u8", torch.int32: "i32"}


def signature(fn, kern, inputs="bf16"):
    """Argument types as the runtime passes them: state tensors from the configuration's
    layout (checkpoint, read copy, scales, flush counters), rings per field."""
    layout = {f"{n}_ptr": TORCH_TO_TRITON[dt] for n, (_, dt) in kern.layout.items()}
    rings = {f"ring_{f.name}_ptr": f.dtype for f in kern.plan.ring}
    sig = {}
    for p in fn.params:
        n = p.name
        if p.is_constexpr:
            sig[n] = "constexpr"
        elif n in ("slots_ptr", "cursor_ptr", "drafted_ptr", "accepted_ptr", "num_drafts_ptr",
                   "fold_queue_ptr"):
            sig[n] = "*i32"
        elif n in layout:
            sig[n] = "*" + layout[n]
        elif n in ("state_ptr", "snap_ptr"):
            sig[n] = "*" + (kern.plan.state_dtype if kern.plan.ckpt.kind == "plain" else "fp32")
        elif n in ("dst_ptr", "src_ptr", "ws_ptr"):   # (ws: the two-launch verify's workspace)
            sig[n] = "*fp32"
        elif n in rings:
            sig[n] = "*" + rings[n]
        elif n.endswith("_ptr"):
            sig[n] = "*" + inputs
        else:
            sig[n] = "i32"
    return sig


def compile_kernel(kern, name, launch=None, warps=None, table_kernel=None, **flags):
    """Compile one kernel with the plan's launch choice, or a tuned `launch` of the
    tables' `table_kernel` (default: the TABLE_KERNELS entry compiling `name`; `warps`:
    in place of either's num_warps, as runtime.commit_move_warps)."""
    mod = kern.module
    fn = getattr(mod, name)
    consts = {**mod.CONSTEXPRS, **flags}
    plan_warps = {"replay_decode_kernel": mod.DECODE_WARPS,   # as the runtime launches them
                  "verify_kernel": mod.VERIFY_WARPS}.get(name, mod.NUM_WARPS)
    options = compile_options(plan_warps)
    if name == "verify_kernel":   # its tiles, where they differ from the decode's
        consts.update(launch_constants(kern.plan, "verify", *plan_tiles(kern.plan, "verify")[:2]))
    if launch is not None:
        kernel = table_kernel or {v[0]: k for k, v in TABLE_KERNELS.items()}[name]
        consts.update(launch.constants(kern.plan, kernel), **flags)   # (flags still override)
        options = launch.options()
    if warps is not None:
        options = {**options, "num_warps": warps}
    if name == "replay_decode_kernel":   # the decode as it runs by default (the rows'
        consts.setdefault("FOLD_EVERY_STEP", False)   # own flushes); KERNELS adds True
    for p in fn.params:   # optional inputs: compile the variant with them present
        if p.is_constexpr and p.name not in consts:
            consts[p.name] = True
    attrs = {(i,): [["tt.divisibility", 16]] for i, p in enumerate(fn.params)
             if not p.is_constexpr and (p.name.endswith("_ptr") or p.name.startswith("stride"))}
    src = ASTSource(fn, signature(fn, kern),
                    constexprs={(fn.arg_names.index(n),): v for n, v in consts.items()},
                    attrs=attrs)
    return triton.compile(src, target=TARGET, options=options)


def _ptxas_available():
    try:
        from triton.backends.nvidia.compiler import get_ptxas  # noqa: F401
        return True
    except Exception:
        return False


def compiled_configs(variant: str) -> list:
    """The default configurations whose kernels compile here: all of the first geometry;
    of the others (the same kernels at other dims), the fp32 checkpoint's. CI has two
    cores and each configuration is ~12 CPU-seconds of compiling; a half-precision
    checkpoint changes the same casts at every geometry. Their tuned launches compile too."""
    spec = load_variant(variant)
    first = spec.configs[0].dims
    return [c for c in default_configs(spec)
            if dict(c.dims) == dict(first) or (c.state_dtype == "fp32" and c.read_dtype is None)]


CONFIGS = [(v, c) for v in available_variants() for c in compiled_configs(v)]
# each variant's plan at its first geometry; those whose decode streams key chunks (scalar
# decays), those of these that may fold in one pass, and the value-tile ones
FIRST_PLANS = {v: load(v, config=load_variant(v).configs[0].name, tuning=False).plan
               for v in available_variants()}
CHUNKED_DECODE = [v for v, p in FIRST_PLANS.items() if decode_is_chunked(p)]
ONEPASS_DECODE = [v for v, p in FIRST_PLANS.items() if p.onepass_flushes]
HEAD_SCORE_DECODE = [v for v, p in FIRST_PLANS.items() if p.scores_at_head]
TILED_DECODE = [v for v in available_variants() if v not in CHUNKED_DECODE]
TILED_VERIFY = [v for v, p in FIRST_PLANS.items() if not verify_is_chunked(p)]
GRID = {"QUEUED": False, "QSPLIT": 1, "QSTAGES": None}   # the fold over (rows, value heads); QUEUED: after a decode
QUEUED = {"QUEUED": True, "QSPLIT": 4, "QSTAGES": None}
KERNELS = (("replay_decode_kernel", {}), ("replay_decode_kernel", {"FOLD_EVERY_STEP": True}),
           ("replay_decode_kernel", {"FUSED_FLUSH": False}),   # Launch.separate_flush
           ("fold_kernel", {"FLUSH": True, "COMMIT": False, **GRID}),
           ("fold_kernel", {"FLUSH": False, "COMMIT": False, **GRID}), ("conventional_decode_kernel", {}),
           ("fold_kernel", {"FLUSH": True, "COMMIT": True, **GRID}),
           ("fold_kernel", {"FLUSH": True, "COMMIT": False, **QUEUED}),
           ("fold_kernel", {"FLUSH": True, "COMMIT": False, **QUEUED, "QSTAGES": 3}),   # Launch.fold_stages
           ("verify_kernel", {"FOLDING": False}),
           ("conventional_verify_kernel", {}), ("conventional_select_kernel", {}),
           ("quantize_kernel", {}))
# Speculative configurations (T_MAX = 8, L = 16, fp32 checkpoint, bf16 records: the
# benchmark's) of each variant's first geometry: their verify kernel must not spill (K <= 128);
# nor may the decode kernel at L = 32.
SPEC_DRAFTS = 8
SPILL_REPORTED = 16   # bytes of spill the no-spill check reports without failing


def ptxas_usage(compiled) -> str:
    """ptxas -v's register and spill line for a compiled kernel's PTX."""
    import tempfile
    from triton.backends.nvidia.compiler import get_ptxas
    ptxas = get_ptxas(TARGET.arch)
    ptxas = getattr(ptxas, "path", ptxas)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.ptx"
        path.write_text(compiled.asm["ptx"])
        proc = subprocess.run([ptxas, "-v", f"--gpu-name=sm_{TARGET.arch}a", str(path), "-o",
                               str(Path(tmp) / "k.cubin")], capture_output=True, text=True)
    return " ".join(line.split(":", 1)[-1].strip() for line in proc.stderr.splitlines()
                    if "registers" in line or "spill" in line)


TABLE_KERNELS = {"replay_decode": ("replay_decode_kernel", {}), "verify": ("verify_kernel", {"FOLDING": False}),
                 "verify_fold": ("verify_kernel", {"FOLDING": True}),
                 "fold": ("fold_kernel", {"FLUSH": True, "COMMIT": False, **QUEUED}),
                 "commit": ("fold_kernel", {"FLUSH": True, "COMMIT": True, **GRID}),
                 "conventional_decode": ("conventional_decode_kernel", {})}


def tuned_launches() -> list[tuple]:
    """(variant, config, kernel, launch) of every committed tuning entry of a default
    configuration or of a speculative one (T = 2, 4, 8 drafts: their verify, commit and
    fold launches; each distinct launch once)."""
    by_name = {c.name: (v, c) for v, c in CONFIGS}
    by_name.update({n: (v, c) for v in available_variants()
                    for n, c in table_configs(load_variant(v)).items() if c.max_drafts > 1})
    out = set()
    for variant in available_variants():
        path = GENERATED_DIR / variant / TUNING_FILE
        if path.is_file():
            for _, name, kernel, _, launch, _ in TuningTable.read(path, variant).entries():
                if name in by_name:
                    out.add((variant, by_name[name][1], kernel, launch))
    return sorted(out, key=str)


TUNED = tuned_launches()


def read_word_configs() -> list[tuple]:
    """(variant, config) of the default configurations whose value-tile decode can read
    its read copy in words (Launch.read_words: KDA's and GLA's FP8 and NVFP4 copies): that
    path's inline PTX compiles only for the GPU, never in the interpreter."""
    out = []
    for variant, config in CONFIGS:
        if config.read_dtype is not None:
            plan = load_default(variant, config, tuning=False).plan
            if plan.vtile_read_words and not decode_is_chunked(plan):
                out.append((variant, config))
    return out


def read_mma_configs() -> list[tuple]:
    """(variant, config) of the default configurations with an FP8 read copy, whose
    value-tile decode can take its products on tensor cores (Launch.read_mma)."""
    return [(v, c) for v, c in CONFIGS if c.read_dtype == "fp8"]


def load_default(variant, config, **options):
    """The kernels of one default configuration, its whole precision configuration
    included (the tuned launches of a read-copy configuration were compiled on the fp32
    one before session 5)."""
    return load(variant, **{**config.load_options(), **options})


def _compile_config(i: int) -> tuple[int, list[str]]:
    """Compile every kernel of CONFIGS[i]: (count, failures)."""
    variant, config = CONFIGS[i]
    kern = load_default(variant, config)
    assert kern.name == config.name, (kern.name, config.name)
    count, failures = 0, []
    for name, flags in KERNELS:
        if not hasattr(kern.module, name):   # quantize_kernel: quantised copies only
            continue
        count += 1
        try:
            assert ".entry " + name in compile_kernel(kern, name, **flags).asm["ptx"]
        except Exception as exc:  # report every failure, not only the first
            failures.append(f"{config.name}:{name}{flags}: {exc}")
    return count, failures


def _compile_tuned(i: int) -> str | None:
    """Compile TUNED[i]; its failure, or None."""
    variant, config, kernel, launch = TUNED[i]
    kern = load_default(variant, config, tuning=False)
    assert kern.name == config.name, (kern.name, config.name)
    name, flags = TABLE_KERNELS[kernel]
    try:
        compiled = compile_kernel(kern, name, launch, table_kernel=kernel, **flags)
        assert ".entry " + name in compiled.asm["ptx"]
        # at the launch's own warps (a shadowed argument once compiled every tuned launch
        # at the plan's, so the one-warp launches the tables hold were never checked)
        assert compiled.metadata.num_warps == launch.num_warps, \
            f"compiled at {compiled.metadata.num_warps} warps, not the launch's {launch.num_warps}"
    except Exception as exc:  # report every failure, not only the first
        return f"{config.name}:{name}{flags} tuned {launch}: {exc}"
    return None


def compile_all(workers: int) -> tuple[int, list[str]]:
    """Compile every kernel of every default configuration, and every committed tuned
    launch: (count, failures)."""
    failures, count = [], 0
    # every configuration's kernels, then the tuned launches, on `workers` processes:
    # each compilation is independent, and Triton's cache takes concurrent writers
    import concurrent.futures
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        for n, fails in pool.map(_compile_config, range(len(CONFIGS))):
            count += n
            failures += fails
        failures += [f for f in pool.map(_compile_tuned, range(len(TUNED))) if f]
    count += len(TUNED)
    # Each variant's first geometry, fp32 checkpoint, bf16 records: the T_MAX = 8 verify
    # kernel (L = 16), and the decode kernel at the longest benchmarked ring (L = 32:
    # [32, K] record tiles, or [32, BKT] per key chunk), must not spill for key dims up
    # to 128; GLA's K = 256 verify spills ~50 bytes with Triton 3.9's ptxas (none with
    # 3.6): reported, not failed. So are a few bytes: KDA's verify at the plan's own
    # four-warp launch spills 4 (one register) with Triton 3.6's ptxas 12.8 and none with
    # 3.9's (session 17, the H200's image); its tabled one-warp launch spills none.
    # The verify of the rows that fold first (verify_folds=True: FOLDING) is a launch and
    # compiled kernel of its own: the same check; so is that protocol's commit (compiled
    # without the fold, at the warps the runtime gives it: its record tiles must fit).
    vf = dict(L=16, max_drafts=SPEC_DRAFTS, verify_folds=True)
    for variant in available_variants():
        first = load_variant(variant).configs[0].name
        for name, options, flags in (
                ("verify_kernel", dict(L=16, max_drafts=SPEC_DRAFTS), {"FOLDING": False}),
                ("verify_kernel", vf, {"FOLDING": True}),
                ("fold_kernel", vf, {"FLUSH": True, "COMMIT": True, **GRID}),
                ("replay_decode_kernel", dict(L=32, tuning=False), {})):
            kern = load(variant, config=first, state_dtype="fp32", record_dtype="bf16",
                        **options)
            count += 1
            warps = commit_move_warps(kern.plan) if name == "fold_kernel" else None
            usage = ptxas_usage(compile_kernel(kern, name, warps=warps, **flags))
            print(f"{kern.name}: {name}{flags}: {usage}")
            spills = [int(n) for n in re.findall(r"(\d+) bytes spill", usage)]
            if not spills or (max(spills) > SPILL_REPORTED and kern.plan.K <= 128):
                failures.append(f"{kern.name}: {name} spills (or no ptxas report): {usage}")
    # The value-tile verify in two launches (Launch.head_launch, T_MAX = 8; the plain rows'
    # and, with verify_folds, the folding rows'): each head launch and stream launch
    # (SPLIT_HEAD 1, 2) compiles, and the stream launches, which hold none of the head
    # phase's tiles, spill nothing
    for variant in TILED_VERIFY:
        kern = load(variant, config=load_variant(variant).configs[0].name, state_dtype="fp32",
                    record_dtype="bf16", L=16, max_drafts=SPEC_DRAFTS, verify_folds=True,
                    tuning=False)
        bv, _, warps = plan_tiles(kern.plan, "verify")
        for kernel, split in itertools.product(("verify", "verify_fold"), (1, 2)):
            count += 1
            try:
                compiled = compile_kernel(kern, "verify_kernel", Launch(bv, warps, 3, head_launch=True),
                                          table_kernel=kernel, FOLDING=kernel == "verify_fold",
                                          SPLIT_HEAD=split)
                usage = ptxas_usage(compiled)
                assert split == 1 or "0 bytes spill stores" in usage, usage
            except Exception as exc:  # report every failure, not only the first
                failures.append(f"{kern.name}: {kernel} launch {split} of 2: {exc}")
    # The value-tile decode reading its read copy in words (inline PTX: fp16x2 products
    # for FP8, dp4a for NVFP4)
    for variant, config in read_word_configs():
        kern = load_default(variant, config, tuning=False)
        bv, _, warps = plan_tiles(kern.plan, "replay_decode")
        count += 1
        try:
            launch = Launch(bv, warps, 1, separate_flush=True, read_words=True)
            compiled = compile_kernel(kern, "replay_decode_kernel", launch)
            product = "dp4a.u32.s32" if kern.plan.read.kind == "nvfp4" else "fma.rn.f16x2"
            assert product in compiled.asm["ptx"], f"no {product} word products"
        except Exception as exc:  # report every failure, not only the first
            failures.append(f"{config.name}: replay_decode_kernel reading words: {exc}")
    # The value-tile decode reading an FP8 read copy on tensor cores (Launch.read_mma; the
    # scalar-decay variants through decode_structure="vtiles"): at [64, K] and four warps
    # the tile's e4m3 product must be wgmma's, not a widened fp16 mma.sync (the
    # interpreter runs tl.dot on any types, so only a GPU compile tells)
    for variant, config in read_mma_configs():
        kern = load_default(variant, config, tuning=False, decode_structure="vtiles")
        count += 1
        try:
            assert kern.plan.vtile_read_mma
            launch = Launch(64, 4, 2, separate_flush=True, read_mma=True)
            ptx = compile_kernel(kern, "replay_decode_kernel", launch).asm["ptx"]
            assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n16k32\.f32\.e4m3\.e4m3", ptx), \
                "no e4m3 wgmma"
        except Exception as exc:  # report every failure, not only the first
            failures.append(f"{config.name}: replay_decode_kernel reading on tensor cores: {exc}")
    # The value-tile decode streaming first (Launch.stream_first, plain checkpoints: KDA,
    # GLA by default): its first tiles' L2 prefetches are issued before the tile loop's
    # first cp.async, which waits for the head-level work (plan.streams_first; inline PTX, so
    # only a GPU compile checks it)
    for variant in TILED_DECODE:
        kern = load(variant, config=load_variant(variant).configs[0].name, tuning=False)
        bv, _, warps = plan_tiles(kern.plan, "replay_decode")
        count += 1
        try:
            assert streams_first(kern.plan) and not decode_is_chunked(kern.plan)
            ptx = compile_kernel(kern, "replay_decode_kernel", Launch(bv, warps, 3, stream_first=True)).asm["ptx"]
            assert "prefetch.global.L2" in ptx, "no L2 prefetch"
            assert ptx.index("prefetch.global.L2") < ptx.index("cp.async"), "the prefetch after the stream"
        except Exception as exc:  # report every failure, not only the first
            failures.append(f"{kern.name}: replay_decode_kernel streaming first: {exc}")
    # The key-chunk decode's checkpoint stream is software-pipelined (cp.async of its
    # [DBV, BKT] fp32 chunks into shared memory) at the launch's num_stages, and not at 1:
    # Triton pipelines a loop without tl.dot only when the loop asks (tl.range with
    # num_stages=STREAM_STAGES); without it every chunk waited one memory latency
    # (bench/NOTES.md, session 4).
    for variant in CHUNKED_DECODE:
        kern = load(variant, config=load_variant(variant).configs[0].name, tuning=False)
        bv, bkt, warps = plan_tiles(kern.plan, "replay_decode")
        stream = f"tensor<{bv}x{bkt}x!tt.ptr<f32>"
        for stages, pipelined in ((3, True), (1, False)):
            count += 1
            ttgir = compile_kernel(kern, "replay_decode_kernel",
                                   Launch(bv, warps, stages, bkt)).asm["ttgir"]
            copies = [ln for ln in ttgir.splitlines() if "async_copy_global_to_local" in ln]
            if any(stream in ln for ln in copies) != pipelined:
                failures.append(f"{kern.name}: the chunk stream at num_stages {stages} is "
                                f"{'not ' if pipelined else ''}pipelined")
        # The one-pass flush (Launch.onepass_flush): the flushing programs' stream, which
        # also folds and stores each chunk, is pipelined as the plain stream is, and the
        # key group's arrival count is an acq_rel atomic (the interpreter runs programs
        # one after another, so only a GPU compile sees either)
        if kern.plan.onepass_flushes:
            count += 1
            try:
                compiled = compile_kernel(kern, "replay_decode_kernel",
                                          Launch(bv, warps, 3, bkt, onepass_flush=True))
                copies = [ln for ln in compiled.asm["ttgir"].splitlines()
                          if "async_copy_global_to_local" in ln and stream in ln]
                assert len(copies) >= 2, f"{len(copies)} pipelined chunk streams, not 2"
                assert re.search(r"atom\.global\.(gpu\.)?acq_rel\.add", compiled.asm["ptx"]), \
                    "no acq_rel arrival count"
            except Exception as exc:  # report every failure, not only the first
                failures.append(f"{kern.name}: replay_decode_kernel folding in one pass: {exc}")
        # The records' scores at the head (Launch.head_scores): the stream still pipelined,
        # and its pipelined copies no [BL, BKT] ring tile (the scores were taken before it):
        # over an FP8 read copy's words (its flush in the fold launch) none is left; over
        # the plain checkpoint, the fused flush's fold keeps its own. So with programs over
        # a whole key group's value heads (Launch.heads), their loop around the stream
        if kern.plan.scores_at_head:
            fp8 = load(variant, config=load_variant(variant).configs[0].name, tuning=False,
                       read_dtype="fp8")
            group = fp8.plan.GROUP if fp8.plan.decode_shares_keys else 1
            for hk, separate, heads in ((kern, False, 1), (fp8, True, 1), (fp8, True, group)):
                count += 1
                try:
                    hbv, hbkt, hwarps = plan_tiles(hk.plan, "replay_decode")
                    ring = f"tensor<{launch_constants(hk.plan, 'replay_decode', hbv, hbkt)['BL']}x{hbkt}x!tt.ptr<"
                    copies = lambda launch: [ln for ln in compile_kernel(  # noqa: E731
                        hk, "replay_decode_kernel", launch).asm["ttgir"].splitlines()
                        if "async_copy_global_to_local" in ln]
                    plain = copies(Launch(hbv, hwarps, 3, hbkt, separate_flush=separate))
                    head = copies(Launch(hbv, hwarps, 3, hbkt, separate_flush=separate, head_scores=True,
                                         heads=heads))
                    rings = [sum(ring in ln for ln in c) for c in (plain, head)]
                    assert head, "the stream is not pipelined"
                    assert rings[1] < rings[0] and (rings[1] == 0 or not separate), \
                        f"ring tiles pipelined: {rings[0]} without, {rings[1]} with scores at the head"
                except Exception as exc:  # report every failure, not only the first
                    failures.append(f"{hk.name}: replay_decode_kernel with its scores at the head "
                                    f"({heads} value heads per program): {exc}")
        # The launch order (Launch.flush_order, launch_order.flush_first, at 256 rows): the
        # epoch word's arrival and flip are atomics, and the chunk stream is still pipelined
        # (the interpreter has neither concurrent programs nor a pipeliner)
        count += 1
        try:
            compiled = compile_kernel(kern, "replay_decode_kernel", Launch(bv, warps, 3, bkt, flush_order=1),
                                      ROWS_P2=256)
            copies = [ln for ln in compiled.asm["ttgir"].splitlines()
                      if "async_copy_global_to_local" in ln and stream in ln]
            assert copies, "the chunk stream is not pipelined"
            ptx = compiled.asm["ptx"]
            assert re.search(r"atom\.global\.(gpu\.)?(relaxed\.)?add", ptx), "no epoch arrival"
            assert re.search(r"atom\.global\.(gpu\.)?(relaxed\.)?exch", ptx), "no epoch flip"
        except Exception as exc:  # report every failure, not only the first
            failures.append(f"{kern.name}: replay_decode_kernel in flush order: {exc}")
    return count, failures


@pytest.mark.skipif(not _ptxas_available(), reason="Triton's NVIDIA backend (ptxas) is absent")
def test_default_kernels_compile_for_sm90():
    import tempfile
    import time

    from conftest import sm90_child, sm90_run_dir
    run_dir = sm90_run_dir()
    if run_dir.is_dir():   # started when the session collected this test (conftest.py)
        deadline = time.monotonic() + 1500
        while not (run_dir / "rc").exists():
            assert time.monotonic() < deadline, "the sm_90 compiles did not finish in 25 minutes"
            time.sleep(1)
        returncode, stdout = int((run_dir / "rc").read_text()), (run_dir / "log").read_text()
    else:                  # run alone: on every core (up to 4)
        with tempfile.TemporaryFile(mode="w+") as log:
            proc = sm90_child(max(1, min(4, os.cpu_count() or 1)), log)
            proc.wait(timeout=1500)
            log.seek(0)
            returncode, stdout = proc.returncode, log.read()
    assert returncode == 0, stdout[-8000:]
    # every module has the kernels of KERNELS but quantize_kernel, which only a quantised
    # copy's has; plus the tuned launches and each variant's T_MAX = 8 verify kernels
    # (plain, folding), verify_folds commit and L = 32 decode; the read-word and
    # tensor-core read decodes, the
    # key-chunk decodes' pipelining checks (their one-pass flushes, their flush order, their
    # scores at the head: plain, FP8 words, and FP8 words in programs over a key group's
    # value heads) and the
    # value-tile decodes streaming first
    quantized = sum(c.read_dtype is not None or c.state_dtype in ("fp8", "nvfp4")
                    for _, c in CONFIGS)
    expected = (len(CONFIGS) * (len(KERNELS) - 1) + quantized + len(TUNED)
                + 4 * len(available_variants()) + len(read_word_configs()) + len(read_mma_configs())
                + 3 * len(CHUNKED_DECODE) + len(ONEPASS_DECODE) + 3 * len(HEAD_SCORE_DECODE)
                + len(TILED_DECODE)
                + 4 * len(TILED_VERIFY))
    assert f"compiled {expected} kernels, 0 failed" in stdout, stdout[-2000:]


if __name__ == "__main__":
    count, problems = compile_all(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    print("\n".join(problems))
    print(f"compiled {count - len(problems)} kernels, {len(problems)} failed")
    sys.exit(1 if problems else 0)
