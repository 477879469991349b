"""Runtime argument checks: every bad argument raises replaygen.InputError (or
ConfigError for a bad configuration) naming the tensor or option, and leaves the state
exactly as it was (all checks run before any launch)."""
from __future__ import annotations

import pytest
import torch

import replaygen
from harness import same_bits, snapshot
from replaygen import ConfigError, InputError

H, HV, K, V, ROWS = 1, 2, 4, 3, 2


@pytest.fixture(scope="module")
def kern():
    return replaygen.load("gdn", L=3, state_dtype="fp32", record_dtype="bf16",
                          H=H, HV=HV, K=K, V=V)


def params():
    return dict(A_log=torch.zeros(HV), dt_bias=torch.zeros(HV))


def inputs(rows=ROWS, **override):
    out = dict(q=torch.randn(rows, H, K), k=torch.randn(rows, H, K), v=torch.randn(rows, HV, V),
               a=torch.randn(rows, HV), b=torch.randn(rows, HV))
    out.update(override)
    return {n: t for n, t in out.items() if t is not None}


@pytest.fixture
def state(kern):
    st = kern.new_state(3, "cpu", **params())
    kern.load_state(st, torch.arange(3), torch.randn(3, HV, V, K))
    return st


SLOTS = torch.tensor([0, -1], dtype=torch.int32)

DECODE_CASES = [
    ("wrong-shape", dict(inputs=inputs(q=torch.randn(ROWS, H, K + 1))), ["'q'", "shape", f"[{ROWS}, {H}, {K}]"]),
    ("wrong-rows", dict(inputs=inputs(v=torch.randn(ROWS + 1, HV, V))), ["'v'", "shape"]),
    ("int-dtype", dict(inputs=inputs(a=torch.zeros(ROWS, HV, dtype=torch.int32))), ["'a'", "dtype"]),
    ("fp64-dtype", dict(inputs=inputs(b=torch.zeros(ROWS, HV, dtype=torch.float64))), ["'b'", "dtype"]),
    ("other-device", dict(inputs=inputs(k=torch.empty(ROWS, H, K, device="meta"))), ["'k'", "must be on cpu", "meta"]),
    ("missing-input", dict(inputs=inputs(b=None)), ["missing ['b']"]),
    ("unknown-input", dict(inputs=inputs(zz=torch.zeros(ROWS))), ["unknown ['zz']"]),
    ("param-as-input", dict(inputs=inputs(A_log=torch.zeros(HV))), ["unknown ['A_log']", "new_state"]),
    ("inner-not-contiguous",
     dict(inputs=inputs(q=torch.randn(ROWS, K, H).transpose(1, 2) if H > 1 else
                        torch.randn(ROWS, H, 2 * K)[:, :, ::2])), ["'q'", "contiguous"]),
    ("float-slots", dict(slots=torch.tensor([0.0, 1.0])), ["'slots'", "int32/int64"]),
    ("2d-slots", dict(slots=torch.tensor([[0], [1]])), ["'slots'", "1-D"]),
    ("slots-list", dict(slots=[0, 1]), ["'slots'"]),
    ("out-shape", dict(out=torch.empty(ROWS, HV, V + 1)), ["'out'", "shape"]),
    ("out-dtype", dict(out=torch.empty(ROWS, HV, V, dtype=torch.int32)), ["'out'", "dtype"]),
]


@pytest.mark.parametrize("case,reasons", [(c[1], c[2]) for c in DECODE_CASES],
                         ids=[c[0] for c in DECODE_CASES])
@pytest.mark.parametrize("entry", ["decode", "conventional_decode"])
def test_bad_decode_argument(kern, state, entry, case, reasons):
    slots = case.get("slots", SLOTS)
    args = dict(case.get("inputs", inputs()))
    if "out" in case:
        args["out"] = case["out"]
    if entry == "conventional_decode" and "A_log" in args:
        pytest.skip("the conventional step takes the parameters with the inputs")
    before = snapshot(state)
    pool = state.checkpoint.clone()
    with pytest.raises(InputError) as info:
        if entry == "decode":
            kern.decode(state, slots, **args)
        else:
            kern.conventional_decode(pool, slots, **args, **params())
    for reason in reasons:
        assert reason in str(info.value), f"{reason!r} not in {info.value}"
    assert isinstance(info.value, ValueError)       # InputError is a ValueError too
    assert same_bits(state.checkpoint, before["checkpoint"])
    assert same_bits(state.cursor, before["cursor"])
    assert all(same_bits(state.ring[n], before["ring"][n]) for n in state.ring)
    assert same_bits(pool, before["checkpoint"])


