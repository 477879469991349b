"""Load and validate a variant spec (one TOML file in `specs/`).

Input: a TOML file path. Output: a frozen `Spec`.
Invariants of a returned Spec: every formula parses with declared names only; every
quantity has a known head role ("key" head, "value" head or "none") and axis
("scalar", "K" or "V"); the transition is one the generator can lower; every default
configuration has all dims, positive, with value heads a multiple of key heads.
Any violation raises `SpecError(file, field, reason)`. Nothing here knows a variant
by name: all variant knowledge is in the file.
"""
from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import sympy

from .errors import ConfigError, SpecError
from .formulas import FormulaError, parse_formula, sumsq

SPEC_DIR = Path(__file__).resolve().parent.parent / "specs"

ROLES = ("key_heads", "value_heads", "key_dim", "value_dim")
DECAYS = ("scalar", "channel", "none")
UPDATES = ("additive", "delta")
DTYPES = ("fp32", "bf16", "fp16")
TOP_LEVEL = {"variant", "geometry", "inputs", "params", "derive", "transition",
             "output", "state", "build", "configs", "study"}
DISTRIBUTIONS = ("normal", "uniform")   # [study] draws: normal(mean, std), uniform(lo, hi)


@dataclass(frozen=True)
class Quantity:
    """A named per-head quantity: an input, a parameter, a derived formula or a dim."""

    name: str
    kind: str                  # "input" | "param" | "derived" | "dim"
    head: str                  # "key" | "value" | "none"
    axis: str                  # "scalar" | "K" | "V"
    token: bool                # depends on the current token
    optional: bool = False
    shape: tuple[str, ...] = ()  # model-native dims, without the batch dim
    expr: sympy.Expr | None = None

    @property
    def symbol(self) -> sympy.Symbol:
        return sympy.Symbol(self.name)


@dataclass(frozen=True)
class Transition:
    decay: str                 # "scalar" | "channel" | "none"
    update: str                # "additive" | "delta"
    key: sympy.Expr
    query: sympy.Expr
    value: sympy.Expr
    gate: sympy.Expr | None
    beta: sympy.Expr | None


@dataclass(frozen=True)
class NamedConfig:
    name: str
    dims: dict[str, int]


@dataclass(frozen=True)
class BuildDefaults:
    buffer_length: int
    state_dtypes: tuple[str, ...]
    record_dtype: str


@dataclass(frozen=True)
class Spec:
    name: str
    title: str
    path: Path
    source_hash: str           # sha256 of the file's bytes, for provenance headers
    geometry: dict[str, str]   # role -> model-native dim name
    quantities: dict[str, Quantity]
    transition: Transition
    output_skip: sympy.Expr | None
    output_gate: sympy.Expr | None
    state_layout: tuple[str, ...]
    defaults: BuildDefaults
    configs: tuple[NamedConfig, ...] = field(default=())
    # [study]: how `replaygen accuracy` draws an input or parameter, name -> (kind, a, b);
    # anything not listed is N(0, 1)
    study: dict[str, tuple[str, float, float]] = field(default_factory=dict)

    # -- conveniences used by later passes -------------------------------------
    @property
    def dim_names(self) -> tuple[str, ...]:
        return tuple(self.geometry[r] for r in ROLES)

    def inputs(self) -> list[Quantity]:
        return [q for q in self.quantities.values() if q.kind == "input"]

    def params(self) -> list[Quantity]:
        return [q for q in self.quantities.values() if q.kind == "param"]

    def check_dims(self, dims: dict[str, int]) -> dict[str, int]:
        """Validate a full set of dims for this spec; return them as plain ints."""
        missing = [d for d in self.dim_names if d not in dims]
        extra = [d for d in dims if d not in self.dim_names]
        if missing or extra:
            raise ConfigError(f"{self.name}: dims must be exactly {list(self.dim_names)}"
                              f" (missing {missing}, unknown {extra})")
        out = {}
        for d in self.dim_names:
            v = dims[d]
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise ConfigError(f"{self.name}: dim '{d}' must be a positive integer, got {v!r}")
            out[d] = v
        kh, vh = out[self.geometry["key_heads"]], out[self.geometry["value_heads"]]
        if vh % kh:
            raise ConfigError(f"{self.name}: {self.geometry['value_heads']}={vh} is not a "
                              f"multiple of {self.geometry['key_heads']}={kh}")
        return out


