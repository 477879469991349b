"""Emit generated modules: the last pass of the pipeline.

Input: a variant name (or spec) and a list of `KernelConfig`s. Output: files
`generated/<variant>/<config name>.py` (written only if their content changed), or, in
check mode, a list of problems (stale, missing or orphan files) without writing.
Invariants: one file per config name; names never collide; `generated/` holds nothing
that the current specs and templates would not produce.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .derive import Derivation, derive
from .errors import ConfigError
from .plan import KernelConfig, KernelPlan, make_config, make_plan
from .render import render_module
from .spec import Spec, available_variants, load_variant
from .tuning import TUNING_FILE

GENERATED_DIR = Path(__file__).resolve().parent.parent / "generated"


@dataclass(frozen=True)
class Emitted:
    path: Path
    changed: bool


# Separate-precision configurations committed for each spec's first named geometry:
# (state_dtype, options). Any other combination renders on demand into the cache.
PRECISION_DEFAULTS = (
    ("fp32", dict(read_dtype="fp8")),
    ("fp32", dict(read_dtype="nvfp4")),
    ("fp16", dict(stochastic=True, read_dtype="nvfp4")),
)


def default_configs(spec: Spec) -> list[KernelConfig]:
    """The spec's named geometries, at its default buffer length, for every default
    state precision; and the PRECISION_DEFAULTS for its first geometry."""
    plain = [make_config(spec, c.dims, state_dtype=dt)
             for c in spec.configs for dt in spec.defaults.state_dtypes]
    first = spec.configs[0].dims
    return plain + [make_config(spec, first, state_dtype=dt, **options)
                    for dt, options in PRECISION_DEFAULTS]


def table_configs(spec: Spec) -> dict[str, KernelConfig]:
    """The configurations whose launches the committed tuning tables hold, by name: the
    default ones at the ring lengths the suite measures (L = 8, 16, 32), decode-only and
    speculative (T = 2, 4, 8 drafts; verify_folds at 8). Tests walk them (every entry is
    the launch the runtime takes; the speculative ones' compile for sm_90). Tables may
    also hold configurations outside these (e.g. per-step gate records). Only those that
    exist: make_config refuses some combinations (verify_folds with a read copy)."""
    out = {}
    for c in default_configs(spec):
        options = c.load_options()
        dims = {k: options.pop(k) for k in c.dim_map}
        for varied in ("L", "max_drafts", "verify_folds"):
            del options[varied]
        for L in (8, 16, 32):
            for drafts, folds in ((1, False), (2, False), (4, False), (8, False), (8, True)):
                try:
                    cfg = make_config(spec, dims, L, max_drafts=drafts, verify_folds=folds, **options)
                except ConfigError:
                    continue
                out[cfg.name] = cfg
    return out


def plan_all(spec: Spec, configs: list[KernelConfig]) -> tuple[Derivation, list[KernelPlan]]:
    deriv = derive(spec)
    names = [c.name for c in configs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise ConfigError(f"{spec.name}: configurations collide on the names {dup}")
    return deriv, [make_plan(deriv, c) for c in configs]


def emit(spec: Spec, configs: list[KernelConfig], out_dir: Path = GENERATED_DIR,
         check: bool = False) -> tuple[list[Emitted], list[str]]:
    """Render every config of `spec` into `out_dir/<variant>/`. In check mode nothing is
    written and the problems found are returned (stale, missing and orphan files)."""
    deriv, plans = plan_all(spec, configs)
    folder = out_dir / spec.name
    emitted, problems = [], []
    expected = set()
    for plan in plans:
        path = folder / f"{plan.name}.py"
        expected.add(path.name)
        text = render_module(plan, deriv)
        old = path.read_text() if path.is_file() else None
        changed = old != text
        if check:
            if old is None:
                problems.append(f"missing: {path}")
            elif changed:
                problems.append(f"stale: {path}")
        elif changed:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        emitted.append(Emitted(path, changed))
    for p in orphans(folder, expected):
        problems.append(f"orphan: {p} (no configuration of specs/{spec.name}.toml "
                        "produces it; remove it or run `replaygen build --all --prune`)")
    return emitted, problems


def orphans(folder: Path, expected: set[str]) -> list[Path]:
    """Entries of a variant's folder whose names are not in `expected` (file names)."""
    if not folder.is_dir():
        return []
    # tuning.json is data that `replaygen tune` writes next to the kernels, not a module
    return [p for p in sorted(folder.iterdir())
            if p.name not in expected | {"__pycache__", TUNING_FILE}]


def check_tree(out_dir: Path = GENERATED_DIR) -> list[str]:
    """Problems of the whole generated tree against every spec's defaults."""
    problems = []
    variants = available_variants()
    for v in variants:
        spec = load_variant(v)
        problems += emit(spec, default_configs(spec), out_dir, check=True)[1]
    if out_dir.is_dir():
        for p in sorted(out_dir.iterdir()):
            if p.name not in variants and p.name != "__pycache__" and not p.name.startswith("."):
                problems.append(f"orphan: {p} (no spec named {p.name})")
    return problems
