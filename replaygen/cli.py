"""The `replaygen` command: build, list and show generated kernels; tune and bench them.

Input: a command line (`main(argv)`; argv defaults to sys.argv[1:]).
Output: files under generated/ (`build`), a report on stdout; one line per problem
on stderr. Exit status: 0 success; 1 a replaygen error (`replaygen: error: ...`) or a
`build --check` that found stale, missing or orphan files; 2 a usage error (argparse).
Invariants: each spec is derived once per command (its sympy checks are the slow
part); `--check` writes nothing; `--prune` deletes only files inside a variant's
folder that no default configuration produces; custom options (--dims, --config,
--buffer-length, --state-dtype, --record-dtype(s), --read-dtype, --stochastic,
--fp8-scale) build those configurations instead of the spec's defaults, and never prune.
`tune` and `bench` need a CUDA GPU and refuse clearly without one (replaygen/tune.py,
replaygen/bench.py); `bench --replot DIR` rewrites a report from its bench.json on any
machine; `accuracy` runs the precision error study (replaygen/accuracy.py).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from .errors import ConfigError, ReplaygenError
from .emit import GENERATED_DIR, check_tree, default_configs, emit, orphans
from .plan import FP8_SCALES, QUANTIZED, STATE_DTYPES, KernelConfig, make_config
from .spec import DTYPES, Spec, available_variants, load_variant

RECORD_DTYPES = DTYPES
# replaygen's modules that define @triton.jit functions (the generated kernels import them)
KERNEL_MODULES = ("replaygen.devmath", "replaygen.formats", "replaygen.launch_order")
CUSTOM_OPTIONS = ("dims", "config", "buffer_length", "state_dtype", "record_dtype",
                  "read_dtype", "stochastic", "fp8_scale", "record_dtypes", "max_drafts",
                  "verify_folds")


# -- option types: each raises ArgumentTypeError, so argparse exits 2 with one line -----
def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer >= 1")
    return value


def parse_dims(text: str) -> dict[str, int]:
    """'ngroups=8,nheads=96' -> {'ngroups': 8, 'nheads': 96}."""
    dims: dict[str, int] = {}
    for item in text.split(","):
        name, eq, value = (part.strip() for part in item.partition("="))
        if not eq or not name:
            raise argparse.ArgumentTypeError(
                f"{item!r} is not NAME=N (e.g. H=16,HV=32,K=128,V=128)")
        if name in dims:
            raise argparse.ArgumentTypeError(f"dim {name!r} is given twice")
        try:
            dims[name] = positive_int(value)
        except argparse.ArgumentTypeError as exc:
            raise argparse.ArgumentTypeError(f"dim {name!r}: {exc}") from None
    return dims


def int_list(text: str) -> tuple[int, ...]:
    """'1,8,64' -> (1, 8, 64): positive integers, in order, without repeats."""
    try:
        values = [positive_int(t.strip()) for t in text.split(",")]
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None
    return tuple(dict.fromkeys(values))


def name_list(choices):
    def parse(text: str) -> tuple[str, ...]:
        names = tuple(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))
        bad = [n for n in names if n not in choices]
        if bad or not names:
            raise argparse.ArgumentTypeError(f"unknown variant {bad[0] if bad else text!r}; "
                                             f"choose from {list(choices)}")
        return names
    return parse


def dtype_list(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",")]
    bad = [t for t in names if t not in STATE_DTYPES]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown dtype {bad[0]!r}; choose from {list(STATE_DTYPES)}")
    return names


def field_dtypes(text: str) -> dict[str, str]:
    """'g=fp32,u=bf16' -> {'g': 'fp32', 'u': 'bf16'}: per-field record precisions."""
    out = {}
    for item in text.split(","):
        name, eq, dt = (part.strip() for part in item.partition("="))
        if not eq or not name or dt not in DTYPES:
            raise argparse.ArgumentTypeError(
                f"{item!r} is not FIELD=DTYPE with DTYPE in {list(DTYPES)} (e.g. g=fp32)")
        out[name] = dt
    return out


# -- configurations ---------------------------------------------------------------------
def custom_requested(args) -> bool:
    return any(getattr(args, o) is not None for o in CUSTOM_OPTIONS)


def geometries(spec: Spec, args) -> list[dict[str, int]]:
    """--dims, or the named --config, or else every named geometry of the spec."""
    if args.dims is not None:
        return [args.dims]
    named = {c.name: c.dims for c in spec.configs}
    if args.config is None:
        return list(named.values())
    if args.config not in named:
        raise ConfigError(f"{spec.name}: unknown config {args.config!r}; known: {sorted(named)}")
    return [named[args.config]]


def state_dtypes(args, spec: Spec) -> list[str]:
    """--state-dtype, repeated or comma-separated, in order and without repeats."""
    given = [d for group in (args.state_dtype or ()) for d in group]
    return list(dict.fromkeys(given)) or list(spec.defaults.state_dtypes)


def requested_configs(spec: Spec, args) -> list[KernelConfig]:
    return [make_config(spec, dims, args.buffer_length, dt, args.record_dtype,
                        **config_options(args))
            for dims in geometries(spec, args) for dt in state_dtypes(args, spec)]


def config_options(args) -> dict:
    """make_config's keyword options from the command line (precisions, T_MAX)."""
    return dict(stochastic=bool(args.stochastic), read_dtype=args.read_dtype,
                fp8_scale=args.fp8_scale, record_dtypes=args.record_dtypes,
                max_drafts=args.max_drafts, verify_folds=bool(args.verify_folds))