@pytest.mark.parametrize("bad,reasons", [
    (dict(A_log=torch.zeros(HV + 1)), ["'A_log'", "shape", f"[{HV}]"]),
    (dict(A_log=None), ["missing ['A_log']"]),
    (dict(D=torch.zeros(HV)), ["unknown ['D']"]),
    (dict(dt_bias=torch.zeros(HV, dtype=torch.int64)), ["'dt_bias'", "dtype"]),
    (dict(dt_bias=torch.empty(HV, device="meta")), ["'dt_bias'", "meta"]),
], ids=["shape", "missing", "unknown", "dtype", "device"])
def test_bad_parameter(kern, bad, reasons):
    p = {**params(), **bad}
    p = {n: t for n, t in p.items() if t is not None}
    with pytest.raises(InputError) as info:
        kern.new_state(2, "cpu", **p)
    for reason in reasons:
        assert reason in str(info.value)
    pool = torch.zeros(1, HV, V, K)
    with pytest.raises(InputError) as info:
        kern.conventional_decode(pool, torch.tensor([0]), **inputs(1), **p)
    for reason in reasons:
        assert reason in str(info.value)


def test_flat_per_channel_parameter_is_accepted():
    """KDA's dt_bias is often stored flat as [HV*K]: accepted and reshaped; a flat
    tensor of the wrong size is refused by name."""
    kda = replaygen.load("kda", L=2, H=1, HV=2, K=4, V=3)
    kda.new_state(1, "cpu", A_log=torch.zeros(2), dt_bias=torch.zeros(8))
    with pytest.raises(InputError, match="'dt_bias'"):
        kda.new_state(1, "cpu", A_log=torch.zeros(2), dt_bias=torch.zeros(9))


def test_bad_state_arguments(kern, state):
    with pytest.raises(InputError, match="num_slots"):
        kern.new_state(0, "cpu", **params())
    with pytest.raises(InputError, match="padding"):
        kern.load_state(state, torch.tensor([0, -1]), torch.zeros(2, HV, V, K))
    with pytest.raises(InputError, match="'S'"):
        kern.load_state(state, torch.tensor([0]), torch.zeros(1, HV, K, V))
    other = replaygen.load("gdn", L=3, state_dtype="bf16", H=H, HV=HV, K=K, V=V)
    with pytest.raises(InputError, match="another configuration"):
        other.decode(state, SLOTS, **inputs())
    with pytest.raises(InputError, match="ReplayState"):
        kern.materialize(state.checkpoint, SLOTS)
    with pytest.raises(InputError, match="'out'"):
        kern.materialize(state, SLOTS, out=torch.empty(ROWS, HV, V, K, dtype=torch.bfloat16))
    with pytest.raises(InputError, match="S must be a state pool"):
        kern.conventional_decode(torch.zeros(2, HV, K, V), SLOTS, **inputs(), **params())
    with pytest.raises(InputError, match="contiguous"):
        kern.conventional_decode(torch.zeros(2, HV, K, V).transpose(2, 3), SLOTS,
                                 **inputs(), **params())


def test_bad_configuration():
    with pytest.raises(ConfigError, match="unknown variant 'nope'"):
        replaygen.load("nope")
    with pytest.raises(ConfigError, match=r"missing \['V'\]"):
        replaygen.load("gdn", H=1, HV=2, K=4)
    with pytest.raises(ConfigError, match=r"HV=3 is not a multiple of H=2"):
        replaygen.load("gdn", H=2, HV=3, K=4, V=4)
    with pytest.raises(ConfigError, match="buffer_length"):
        replaygen.load("gdn", L=0, H=1, HV=1, K=4, V=4)
    with pytest.raises(ConfigError, match="state_dtype"):
        replaygen.load("gdn", state_dtype="fp4", H=1, HV=1, K=4, V=4)
    with pytest.raises(ConfigError, match="record_dtype"):
        replaygen.load("gdn", record_dtype="int8", H=1, HV=1, K=4, V=4)
    with pytest.raises(InputError, match="unknown config"):
        replaygen.load("gdn", config="qwen-nope")
    with pytest.raises(InputError, match="not both"):
        replaygen.load("gdn", config="qwen3.5-4b", H=1, HV=1, K=4, V=4)
