"""The formula language of specs: sympy expressions over named per-token quantities.

Input: formula strings from a spec and the set of declared names.
Output: sympy expressions whose functions are the ones below (plus exp, log, sqrt).
Invariants: a parsed formula contains only declared symbols and known functions;
anything else raises a `FormulaError` that the spec loader turns into a `SpecError`.

The custom functions carry their own numerical definition (`numeric`), used by the
exact/float checks in `derive`, and are printed to Triton by `printer.TritonPrinter`.
"""
from __future__ import annotations

import math

import sympy
from sympy.core.function import AppliedUndef
from sympy.parsing.sympy_parser import parse_expr, standard_transformations


class FormulaError(Exception):
    """A formula string cannot be used (syntax, undeclared name, unknown function)."""


class softplus(sympy.Function):
    """log(1 + exp(x)), returning x above the threshold 20 as the models do."""

    nargs = 1
    THRESHOLD = 20.0

    @staticmethod
    def numeric(x: float) -> float:
        return x if x > softplus.THRESHOLD else math.log1p(math.exp(x))


class sigmoid(sympy.Function):
    """1 / (1 + exp(-x))."""

    nargs = 1

    @staticmethod
    def numeric(x: float) -> float:
        return 1.0 / (1.0 + math.exp(-x))


class silu(sympy.Function):
    """x * sigmoid(x)."""

    nargs = 1

    @staticmethod
    def numeric(x: float) -> float:
        return x / (1.0 + math.exp(-x))


class logsigmoid(sympy.Function):
    """log(sigmoid(x)) = -softplus(-x)."""

    nargs = 1

    @staticmethod
    def numeric(x: float) -> float:
        return -softplus.numeric(-x)


class sumsq(sympy.Function):
    """Sum of squares of a vector over its one axis: a reduction (vector -> scalar)."""

    nargs = 1


ELEMENTWISE_FUNCTIONS = {f.__name__: f for f in (softplus, sigmoid, silu, logsigmoid)}
REDUCTIONS = {"sumsq": sumsq}
BUILTIN_FUNCTIONS = {"exp": sympy.exp, "log": sympy.log, "sqrt": sympy.sqrt}
KNOWN_FUNCTIONS = {**BUILTIN_FUNCTIONS, **ELEMENTWISE_FUNCTIONS, **REDUCTIONS}


def parse_formula(text: str, names: dict[str, sympy.Symbol]) -> sympy.Expr:
    """Parse `text` with exactly the symbols in `names` and the known functions."""
    if not isinstance(text, str) or not text.strip():
        raise FormulaError("a formula must be a non-empty string")
    local = {**KNOWN_FUNCTIONS, **names}
    # A bare global namespace: names like E, I, S, N, C or beta must never silently
    # become sympy built-ins; anything undeclared is caught below.
    global_ns = {
        "Integer": sympy.Integer, "Float": sympy.Float, "Rational": sympy.Rational,
        "Symbol": sympy.Symbol, "Function": sympy.Function,
    }
    try:
        expr = parse_expr(text, local_dict=local, global_dict=global_ns,
                          transformations=standard_transformations, evaluate=True)
    except Exception as exc:  # sympy raises many types for bad syntax
        raise FormulaError(f"cannot parse {text!r}: {exc}") from None
    if not isinstance(expr, sympy.Expr):
        raise FormulaError(f"{text!r} is not an arithmetic expression")
    unknown_fn = sorted({type(f).__name__ for f in expr.atoms(AppliedUndef)})
    if unknown_fn:
        raise FormulaError(f"unknown function(s) {unknown_fn} in {text!r}; "
                           f"known: {sorted(KNOWN_FUNCTIONS)}")
    declared = set(names.values())
    undeclared = sorted(s.name for s in expr.free_symbols if s not in declared)
    if undeclared:
        raise FormulaError(f"undeclared symbol(s) {undeclared} in {text!r}")
    return expr


def evaluate(expr: sympy.Expr, values: dict[sympy.Symbol, object], ops: dict | None = None):
    """Evaluate `expr` numerically on float scalars or numpy arrays (elementwise),
    with `sumsq` reducing a vector to a scalar. Used by derivation checks. `ops`
    replaces the array functions ("exp", "log", "pow", "sumsq" and the elementwise
    functions by name): the accuracy study evaluates formulas on torch tensors."""
    import numpy as np

    ops = ops or {"exp": np.exp, "log": np.log, "pow": np.power,
                  "sumsq": lambda x: float(np.sum(np.square(x))),
                  **{name: np.vectorize(fn.numeric, otypes=[float])
                     for name, fn in ELEMENTWISE_FUNCTIONS.items()}}

    def ev(e):
        if e in values:
            return values[e]
        if e.is_Number:
            return float(e)
        args = [ev(a) for a in e.args]
        if e.is_Add:
            out = args[0]
            for a in args[1:]:
                out = out + a
            return out
        if e.is_Mul:
            out = args[0]
            for a in args[1:]:
                out = out * a
            return out
        if e.is_Pow:
            return ops["pow"](args[0], args[1])
        if isinstance(e, sympy.exp):
            return ops["exp"](args[0])
        if isinstance(e, sympy.log):
            return ops["log"](args[0])
        if isinstance(e, sumsq):
            return ops["sumsq"](args[0])
        if type(e).__name__ in ELEMENTWISE_FUNCTIONS:
            return ops[type(e).__name__](args[0])
        raise FormulaError(f"cannot evaluate {e}")

    return ev(expr)