def shown(path: Path) -> str:
    """A path relative to the working directory when it lies below it."""
    rel = os.path.relpath(path)
    return str(path) if rel.startswith("..") else rel


# -- build --------------------------------------------------------------------------------
def emit_variant(name: str, args, check: bool):
    """Emit (or check) one variant's requested configurations: (spec, emitted, problems)."""
    spec = load_variant(name)
    if not custom_requested(args):
        return (spec, *emit(spec, default_configs(spec), args.out, check=check))
    emitted, _ = emit(spec, requested_configs(spec, args), args.out, check=check)
    # Only the requested files matter: the defaults beside them are no orphans here.
    problems = [f"{'stale' if e.path.is_file() else 'missing'}: {e.path}"
                for e in emitted if e.changed]
    return spec, emitted, problems


def check(args) -> int:
    start = time.perf_counter()
    if args.all:
        problems, checked = check_tree(args.out), "the generated tree"   # + spec-less folders
    else:
        _, emitted, problems = emit_variant(args.variant, args, check=True)
        checked = f"{len(emitted)} files"
    for p in problems:
        print(p, file=sys.stderr)
    verdict = f"{len(problems)} problem(s)" if problems else "up to date"
    print(f"replaygen: checked {checked}: {verdict} ({time.perf_counter() - start:.2f} s)")
    return 1 if problems else 0


def build(args) -> int:
    if args.check:
        return check(args)
    start = time.perf_counter()
    custom = custom_requested(args)
    count = written = pruned = 0
    for name in available_variants() if args.all else [args.variant]:
        spec, emitted, _ = emit_variant(name, args, check=False)
        for e in emitted:
            print(f"{'wrote' if e.changed else 'unchanged'}  {shown(e.path)}")
        count += len(emitted)
        written += sum(e.changed for e in emitted)
        if custom:
            continue
        for path in orphans(args.out / spec.name, {e.path.name for e in emitted}):
            if args.prune and path.is_file():
                path.unlink()
                print(f"removed  {shown(path)}")
                pruned += 1
            else:
                print(f"replaygen: warning: orphan {shown(path)} (no default configuration "
                      "produces it; --prune deletes files)", file=sys.stderr)
    pruned_note = f", {pruned} pruned" if args.prune else ""
    print(f"replaygen: {count} files ({written} written, {count - written} unchanged"
          f"{pruned_note}) in {time.perf_counter() - start:.2f} s")
    if custom and args.out.resolve() == GENERATED_DIR.resolve():
        print("replaygen: note: custom configurations in generated/ are orphans to "
              "`replaygen build --all --check`; --out keeps them apart", file=sys.stderr)
    return 0


