"""Plan the kernels of one configuration: every decision the templates need.

Input: a `Derivation` and a `KernelConfig` (dims, buffer length, precisions).
Output: a `KernelPlan`: identity (name), constants, block sizes, the tensors each
kernel takes, and the variant math printed to Triton (`Statement`s) for three contexts:
the current token at head level (scalar and key-axis values), the current token per
value tile, and the ring records as tiles ([BL, 1], [BL, BK] or [BL, BV]).
Invariants: templates do no arithmetic and make no variant decisions; every symbol a
printed statement uses is defined earlier in the same context; dims are substituted
as numbers (the kernels are specialised per configuration).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from .derive import CHECKPOINT_WEIGHT, G_j, G_t, REPLAY_WEIGHT, Derivation, RecordField
from .errors import ConfigError
from .printer import print_triton
from .spec import DTYPES, Spec

TL_DTYPES = {"fp32": "tl.float32", "bf16": "tl.bfloat16", "fp16": "tl.float16"}
DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2}


@dataclass(frozen=True)
class KernelConfig:
    """Everything that makes one generated module distinct."""

    variant: str
    dims: tuple[tuple[str, int], ...]   # model-native names, in the spec's role order
    buffer_length: int
    state_dtype: str
    record_dtype: str

    @property
    def dim_map(self) -> dict[str, int]:
        return dict(self.dims)

    @property
    def name(self) -> str:
        """The one readable identity: module file name, cache key and registry key."""
        dims = "_".join(f"{k}{v}" for k, v in self.dims)
        return (f"{self.variant}__{dims}__L{self.buffer_length}"
                f"__state_{self.state_dtype}__rec_{self.record_dtype}")


def make_config(spec: Spec, dims: dict[str, int], buffer_length: int | None = None,
                state_dtype: str | None = None, record_dtype: str | None = None) -> KernelConfig:
    dims = spec.check_dims(dims)
    L = spec.defaults.buffer_length if buffer_length is None else buffer_length
    if isinstance(L, bool) or not isinstance(L, int) or L < 1:
        raise ConfigError(f"buffer_length must be an integer >= 1, got {L!r}")
    sdt = state_dtype or spec.defaults.state_dtypes[0]
    rdt = record_dtype or spec.defaults.record_dtype
    for what, dt in (("state_dtype", sdt), ("record_dtype", rdt)):
        if dt not in DTYPES:
            raise ConfigError(f"{what} must be one of {list(DTYPES)}, got {dt!r}")
    return KernelConfig(spec.name, tuple((d, dims[d]) for d in spec.dim_names), L, sdt, rdt)


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
    use_dot: bool
    num_warps: int
    decay: str
    delta_rule: bool
    inputs: tuple[TensorArg, ...]
    params: tuple[TensorArg, ...]
    ring: tuple[RingField, ...]
    optional_flags: tuple[str, ...]
    head_code: tuple[Statement, ...]      # current token: scalar / key-axis values
    tile_code: tuple[Statement, ...]      # current token: value-axis values, per V tile
    record_head_code: tuple[Statement, ...]   # records as tiles: rec_key, rec_gate
    record_tile_code: tuple[Statement, ...]   # ... and rec_value, per value tile
    replay_weight: str
    checkpoint_weight: str
    skip_expr: str
    gate_expr: str
    gate_condition: str                   # optional inputs the output gate needs
    write_value: str                      # ring field holding the written value (delta: u)
    state_dtype: str
    record_dtype: str
    extra: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.config.name


def _next_pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def _pick_block_v(V: int, BK: int) -> int:
    """Largest value tile (a power of two) whose padding wastes at most 1/4 of V and whose
    [BV, BK] fp32 tile stays at most 8K elements (registers of one program). Larger
    tiles amortise the key-side work (record scores, decays) that every tile repeats."""
    full = _next_pow2(V)
    for bv in (64, 32, 16, 8, 4, 2, 1):
        if bv > full or bv * BK > 8192:
            continue
        if (-V % bv) * 4 <= V or bv == 1:
            return bv
    return 1


def make_plan(deriv: Derivation, config: KernelConfig) -> KernelPlan:
    spec = deriv.spec
    t = spec.transition
    dims = config.dim_map
    g = spec.geometry
    H, HV, K, V = (dims[g[r]] for r in ("key_heads", "value_heads", "key_dim", "value_dim"))
    L = config.buffer_length
    BK = _next_pow2(K)
    BV = _pick_block_v(V, BK)
    BL = _next_pow2(L)
    use_dot = BK >= 16 and BV >= 16
    if use_dot:
        BL = max(BL, 16)   # tl.dot needs every tile dim >= 16; extra rows are masked
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
    head_code, tile_code = [], []
    for n in needed:
        q = quantities[n]
        st = Statement(f"b_{n}", print_triton(subs(q.expr), names))
        (tile_code if q.axis == "V" else head_code).append(st)
    for role in ("query", "key", "gate", "beta"):
        if role in wanted:
            head_code.append(Statement(f"t_{role}", print_triton(subs(wanted[role]), names)))
    tile_code.append(Statement("t_value", print_triton(subs(t.value), names)))

    # -- records as tiles ---------------------------------------------------------
    derived_not_stored = {sympy.Symbol(n): q.expr for n, q in quantities.items()
                          if q.kind == "derived" and n not in field_names}

    def from_fields(e):
        for _ in range(len(quantities)):
            if not e.free_symbols & derived_not_stored.keys():
                break
            e = e.xreplace(derived_not_stored)
        return subs(e)

    rec_names = {**names, **{sympy.Symbol(f.name): f"r_{f.name}" for f in deriv.fields}}
    record_head_code = (
        Statement("rec_key", print_triton(from_fields(deriv.key), rec_names, 1, keep_dims=True)),
        Statement("rec_gate", print_triton(from_fields(deriv.gate), rec_names, 1, keep_dims=True)
                  if deriv.gate is not None else "tl.zeros([BL, 1], tl.float32)"))
    record_tile_code = (Statement(
        "rec_value", print_triton(from_fields(deriv.value), rec_names, 1, keep_dims=True)),)
    if t.gate is None:   # identity decay: a zero log decay
        head_code.append(Statement("t_gate", "tl.zeros([1], tl.float32)"))

    ring = tuple(RingField(f.name, f.head, f.axis, {"scalar": 1, "K": K, "V": V}[f.axis],
                           config.record_dtype) for f in deriv.fields)
    inputs = tuple(TensorArg(q.name, q.head, q.axis, q.optional, True) for q in spec.inputs())
    params = tuple(TensorArg(q.name, q.head, q.axis, False, False) for q in spec.params())
    gate_flags = ()
    if spec.output_gate is not None:
        gate_flags = tuple(s.name for s in expand_inputs(spec, spec.output_gate)
                           if quantities[s.name].optional)
    skip_flags = ()
    if spec.output_skip is not None:
        skip_flags = tuple(s.name for s in expand_inputs(spec, spec.output_skip)
                           if quantities[s.name].optional)
    if skip_flags:
        raise ConfigError(f"{spec.name}: output.skip may not depend on optional inputs "
                          f"{list(skip_flags)}")
    weight_names = {G_t: "G_t", G_j: "G_rec"}
    return KernelPlan(
        config=config, spec_name=spec.name, spec_hash=spec.source_hash,
        H=H, HV=HV, K=K, V=V, L=L, GROUP=HV // H, BK=BK, BV=BV, BL=BL,
        NV=-(-V // BV), use_dot=use_dot, num_warps=4 if BV * BK <= 4096 else 8,
        decay=t.decay, delta_rule=t.update == "delta",
        inputs=inputs, params=params, ring=ring,
        optional_flags=tuple(q.name for q in inputs if q.optional),
        head_code=tuple(head_code), tile_code=tuple(tile_code),
        record_head_code=record_head_code, record_tile_code=record_tile_code,
        replay_weight=print_triton(REPLAY_WEIGHT, weight_names),
        checkpoint_weight=print_triton(CHECKPOINT_WEIGHT, weight_names),
        skip_expr=print_triton(subs(spec.output_skip), names) if spec.output_skip is not None else "",
        gate_expr=print_triton(subs(spec.output_gate), names) if spec.output_gate is not None else "",
        gate_condition=" and ".join(f"HAS_{n}" for n in gate_flags),
        write_value=deriv.written_value_name,
        state_dtype=config.state_dtype, record_dtype=config.record_dtype,
    )


def expand_inputs(spec: Spec, expr) -> list[sympy.Symbol]:
    """Inputs an expression depends on, through derived quantities."""
    from .derive import expand_derived
    e = expand_derived(spec, expr)
    return sorted((s for s in e.free_symbols if spec.quantities[s.name].kind == "input"),
                  key=lambda s: s.name)
