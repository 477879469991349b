"""Print sympy expressions as Triton source.

Input: a sympy expression whose free symbols all have a name in `names` (the Triton
variable holding that value in the kernel), `reduce_axis`, the tile axis that a `sumsq`
reduces, and optionally the symbols that hold one value per tile row (so that a tile
divided by such a value is printed as the tile times one per-row quotient). Output: one
Triton expression string.
Invariants: every operator whose Python and Triton meanings differ is printed
explicitly (powers, rationals, the custom functions); numeric sub-expressions are
folded to float literals; nothing is printed by patching text.
"""
from __future__ import annotations

import sympy
from sympy.printing.str import StrPrinter

from . import formulas


class TritonPrinter(StrPrinter):
    def __init__(self, names: dict[sympy.Symbol, str], reduce_axis: int = 0,
                 keep_dims: bool = False, row_scalars: frozenset | None = None):
        super().__init__({"full_prec": True})
        self.names = names
        self.reduce_axis = reduce_axis
        self.keep_dims = keep_dims
        self.row_scalars = row_scalars

    def _row_scalar(self, e) -> bool:
        """Whether `e` has one value per tile row (row_scalars and whole-axis reductions
        only): a quotient of a tile by it is printed as the tile times one reciprocal."""
        flat = e.xreplace({node: sympy.Integer(1) for node in e.atoms(formulas.sumsq)})
        return self.row_scalars is not None and flat.free_symbols <= self.row_scalars

    # -- leaves ------------------------------------------------------------------
    def _print_Symbol(self, expr):
        try:
            return self.names[expr]
        except KeyError:
            raise KeyError(f"no Triton name for symbol {expr}") from None

    def _number(self, expr) -> str:
        return repr(float(expr))

    _print_Integer = _print_Rational = _print_Float = _number
    _print_NegativeOne = _print_One = _print_Zero = _print_Half = _number

    def _print_NumberSymbol(self, expr):
        return repr(float(expr))

    def doprint(self, expr):
        if isinstance(expr, sympy.Expr) and not expr.free_symbols:
            return repr(float(expr))
        return super().doprint(expr)

    # -- operators ---------------------------------------------------------------
    def _print_Mul(self, expr):
        num, den = [], []
        for f in sympy.Mul.make_args(expr):
            if f.is_Pow and f.exp.is_Number and f.exp < 0 and f.free_symbols:
                den.append(sympy.Pow(f.base, -f.exp))
            else:
                num.append(f)
        # Constant factors (sqrt(2), 1/K, ...) fold into one float literal.
        coeff = sympy.Mul(*[f for f in num if not f.free_symbols])
        rest = [f for f in num if f.free_symbols]
        tiles = [f for f in rest if not self._row_scalar(f)]
        if den and tiles and all(self._row_scalar(d) for d in den):
            # x / r over a [rows, K] tile x and a per-row r: one division per row
            per_row = sympy.Mul(coeff, *[f for f in rest if f not in tiles]) / sympy.Mul(*den)
            return " * ".join([self._paren(f) for f in tiles] + [f"({self._print(per_row)})"])
        parts = [self._paren(f) for f in rest]
        if coeff == -1:
            parts = ["-" + (parts[0] if parts else "1.0")] + parts[1:]
        elif coeff != 1 or not parts:
            parts = [self._number(coeff)] + parts
        text = " * ".join(parts)
        # a division by a square root is a multiply by the GPU's reciprocal square root
        # (MUFU.RSQ: one instruction, where sqrt and an IEEE division take ~20)
        roots = [d for d in den if d.is_Pow and d.exp == sympy.Rational(1, 2)]
        text += "".join(f" * {self._print(sympy.Pow(d.base, -sympy.Rational(1, 2)))}" for d in roots)
        if len(roots) < len(den):
            text = f"{text} / {' / '.join(self._paren(d) for d in den if d not in roots)}"
        return text

    def _paren(self, e):
        s = self._print(e)
        return f"({s})" if (e.is_Add or (e.is_Mul and len(e.args) > 1)
                            or (e.is_Number and e < 0)) else s

    def _print_Add(self, expr):
        terms = list(expr.as_ordered_terms())
        out = self._print(terms[0])
        for t in terms[1:]:
            s = self._print(t)
            out += f" - {s[1:]}" if s.startswith("-") and not s.startswith("-(") else f" + {s}"
        return out

    def _print_Pow(self, expr):
        base, exp = expr.args
        b = self._paren(base) if base.args else self._print(base)
        if exp == sympy.Rational(1, 2):
            return f"tl.sqrt({self._print(base)})"
        if exp == -sympy.Rational(1, 2):
            return f"tl.math.rsqrt({self._print(base)})"
        if exp.is_Integer and 1 <= exp <= 4:
            return "(" + " * ".join([b] * int(exp)) + ")"
        if exp.is_Integer and -4 <= exp <= -1:
            return "(1.0 / (" + " * ".join([b] * int(-exp)) + "))"
        return f"devmath.exp(({self._print(exp)}) * devmath.log({self._print(base)}))"

    # -- functions ---------------------------------------------------------------
    # exp and log: the GPU's approximate instructions (devmath: two instructions each,
    # where Triton's lowering takes five for exp and libdevice's ~28 for log)
    def _print_exp(self, expr):
        return f"devmath.exp({self._print(expr.args[0])})"

    def _print_log(self, expr):
        return f"devmath.log({self._print(expr.args[0])})"

    def _print_softplus(self, expr):
        x = self._print(expr.args[0])
        t = formulas.softplus.THRESHOLD
        # The threshold matches the models; above it log(1 + exp(x)) == x in fp32.
        return f"tl.where(({x}) > {t!r}, ({x}), devmath.log(1.0 + devmath.exp(tl.minimum(({x}), {t!r}))))"

    def _print_sigmoid(self, expr):
        return f"(1.0 / (1.0 + devmath.exp(-({self._print(expr.args[0])}))))"

    def _print_silu(self, expr):
        x = self._print(expr.args[0])
        return f"(({x}) / (1.0 + devmath.exp(-({x}))))"

    def _print_logsigmoid(self, expr):
        return self._print(-formulas.softplus(-expr.args[0]))

    def _print_sumsq(self, expr):
        x = self._print(expr.args[0])
        keep = ", keep_dims=True" if self.keep_dims else ""
        return f"tl.sum(({x}) * ({x}), axis={self.reduce_axis}{keep})"


def print_triton(expr: sympy.Expr, names: dict[sympy.Symbol, str], reduce_axis: int = 0,
                 keep_dims: bool = False, row_scalars: frozenset | None = None) -> str:
    """Print `expr` as a Triton expression; `sumsq` reduces `reduce_axis` of a tile;
    `row_scalars`: symbols with one value per tile row (see TritonPrinter._row_scalar)."""
    return TritonPrinter(names, reduce_axis, keep_dims, row_scalars).doprint(expr)