# -- list ---------------------------------------------------------------------------------
def list_variants(args) -> int:
    for name in available_variants():
        spec = load_variant(name)
        d = spec.defaults
        print(f"{name}: {spec.title}")
        print(f"  defaults: buffer length {d.buffer_length}, state "
              f"{'/'.join(d.state_dtypes)}, records {d.record_dtype}")
        width = max(len(c.name) for c in spec.configs)
        for c in spec.configs:
            dims = " ".join(f"{k}={v}" for k, v in c.dims.items())
            print(f"  config {c.name:<{width}}  {dims}")
        folder = GENERATED_DIR / name
        print(f"  generated ({shown(folder)}/):")
        for cfg in default_configs(spec):
            missing = "" if (folder / f"{cfg.name}.py").is_file() else "  (missing)"
            print(f"    {cfg.name}.py{missing}")
    return 0


# -- show ---------------------------------------------------------------------------------
def show(args) -> int:
    from .derive import derive          # sympy work: only the commands that need it
    from .plan import DTYPE_BYTES, make_plan
    from .traffic import L, check_cap, traffic

    spec = load_variant(args.variant)
    dims = geometries(spec, args)[0]
    state_dtype = args.state_dtype[0] if args.state_dtype else None
    config = make_config(spec, dims, args.buffer_length, state_dtype, args.record_dtype,
                         **config_options(args))
    deriv = derive(spec)
    plan = make_plan(deriv, config)
    model = traffic(plan, input_bytes=args.input_bytes, include_optional=args.optional)
    # the baseline of the precision caps: fp32 checkpoint, no read copy, same records
    base_config = make_config(spec, dims, args.buffer_length, "fp32", args.record_dtype,
                              record_dtypes=args.record_dtypes)
    base = traffic(make_plan(deriv, base_config), input_bytes=args.input_bytes,
                   include_optional=args.optional)

    print(f"{spec.title}: {config.name}")
    print("\nreplay form:")
    print(f"  {deriv.replay_state}\n  {deriv.replay_output}")

    print("\ninputs (per batch row; a verify's drafts add [T] after the row) and parameters:")
    for q in spec.inputs() + spec.params():
        shape = ", ".join(f"{d}={dims[d]}" for d in q.shape)
        role = "input" if q.kind == "input" else "param"
        print(f"  {q.name:<10} {role:<6} [{shape}]{'  (optional)' if q.optional else ''}")

    print(f"\nrecord layout (one token; ring of L = {plan.L}):")
    field_bytes = dict(model.record_fields)
    for f in plan.ring:
        per = "per key head" if f.head == "key" else "per value head"
        row = f"  {f.name:<8} {per:<14}  axis {f.axis:<6}  width {f.width:<4}  {f.dtype:<5}"
        print(f"{row} {model.evaluate(field_bytes[f.name]):>8} B/token")
    print(f"{'  total':<{len(row)}} {model.evaluate(model.record):>8} B/token")

    for title, code in (("current token, head level", plan.head_code),
                        ("current token, per value tile", plan.tile_code),
                        ("records as tiles, head level", plan.record_head_code),
                        ("records as tiles, per value tile", plan.record_tile_code)):
        print(f"\nprinted Triton ({title}):")
        for st in code:
            print(f"  {st.target} = {st.expr}")

    print(f"\nprecision: checkpoint {plan.ckpt.dtype}"
          f"{' (stochastic rounding)' if plan.ckpt.stochastic else ''}"
          f"{' scales per ' + plan.ckpt.scale if plan.ckpt.kind == 'fp8' else ''}; read copy "
          + (f"{plan.read.dtype}{' scales per ' + plan.read.scale if plan.read.kind == 'fp8' else ''}"
             + (f", stored in {plan.read.key_block}-key blocks" if plan.read.key_block else "")
             if plan.read else "none"))
    print(f"\ntraffic per token and sequence (s = {DTYPE_BYTES.get(plan.state_dtype, 1)} B state, "
          f"r = {DTYPE_BYTES[plan.record_dtype]} B record, i = {args.input_bytes} B input "
          "element; n = committed records):")
    for name in ("state", "copy", "record", "inputs", "outputs"):
        print(f"  {name:<13} = {getattr(model, name)}")
    print(f"  {'io':<13} = inputs + outputs")
    for name, formula in model.cycle.items():
        print(f"  {name:<13} = {formula}")
    print()
    for label, value in model.summary().items():
        print(f"  {label:<16} {value:>12,.0f} B  {value / 1024:>10.1f} KiB")
    cap = check_cap()
    print(f"  {'speedup cap':<16} {model.evaluate(model.speedup_cap):>12.3f}x  "
          f"(conventional / amortised; state alone: {cap} = "
          f"{float(cap.subs(L, plan.L)):.3f}x)")
    if config != base_config:
        mid = plan.L // 2
        print(f"  {'non-flush cap':<16} {base.evaluate(base.step, mid) / model.evaluate(model.step, mid):>12.3f}x"
              f"  (fp32-checkpoint step / this step, n = {mid})")
        print(f"  {'amortised cap':<16} {base.evaluate(base.conventional) / model.evaluate(model.amortised):>12.3f}x"
              "  (conventional fp32 step / this amortised step)")
    if plan.T_MAX > 1 and (plan.L % plan.T_MAX or plan.read is not None):
        why = "a read copy" if plan.read is not None else f"L = {plan.L} not a multiple of T"
        print(f"\n(no speculative bytes model for T = {plan.T_MAX}: the model assumes L = M T"
              f"\n and a plain checkpoint; this configuration has {why})")
    elif plan.T_MAX > 1:
        from .traffic import SPECULATIVE, speculative
        print(f"\nspeculative step of T = {plan.T_MAX} drafts, all accepted (L = M T; n committed):")
        for name, formula in SPECULATIVE.items():
            print(f"  {name:<22} = {formula}")
        spec_numbers = speculative(model, plan.T_MAX)
        for name in ("verify_amortised", "snapshots", "conventional_decode"):
            print(f"  {name:<19} {spec_numbers[name]:>12,.0f} B")
        print(f"  {'verify / decode':<19} {spec_numbers['vs_decode']:>12.3f}x  "
              "(verify + commit amortised over one conventional decode step)")
        print(f"  {'snapshots / verify':<19} {spec_numbers['vs_snapshots']:>12.3f}x  "
              "(the snapshot step over verify + commit amortised)")
        print(f"  {'verify_folds / decode':<19} {spec_numbers['verify_folds_vs_decode']:>10.3f}x  "
              "(the same with load(..., verify_folds=True): the fold inside the verify)")
    return 0


