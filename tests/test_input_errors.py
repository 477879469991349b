"""Runtime argument checks: every bad argument raises replaygen.InputError (or
ConfigError for a bad configuration) naming the tensor or option, and leaves the state
exactly as it was (all checks run before any launch)."""
from __future__ import annotations

import dataclasses

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
    # a state whose fold queue lacks room for the one-pass flush's arrival counts (a
    # ReplayState put together by hand, or from before they existed) is refused whole
    short = dataclasses.replace(state, fold_queue=state.fold_queue[:2 + state.num_slots * HV])
    with pytest.raises(InputError, match=r"state.fold_queue must be a zeroed int32 tensor of \d+ elements"):
        kern.decode(short, SLOTS, **inputs())
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


# -- speculative decoding ----------------------------------------------------------------
T_MAX = 3


@pytest.fixture(scope="module")
def spec_kern():
    return replaygen.load("gdn", L=3, state_dtype="fp32", record_dtype="bf16", max_drafts=T_MAX,
                          H=H, HV=HV, K=K, V=V)


def drafts(T, rows=ROWS, **override):
    """Draft inputs [rows, T, ...]."""
    return {n: t.view(rows, T, *t.shape[1:]) if t.shape[0] == rows * T else t
            for n, t in inputs(rows * T, **override).items()}


@pytest.fixture
def spec_state(spec_kern):
    st = spec_kern.new_state(3, "cpu", **params())
    spec_kern.load_state(st, torch.arange(3), torch.randn(3, HV, V, K))
    return st


def count(*values):
    return torch.tensor(values, dtype=torch.int32)


VERIFY_CASES = [
    ("too-many-drafts", dict(inputs=drafts(T_MAX + 1)), ["T = 4 drafts", "max_drafts = 3"]),
    ("no-draft-axis", dict(inputs=inputs()), ["draft axis"]),
    ("mixed-T", dict(inputs={**drafts(2), "v": torch.randn(ROWS, 3, HV, V)}), ["'v'", "shape"]),
    ("count-above-T", dict(inputs=drafts(2), num_drafts=count(1, 3)), ["'num_drafts'", "[0, 2]"]),
    ("negative-count", dict(inputs=drafts(2), num_drafts=count(-1, 0)), ["'num_drafts'"]),
    ("count-shape", dict(inputs=drafts(2), num_drafts=count(1)), ["'num_drafts'", "shape"]),
    ("float-count", dict(inputs=drafts(2), num_drafts=torch.ones(ROWS)), ["'num_drafts'", "dtype"]),
    ("unmergeable", dict(inputs={**drafts(2), "q": torch.randn(2, ROWS, H, K).transpose(0, 1)}),
     ["'q'", "mergeable"]),
    ("out-shape", dict(inputs=drafts(2), out=torch.empty(ROWS, 3, HV, V)), ["'out'", "shape"]),
]


@pytest.mark.parametrize("case,reasons", [(c[1], c[2]) for c in VERIFY_CASES],
                         ids=[c[0] for c in VERIFY_CASES])
@pytest.mark.parametrize("entry", ["verify", "conventional_verify"])
def test_bad_verify_argument(spec_kern, spec_state, entry, case, reasons):
    """Refused before anything is launched: the state (and the pool) stay bit-identical."""
    before = snapshot(spec_state)
    pool = spec_state.checkpoint.clone()
    args = dict(case["inputs"])
    extra = {k: case[k] for k in ("num_drafts", "out") if k in case}
    with pytest.raises(InputError) as info:
        if entry == "verify":
            spec_kern.verify(spec_state, SLOTS, **extra, **args)
        else:
            snaps = torch.zeros(spec_kern.snapshot_shape(ROWS))
            spec_kern.conventional_verify(pool, SLOTS, snaps, **extra, **args, **params())
    for reason in reasons:
        assert reason in str(info.value), f"{reason!r} not in {info.value}"
    after = snapshot(spec_state)
    assert all(same_bits(after[k], before[k]) for k in ("checkpoint", "cursor", "drafted"))
    assert all(same_bits(spec_state.ring[n], before["ring"][n]) for n in spec_state.ring)
    assert same_bits(pool, before["checkpoint"])


