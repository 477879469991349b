"""Render a `KernelPlan` through the Jinja templates into one Python module.

Input: a KernelPlan (and its Derivation, for the docstring). Output: module source text.
Invariants: the environment is `StrictUndefined` (a missing variable is an error, never
an empty string); the text is a pure function of the plan, the template files and the
generator's own source (their hashes go into the provenance header, no timestamps);
the result parses as Python (checked here with `ast.parse`).
"""
from __future__ import annotations

import ast
import hashlib
from functools import lru_cache
from pathlib import Path

import jinja2

from .derive import Derivation
from .plan import KernelPlan

PACKAGE_TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "templates"
# where modules render from: bench/common.use_templates re-points it (template A/B runs)
TEMPLATE_DIR = PACKAGE_TEMPLATE_DIR
PACKAGE_DIR = Path(__file__).resolve().parent
# The modules whose code decides generated text: a change in them changes the header.
# (formats.py, devmath.py and launch_order.py: device functions the modules call)
GENERATOR_MODULES = ("formulas.py", "derive.py", "plan.py", "printer.py", "render.py",
                     "formats.py", "devmath.py", "launch_order.py")


def _hash_files(paths) -> str:
    h = hashlib.sha256()
    for p in sorted(paths):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


@lru_cache(maxsize=1)
def _environment() -> tuple[jinja2.Environment, str, str]:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
        trim_blocks=False, lstrip_blocks=False, autoescape=False)
    templates_hash = _hash_files(TEMPLATE_DIR.glob("*.j2"))
    generator_hash = _hash_files(PACKAGE_DIR / m for m in GENERATOR_MODULES)
    return env, templates_hash, generator_hash


def render_module(plan: KernelPlan, deriv: Derivation) -> str:
    env, templates_hash, generator_hash = _environment()
    text = env.get_template("module.py.j2").render(
        plan=plan, templates_hash=templates_hash, generator_hash=generator_hash,
        replay_state=deriv.replay_state, replay_output=deriv.replay_output)
    text = "\n".join(line.rstrip() for line in text.splitlines()) + "\n"
    try:
        ast.parse(text)
    except SyntaxError as exc:  # a generator bug, never a user error
        raise RuntimeError(f"generated module {plan.name} does not parse: {exc}") from exc
    return text