# -- accuracy ------------------------------------------------------------------------------
def accuracy(args) -> int:
    from . import accuracy as study   # torch and the kernels: only this command needs them
    if args.replot is not None:
        data = json.loads((args.replot / "result.json").read_text())
        print(f"wrote {shown(study.plot_result(data, args.replot / 'accuracy.png'))}")
        return 0
    import torch
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cpu":
        interpret_kernels()
    tokens = args.tokens or (32768 if device == "cuda" else 256)
    rows = args.rows or (32 if device == "cuda" else 2)
    out = args.out or Path("bench") / "results" / f"accuracy-{args.variant}"
    print(f"replaygen accuracy: {args.variant}, {tokens} tokens x {rows} sequences on {device}, "
          f"modes {', '.join(args.modes)}")
    result = study.run(args.variant, tokens, rows, device, args.modes,
                       L=args.buffer_length or 16, record_dtype=args.record_dtype or "bf16",
                       dims=args.dims, seed=args.seed, budget_s=args.budget_s)
    result["command"] = "replaygen " + " ".join(sys.argv[1:]) if args.argv is None else \
        "replaygen " + " ".join(args.argv)
    for path in study.write(result, out, plot=not args.no_plot):
        print(f"wrote {shown(path)}")
    print(f"{'mode':<14} {'rel err vs fp32':>16} {'slope':>7} {'KL vs fp32':>12} {'slope':>7} "
          f"{'rel err vs fp64':>16} {'state B read':>13}")
    for m, row in result["summary"].items():
        def fmt(what):
            v, sl = row[what]["final_bin"], row[what]["slope_log_log"]
            return f"{v:>12.3e}", f"{sl:>+7.2f}" if sl is not None else f"{'-':>7}"
        (r, rs), (k, ks), (r64, _) = fmt("rel_vs_fp32"), fmt("kl_vs_fp32"), fmt("rel_vs_fp64")
        print(f"{m:<14} {r:>16} {rs} {k} {ks} {r64:>16} {row['state_bytes_read']:>13,}")
    return 0