def test_bad_commit(spec_kern, device):
    """Accepting more than the slot's pending drafts (none before a verify, none after a
    commit or a decode) is refused by name, and nothing changes; a state of another
    max_drafts (another ring size) is refused. (Kernels run here: the state and the
    arguments live on the test device.)"""
    spec_state = spec_kern.new_state(3, device, **{n: t.to(device) for n, t in params().items()})
    spec_kern.load_state(spec_state, torch.arange(3, device=device),
                         torch.randn(3, HV, V, K, device=device))
    on = lambda xs: {n: t.to(device) for n, t in xs.items()}  # noqa: E731
    count = lambda *values: torch.tensor(values, dtype=torch.int32, device=device)  # noqa: E731
    slots = torch.tensor([0, 1], dtype=torch.int32, device=device)
    with pytest.raises(InputError, match="0 pending drafts"):
        spec_kern.commit(spec_state, slots, count(1, 0))
    spec_kern.verify(spec_state, slots, num_drafts=count(2, 1), **on(drafts(2)))
    before = snapshot(spec_state)
    for bad, why in ((count(3, 0), "row 0 .*is 3.*2 pending"), (count(0, 2), "row 1"),
                     (count(-1, 0), "row 0")):
        with pytest.raises(InputError, match=why):
            spec_kern.commit(spec_state, slots, bad)
    with pytest.raises(InputError, match="'num_accepted'.*shape"):
        spec_kern.commit(spec_state, slots, count(1))
    after = snapshot(spec_state)
    assert all(same_bits(after[k], before[k]) for k in ("checkpoint", "cursor", "drafted"))
    spec_kern.decode(spec_state, slots, **on(inputs()))   # discards the pending drafts
    with pytest.raises(InputError, match="is 1, but that slot has 0 pending drafts"):
        spec_kern.commit(spec_state, slots, count(1, 0))
    with pytest.raises(InputError, match="another configuration.*ring rows"):
        replaygen.load("gdn", L=3, state_dtype="fp32", record_dtype="bf16", H=H, HV=HV, K=K,
                       V=V).decode(spec_state, slots, **on(inputs()))
    with pytest.raises(InputError, match="'num_accepted'"):
        spec_kern.conventional_commit(spec_state.checkpoint, slots,
                                      torch.zeros(spec_kern.snapshot_shape(2), device=device),
                                      count(4, 0))
    with pytest.raises(ConfigError, match="max_drafts"):
        replaygen.load("gdn", max_drafts=0, H=1, HV=1, K=4, V=4)


@pytest.mark.parametrize("options,reason", [
    (dict(max_drafts=1), "max_drafts >= 2"),
    (dict(max_drafts=4, L=3), r"max_drafts <= L \(3\)"),
    (dict(max_drafts=2, L=256), "L <= 255"),
    (dict(max_drafts=2, state_dtype="fp8"), "a plain fp32/bf16/fp16 checkpoint"),
    (dict(max_drafts=2, read_dtype="nvfp4"), "no read copy"),
    (dict(max_drafts=2, verify_folds="yes"), "must be True or False"),
])
def test_verify_folds_refuses_what_it_cannot_fold(options, reason):
    """verify_folds=True is a protocol: its verify folds only a plain checkpoint, a commit
    after it must stay within L records (T_MAX <= L), and the drafted word keeps the
    drafts' ring row in 8 bits. Anything else is refused by name, before any kernel."""
    options = {"verify_folds": True, "L": 4, "state_dtype": "fp32", **options}
    with pytest.raises(ConfigError, match=reason):
        replaygen.load("gdn", H=1, HV=1, K=4, V=4, **options)