# ----------------------------------------------------------------------------------
class _Loader:
    def __init__(self, path: Path):
        self.path = path
        self.file = str(path)

    def fail(self, fld: str, reason: str):
        raise SpecError(self.file, fld, reason)

    def table(self, data: dict, key: str, allowed: set[str], required: set[str] = frozenset()):
        tbl = data.get(key, {})
        if not isinstance(tbl, dict):
            self.fail(key, "must be a table")
        for k in tbl:
            if k not in allowed:
                self.fail(f"{key}.{k}", f"unknown key; allowed: {sorted(allowed)}")
        for k in required:
            if k not in tbl:
                self.fail(f"{key}.{k}", "is required")
        return tbl

    def load(self) -> Spec:
        raw = self.path.read_bytes()
        try:
            data = tomllib.loads(raw.decode())
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            self.fail("<file>", f"not valid TOML: {exc}")
        for k in data:
            if k not in TOP_LEVEL:
                self.fail(k, f"unknown top-level key; allowed: {sorted(TOP_LEVEL)}")

        variant = self.table(data, "variant", {"name", "title"}, {"name"})
        name = variant["name"]
        if not isinstance(name, str) or not name.isidentifier():
            self.fail("variant.name", "must be an identifier")
        if name != self.path.stem:
            self.fail("variant.name", f"'{name}' must match the file name '{self.path.stem}'")

        geometry = self.table(data, "geometry", set(ROLES), set(ROLES))
        for role, dim in geometry.items():
            if not isinstance(dim, str) or not dim.isidentifier():
                self.fail(f"geometry.{role}", "must be an identifier naming a dim")
        if len(set(geometry.values())) != 4:
            self.fail("geometry", "the four roles need four distinct dim names")
        dim_role = {dim: role for role, dim in geometry.items()}

        quantities: dict[str, Quantity] = {
            d: Quantity(d, "dim", "none", "scalar", token=False) for d in dim_role}
        self._tensors(data, "inputs", geometry, dim_role, quantities)
        self._tensors(data, "params", geometry, dim_role, quantities)
        derive = self.table(data, "derive", set(_any_key(data.get("derive", {}))))
        for dname, text in derive.items():
            self._new_name(f"derive.{dname}", dname, quantities)
            expr = self.formula(f"derive.{dname}", text, quantities)
            head, axis, token, optional = self.infer(f"derive.{dname}", expr, quantities)
            quantities[dname] = Quantity(dname, "derived", head, axis, token, optional, expr=expr)

        transition = self._transition(data, quantities)
        out = self.table(data, "output", {"skip", "gate"})
        skip = gate = None
        if "skip" in out:
            skip = self.formula("output.skip", out["skip"], quantities)
            if self._expect("output.skip", skip, quantities, heads={"value"}, axes={"V", "scalar"})[2]:
                self.fail("output.skip", "may not depend on an optional input (only the output "
                          "gate is dropped when its optional input is absent)")
        if "gate" in out:
            gate = self.formula("output.gate", out["gate"], quantities)
            self._expect("output.gate", gate, quantities, heads={"value"}, axes={"V", "scalar"})

        state = self.table(data, "state", {"layout"}, {"layout"})
        layout = self.string_list("state.layout", state["layout"])
        want = (geometry["value_heads"], geometry["value_dim"], geometry["key_dim"])
        if layout != want:
            self.fail("state.layout", f"{list(layout)} cannot be lowered: the generator "
                      f"stores states V-first per value head, {list(want)}")

        build = self.table(data, "build", {"buffer_length", "state_dtypes", "record_dtype"},
                           {"buffer_length", "state_dtypes", "record_dtype"})
        L = build["buffer_length"]
        if isinstance(L, bool) or not isinstance(L, int) or L < 1:
            self.fail("build.buffer_length", f"must be an integer >= 1, got {L!r}")
        sdt = self.string_list("build.state_dtypes", build["state_dtypes"])
        if not isinstance(build["record_dtype"], str):
            self.fail("build.record_dtype", f"must be a string, got {build['record_dtype']!r}")
        for dt in sdt + (build["record_dtype"],):
            if dt not in DTYPES:
                self.fail("build", f"unknown dtype {dt!r}; known: {list(DTYPES)}")
        defaults = BuildDefaults(L, sdt, build["record_dtype"])

        spec = Spec(name=name, title=variant.get("title", name), path=self.path,
                    source_hash=hashlib.sha256(raw).hexdigest(), geometry=dict(geometry),
                    quantities=quantities, transition=transition, output_skip=skip,
                    output_gate=gate, state_layout=layout, defaults=defaults)
        configs = []
        raw_configs = data.get("configs", [])
        if not isinstance(raw_configs, list) or not raw_configs:
            self.fail("configs", "needs at least one [[configs]] entry")
        for i, c in enumerate(raw_configs):
            where = f"configs[{i}]"
            if not isinstance(c, dict) or set(c) != {"name", "dims"}:
                self.fail(where, "needs exactly the keys 'name' and 'dims'")
            try:
                dims = spec.check_dims(dict(c["dims"]))
            except ConfigError as exc:
                self.fail(f"{where}.dims", str(exc))
            configs.append(NamedConfig(c["name"], dims))
        if len({c.name for c in configs}) != len(configs):
            self.fail("configs", "config names must be unique")
        return Spec(**{**spec.__dict__, "configs": tuple(configs),
                       "study": self._study(data, quantities)})

    def _study(self, data, quantities) -> dict[str, tuple[str, float, float]]:
        drawn = {n for n, q in quantities.items() if q.kind in ("input", "param")}
        tbl = self.table(data, "study", drawn)
        out = {}
        for name, text in tbl.items():
            fld = f"study.{name}"
            kind, _, rest = str(text).partition("(")
            try:
                a, b = (float(x) for x in rest.rstrip(") ").split(","))
            except ValueError:
                a = b = None
            if not isinstance(text, str) or kind.strip() not in DISTRIBUTIONS or a is None \
                    or not rest.strip().endswith(")"):
                self.fail(fld, f"must be 'normal(mean, std)' or 'uniform(lo, hi)', got {text!r}")
            if (kind.strip() == "normal" and b < 0) or (kind.strip() == "uniform" and b < a):
                self.fail(fld, f"{text!r}: a negative std or an empty range")
            out[name] = (kind.strip(), a, b)
        return out

    # -- pieces ------------------------------------------------------------------
    def string_list(self, fld: str, value, allow_empty: bool = False) -> tuple[str, ...]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.fail(fld, f"must be a list of strings, got {value!r}")
        if not value and not allow_empty:
            self.fail(fld, "needs at least one entry")
        return tuple(value)

    def _new_name(self, fld: str, name: str, quantities: dict):
        if not name.isidentifier():
            self.fail(fld, f"'{name}' is not an identifier")
        if name in quantities:
            self.fail(fld, f"'{name}' is already declared")

    def _tensors(self, data, key, geometry, dim_role, quantities):
        tbl = data.get(key, {})
        if not isinstance(tbl, dict):
            self.fail(key, "must be a table")
        for tname, decl in tbl.items():
            fld = f"{key}.{tname}"
            self._new_name(fld, tname, quantities)
            allowed = {"shape", "optional"} if key == "inputs" else {"shape"}
            if not isinstance(decl, dict) or "shape" not in decl or set(decl) - allowed:
                self.fail(fld, f"must be a table with 'shape' (allowed keys {sorted(allowed)})")
            shape = self.string_list(f"{fld}.shape", decl["shape"], allow_empty=True)
            if "optional" in decl and not isinstance(decl["optional"], bool):
                self.fail(f"{fld}.optional", f"must be true or false, got {decl['optional']!r}")
            roles = []
            for d in shape:
                if d not in dim_role:
                    self.fail(f"{fld}.shape", f"unknown dim '{d}'; dims: {sorted(dim_role)}")
                roles.append(dim_role[d])
            head, axis = "none", "scalar"
            rest = roles
            if rest and rest[0] in ("key_heads", "value_heads"):
                head, rest = ("key" if rest[0] == "key_heads" else "value"), rest[1:]
            if len(rest) == 1 and rest[0] in ("key_dim", "value_dim"):
                axis = "K" if rest[0] == "key_dim" else "V"
            elif rest:
                self.fail(f"{fld}.shape", f"{list(shape)} cannot be lowered: expected "
                          f"[heads] or [heads, {geometry['key_dim']}|{geometry['value_dim']}]")
            optional = bool(decl.get("optional", False))
            quantities[tname] = Quantity(tname, key[:-1] if key == "inputs" else "param",
                                         head, axis, token=(key == "inputs"),
                                         optional=optional, shape=shape)

    def formula(self, fld, text, quantities) -> sympy.Expr:
        names = {n: sympy.Symbol(n) for n in quantities}
        try:
            return parse_formula(text, names)
        except FormulaError as exc:
            self.fail(fld, str(exc))

    def infer(self, fld, expr, quantities):
        """Head role, axis, token dependence and optionality of an expression, by
        broadcasting: scalars broadcast; K and V axes never mix; sumsq reduces a K axis."""
        def go(e):
            if isinstance(e, sympy.Symbol):
                q = quantities[e.name]
                return q.head, q.axis, q.token, q.optional
            if e.is_Number:
                return "none", "scalar", False, False
            parts = [go(a) for a in e.args]
            heads = {p[0] for p in parts} - {"none"}
            axes = {p[1] for p in parts} - {"scalar"}
            if len(axes) > 1:
                self.fail(fld, f"'{e}' mixes the key axis and the value axis")
            head = "value" if "value" in heads else ("key" if heads else "none")
            axis = axes.pop() if axes else "scalar"
            token = any(p[2] for p in parts)
            optional = any(p[3] for p in parts)
            if isinstance(e, sumsq):
                if axis != "K":
                    self.fail(fld, f"sumsq({e.args[0]}) must reduce a key-axis vector "
                              "(value-axis reductions cannot be lowered: V is tiled)")
                axis = "scalar"
            return head, axis, token, optional
        return go(expr)

    def _expect(self, fld, expr, quantities, heads, axes, token=True):
        head, axis, tok, optional = self.infer(fld, expr, quantities)
        if head not in heads | {"none"} or axis not in axes:
            self.fail(fld, f"'{expr}' has head role '{head}' and axis '{axis}'; "
                      f"expected head in {sorted(heads)} and axis in {sorted(axes)}")
        if token and not tok:
            self.fail(fld, f"'{expr}' does not depend on the token's inputs")
        return head, axis, optional

    def _transition(self, data, quantities) -> Transition:
        t = self.table(data, "transition",
                       {"decay", "update", "key", "query", "value", "gate", "beta"},
                       {"decay", "update", "key", "query", "value"})
        if t["decay"] not in DECAYS:
            self.fail("transition.decay", f"{t['decay']!r} is not one of {list(DECAYS)}")
        if t["update"] not in UPDATES:
            self.fail("transition.update", f"{t['update']!r} is not one of {list(UPDATES)}")
        f = {k: self.formula(f"transition.{k}", v, quantities) for k, v in t.items()
             if k not in ("decay", "update")}
        for k in f:
            if self.infer(f"transition.{k}", f[k], quantities)[3]:
                self.fail(f"transition.{k}", "may not depend on an optional input")
        self._expect("transition.key", f["key"], quantities, {"key", "value"}, {"K"})
        self._expect("transition.query", f["query"], quantities, {"key", "value"}, {"K"})
        self._expect("transition.value", f["value"], quantities, {"value"}, {"V"})
        if t["decay"] == "none":
            if "gate" in f:
                self.fail("transition.gate", "decay 'none' takes no gate")
        else:
            if "gate" not in f:
                self.fail("transition.gate", f"decay '{t['decay']}' needs a gate")
            axis = "scalar" if t["decay"] == "scalar" else "K"
            self._expect("transition.gate", f["gate"], quantities, {"key", "value"}, {axis})
        if t["update"] == "delta":
            if "beta" not in f:
                self.fail("transition.beta", "a delta-rule update needs beta")
            self._expect("transition.beta", f["beta"], quantities, {"value"}, {"scalar"})
        elif "beta" in f:
            self.fail("transition.beta", "only a delta-rule update takes beta")
        return Transition(t["decay"], t["update"], f["key"], f["query"], f["value"],
                          f.get("gate"), f.get("beta"))


def _any_key(tbl):
    return tbl.keys() if isinstance(tbl, dict) else ()


def load_spec(path: str | Path) -> Spec:
    """Load and validate one spec file."""
    path = Path(path)
    if not path.is_file():
        raise SpecError(str(path), "<file>", "no such spec file")
    return _Loader(path).load()


def available_variants(spec_dir: Path = SPEC_DIR) -> list[str]:
    return sorted(p.stem for p in spec_dir.glob("*.toml"))


def load_variant(name: str, spec_dir: Path = SPEC_DIR) -> Spec:
    path = spec_dir / f"{name}.toml"
    if not path.is_file():
        raise ConfigError(f"unknown variant {name!r}; available: {available_variants(spec_dir)}")
    return load_spec(path)