def interpret_kernels() -> None:
    """Run Triton kernels in its interpreter (the only way they run on a CPU). `@triton.jit`
    reads TRITON_INTERPRET when a kernel is defined, so it is set before any of replaygen's
    kernel modules load; one loaded earlier in this process would stay compiled, so that
    case is refused rather than mixed."""
    if os.environ.get("TRITON_INTERPRET") == "1":
        return
    loaded = [m for m in KERNEL_MODULES if m in sys.modules]
    if loaded:
        raise ConfigError(f"--device cpu needs Triton's interpreter, but {loaded[0]} was "
                          "loaded without it: set TRITON_INTERPRET=1")
    os.environ["TRITON_INTERPRET"] = "1"


def mode_list(text: str) -> list[str]:
    from .accuracy import MODES   # (imports torch: only when --modes is given)
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [n for n in names if n not in MODES]
    if bad:
        raise argparse.ArgumentTypeError(f"unknown mode {bad[0]!r}; choose from {list(MODES)}")
    return names


# -- tune and bench (GPU) ------------------------------------------------------------------
def tune(args) -> int:
    from .tune import run
    return run(args)


def bench(args) -> int:
    from .bench import run
    return run(args)


def default_jobs() -> int:
    """Processes that compile kernels ahead of a sweep: half the cores, at most 8."""
    return max(1, min(8, (os.cpu_count() or 2) // 2))


# -- parser --------------------------------------------------------------------------------
class Parser(argparse.ArgumentParser):
    """Usage errors in one line (argparse would print the whole usage first); exit 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def kernel_list(text: str) -> tuple[str, ...]:
    from .tuning import KERNELS
    names = tuple(n for n in text.split(",") if n)
    unknown = [n for n in names if n not in KERNELS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown kernel(s) {unknown or [text]}: choose from {list(KERNELS)}")
    return names


def phase_list(text: str) -> frozenset[str]:
    from .tune import phase_ids
    names = [n for n in text.split(",") if n]
    unknown = [n for n in names if n not in phase_ids()]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown phase(s) {unknown or [text]}: choose from "
                                         f"{phase_ids()} (phase 1 always runs)")
    return frozenset(names)


def add_config_options(p: argparse.ArgumentParser, several_state_dtypes: bool) -> None:
    geometry = p.add_mutually_exclusive_group()
    geometry.add_argument("--dims", type=parse_dims, metavar="NAME=N,...",
                          help="dims by the spec's model-native names")
    geometry.add_argument("--config", metavar="NAME", help="a named geometry of the spec")
    p.add_argument("--buffer-length", type=positive_int, metavar="L", help="ring length")
    if several_state_dtypes:
        p.add_argument("--state-dtype", type=dtype_list, action="append", metavar="DT[,DT]",
                       help=f"checkpoint precisions, from {list(STATE_DTYPES)} (repeatable)")
    else:
        p.add_argument("--state-dtype", type=dtype_list, metavar="DT",
                       help=f"checkpoint precision, one of {list(STATE_DTYPES)}")
    p.add_argument("--record-dtype", choices=RECORD_DTYPES, help="record precision")
    p.add_argument("--record-dtypes", type=field_dtypes, metavar="FIELD=DT,...",
                   help="per-field record precisions (e.g. g=fp32)")
    p.add_argument("--read-dtype", choices=QUANTIZED,
                   help="low-precision read copy that non-flush steps read")
    p.add_argument("--stochastic", action="store_true", default=None,
                   help="store an fp16/bf16 checkpoint with stochastic rounding")
    p.add_argument("--fp8-scale", choices=FP8_SCALES, help="fp8 scale granularity (default row)")
    p.add_argument("--max-drafts", type=positive_int, metavar="T",
                   help="T_MAX: most drafts one speculative verify appends (default 1)")
    p.add_argument("--verify-folds", action="store_true", default=None,
                   help="a verify folds the rows whose drafts would pass L committed records "
                        "(max drafts in 2..L, plain checkpoint, no read copy)")


def add_timing_options(p: argparse.ArgumentParser, unit: str) -> None:
    """Options shared by the GPU commands (tune, bench)."""
    p.add_argument("--jobs", type=positive_int, default=default_jobs(), metavar="N",
                   help="processes compiling ahead (1: compile while timing)")
    p.add_argument("--reps", type=positive_int, default=20, metavar="N", help="timed runs per median")
    p.add_argument("--budget-s", type=positive_int, metavar="S",
                   help=f"start no new {unit} after S seconds; what is measured is written")


def make_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="replaygen", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    variants = available_variants()

    b = sub.add_parser("build", help="emit kernels into generated/")
    which = b.add_mutually_exclusive_group(required=True)
    which.add_argument("--variant", choices=variants, help="one spec of specs/")
    which.add_argument("--all", action="store_true", help="every spec in specs/")
    b.add_argument("--check", action="store_true",
                   help="write nothing; exit 1 listing stale, missing and orphan files")
    b.add_argument("--prune", action="store_true", help="delete orphan files")
    b.add_argument("--out", type=Path, default=GENERATED_DIR, metavar="DIR",
                   help="output tree (default: the repository's generated/)")
    add_config_options(b, several_state_dtypes=True)
    b.set_defaults(run=build, parser=b)

    sub.add_parser("list", help="variants, configurations and generated files"
                   ).set_defaults(run=list_variants)

    s = sub.add_parser("show", help="derivation, record layout, code and traffic of one config")
    s.add_argument("--variant", choices=variants, required=True, help="one spec of specs/")
    add_config_options(s, several_state_dtypes=False)
    s.add_argument("--input-bytes", type=positive_int, default=2, metavar="B",
                   help="bytes of an input or output element (default 2, bf16)")
    s.add_argument("--optional", action="store_true", help="count optional inputs too")
    s.set_defaults(run=show, parser=s)

    a = sub.add_parser("accuracy", help="error study of the precision modes vs fp32-state decoding")
    a.add_argument("--variant", choices=variants, required=True, help="one spec of specs/")
    a.add_argument("--tokens", type=positive_int, metavar="N",
                   help="tokens per sequence (default 32768 on cuda, 256 on cpu)")
    a.add_argument("--rows", type=positive_int, metavar="B",
                   help="sequences decoded at once (default 32 on cuda, 2 on cpu)")
    a.add_argument("--out", type=Path, metavar="DIR",
                   help="output folder (default bench/results/accuracy-VARIANT)")
    a.add_argument("--device", choices=("cuda", "cpu"), help="default: cuda if available")
    a.add_argument("--modes", type=mode_list, metavar="M,...",
                   default=["shared-fp8", "shared-nvfp4", "fp32+fp8", "fp32+nvfp4",
                            "fp16sr+nvfp4", "bf16sr+fp8", "fp16sr", "fp16"],
                   help="precision modes (fp32 is always run: the baseline)")
    a.add_argument("--dims", type=parse_dims, metavar="NAME=N,...",
                   help="geometry (default: the spec's first named config)")
    a.add_argument("--buffer-length", type=positive_int, metavar="L", help="ring length (16)")
    a.add_argument("--record-dtype", choices=RECORD_DTYPES, help="record precision (bf16)")
    a.add_argument("--budget-s", type=float, metavar="S",
                   help="stop after S seconds of decoding and report the tokens done")
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--no-plot", action="store_true", help="write the data only")
    a.add_argument("--replot", type=Path, metavar="DIR",
                   help="only draw DIR/accuracy.png from DIR/result.json")
    a.set_defaults(run=accuracy, parser=a)

    t = sub.add_parser("tune", help="offline launch sweep on a GPU; writes <out>/<variant>/tuning.json")
    which = t.add_mutually_exclusive_group(required=True)
    which.add_argument("--variant", choices=variants, help="one spec of specs/")
    which.add_argument("--all", action="store_true", help="every spec in specs/")
    t.add_argument("--config", metavar="NAME", help="one named geometry (default: all of the spec's)")
    t.add_argument("--batches", type=int_list, default=(1, 8, 64, 256, 512), metavar="B,...",
                   help="batch buckets (default 1,8,64,256,512)")
    t.add_argument("--L", type=int_list, metavar="L,...", help="ring lengths (default: the spec's)")
    t.add_argument("--state-dtype", type=dtype_list, default=["fp32"], metavar="DT[,DT]",
                   help="checkpoint precisions (default fp32)")
    t.add_argument("--record-dtype", choices=RECORD_DTYPES, default="bf16", help="record precision")
    t.add_argument("--read-dtype", choices=QUANTIZED,
                   help="tune the configurations with this read copy (default: none)")
    t.add_argument("--fp8-scale", choices=FP8_SCALES, help="fp8 read copy scales (default row)")
    t.add_argument("--stochastic", action="store_true",
                   help="tune the fp16/bf16 checkpoints with stochastic rounding")
    t.add_argument("--decode-structure", choices=("kchunks", "vtiles"),
                   help="tune the configurations with this decode structure forced (default: "
                        "the plan's choice), so that both can be compared")
    t.add_argument("--gate-records", choices=("step", "cumulative"),
                   help="what a per-channel decay's gate record holds (default: the plan's "
                        "choice, cumulative), so that both layouts can be tuned")
    t.add_argument("--kernels", type=kernel_list, metavar="K,...",
                   help="tune only these kernels (replay_decode, fold, conventional_decode, "
                        "verify, verify_fold, commit; default: all of the configuration's)")
    t.add_argument("--max-drafts", type=positive_int, metavar="T",
                   help="tune the verify, fold and commit launches of configurations built for "
                        "T drafts (default: the decode kernels of non-speculative configurations)")
    t.add_argument("--verify-folds", action="store_true",
                   help="configurations built with verify_folds=True (their verify_fold "
                        "launch is tuned too)")
    t.add_argument("--refine", action="store_true",
                   help="phase 1 times the table's launches for this GPU (or its "
                        "stand-in's) and the plan's, not the whole grid, and the later phases "
                        "start from them: a quick re-sweep after new launch choices land (a "
                        "kernel without an entry still gets the grid)")
    t.add_argument("--phases", type=phase_list, metavar="P,...",
                   help="after phase 1, run only these phases (of 1b, 2, 2b, ... 7: the "
                        "sweep's docstring, replaygen/tune.py); with --refine, a named launch "
                        "choice tried on the tabled launches")
    t.add_argument("--out", type=Path, default=GENERATED_DIR, metavar="DIR",
                   help="tree of tuning files (default: the repository's generated/)")
    add_timing_options(t, "configuration (or phase)")
    t.set_defaults(run=tune, parser=t)

    bench_variants = [v for v in ("mamba2", "gdn", "kda") if v in variants] or variants
    r = sub.add_parser("bench", help="the benchmark suite on a GPU (JSON, CSV, markdown, PNG)")
    r.add_argument("--variants", type=name_list(variants), default=tuple(bench_variants),
                   metavar="V,...", help=f"default {','.join(bench_variants)}")
    r.add_argument("--batches", type=int_list, metavar="B,...", help="default 1,8,64,256,512")
    r.add_argument("--L", type=int_list, metavar="L,...", help="ring lengths (default 8,16,32)")
    r.add_argument("--out", type=Path, metavar="DIR", help="report folder (default bench/results/latest)")
    r.add_argument("--eager", action="store_true", help="also time eager launches (no CUDA graph)")
    r.add_argument("--quick", action="store_true",
                   help="smoke subset: first geometry per variant, batches 8,256, L 16")
    r.add_argument("--tuning", type=Path, metavar="DIR",
                   help="use DIR/<variant>/tuning.json where present (default: the committed tables)")
    add_timing_options(r, "geometry")
    r.add_argument("--replot", type=Path, metavar="DIR",
                   help="only rewrite the CSV, markdown and PNG from DIR/bench.json (any machine)")
    r.set_defaults(run=bench, parser=r)
    return parser


def conflict(args) -> str | None:
    """Options that parse one by one but not together."""
    if args.command == "show" and args.state_dtype and len(args.state_dtype) > 1:
        return "show takes one --state-dtype"
    if args.command != "build":
        return None
    if args.check and args.prune:
        return "--check writes nothing; it cannot be combined with --prune"
    if custom_requested(args) and args.all:
        return ("--dims/--config/--buffer-length/--state-dtype/--record-dtype and the "
                "precision options need --variant")
    if custom_requested(args) and args.prune:
        return "--prune keeps the default configurations; custom options cannot prune"
    return None


def main(argv: list[str] | None = None) -> int:
    args = make_parser().parse_args(argv)
    args.argv = argv
    problem = conflict(args)
    if problem:
        args.parser.error(problem)
    try:
        return args.run(args)
    except BrokenPipeError:
        # the reader went away (`replaygen show ... | head`): not an error of this command;
        # stdout's pipe is closed, so Python's own flush at exit is pointed elsewhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (ReplaygenError, OSError) as exc:
        print(f"replaygen: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
