"""Tests that must fail: the checker of test_decode.py rejects broken kernels.

A correctness suite is only as good as its ability to fail. Each test here breaks one
thing on purpose (a committed record in the ring, the decay the reference is told
about, a kernel that writes where it must not) and asserts that the very checks
test_decode.py relies on (`harness.check` and the bitwise checks of `Harness`) raise.
Each first runs part of the schedule unbroken and passes, so the failure is caused by
the mutation and nothing else.
"""
from __future__ import annotations

import pytest
import torch

from harness import VARIANTS, Config, Harness, Step, same_bits


def _config(variant, record_dtype="bf16"):
    return Config(variant, H=1, ratio=2, K=4, V=4, L=6, state_dtype="fp32",
                  record_dtype=record_dtype, input_dtype="fp32",
                  optional=VARIANTS[variant].optional_inputs)


def _value_field(kern) -> str:
    """The record field holding written values: u for a delta rule, else the first
    value-axis field (Mamba-2: x, GLA: v)."""
    plan = kern.plan
    return plan.write_value or next(f.name for f in plan.ring if f.axis == "V")


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_corrupted_record_is_caught(variant, device):
    """Add 0.5 to one element of the newest committed record's value field of slot 0:
    both the materialised state and the next output of that slot must be rejected.

    fp32 records and state: the errors then exceed the tolerance 400x (Mamba-2's output,
    where the D*x skip term dilutes the error) to 18000x (KDA's state). With bf16 records
    the tolerance is ~3% normwise and the same corruption exceeds it by only 0.4-18x, so
    a single small corruption can hide in a bf16 configuration; that is the price of a
    normwise check at bf16 precision, not a blind spot of the checker."""
    h = Harness(_config(variant, record_dtype="fp32"), num_slots=2, device=device, seed=1,
                check_conventional=False)
    h.run([Step((0, 1))] * 3)           # three committed records per slot, no flush yet
    assert h.cursor == [3, 3]
    name = _value_field(h.kern)
    ring = h.state.ring[name]
    ring[0, 0, 2, 0] += 0.5             # slot 0, head 0, ring row 2 (the newest), element 0
    with pytest.raises(AssertionError, match=r"materialised state of slot 0"):
        h.check_pool("after corrupting a record")
    with pytest.raises(AssertionError, match=r"output of row 0 \(slot 0"):
        h.decode((0, 1))


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_wrong_decay_is_caught(variant, device):
    """The kernel against a reference whose decay is slightly off (A_log + 0.1, i.e.
    every log decay 10.5% larger; GLA, which has no A_log: gate logits + 0.5) must be
    rejected within the first few steps, at fp32 precision everywhere."""
    case = VARIANTS[variant]
    cfg = _config(variant, record_dtype="fp32")
    schedule = [Step((0, 1, -1)), Step((1, 0, -1)), Step((0, -1, 1))]
    Harness(cfg, num_slots=2, device=device, seed=2,
            check_conventional=False).run(schedule)                     # control: passes
    wrong = Harness(cfg, num_slots=2, device=device, seed=2, check_conventional=False,
                    reference_mutation=case.wrong_decay)
    with pytest.raises(AssertionError, match=r"output of row"):
        wrong.run(schedule)


def _bump_ulp(t):
    """Change one element of a float tensor by one unit in the last place, in place."""
    flat = t.view(-1)
    ints = flat.view({2: torch.int16, 4: torch.int32}[t.element_size()])
    ints[0] += 1


def _last_value_field(h):
    return h.state.ring[_value_field(h.kern)]


# Each sabotage runs after a real decode of rows (0, -1, 1) of a 3-slot pool (slot 2 sits
# out) whose slots already hold 2 committed records (L = 6), and breaks one rule.
SABOTAGES = {
    "writes the ring of a slot outside the batch":
        (lambda h, out: _last_value_field(h)[2, 0, 5].zero_(), r"slot 2 \(not in the batch\) changed"),
    "writes a padding row": (lambda h, out: out[1].fill_(1e-30), r"padding row 1"),
    "does not advance a cursor": (lambda h, out: h.state.cursor[0].sub_(1), r"cursor of slot 0"),
    "touches a checkpoint without a flush":
        (lambda h, out: _bump_ulp(h.state.checkpoint[1]), r"checkpoint of slot 1 changed without"),
    "rewrites a committed record":
        (lambda h, out: _bump_ulp(_last_value_field(h)[0, 0, 0]), r"slot 0 changed outside row 2"),
}


@pytest.mark.parametrize("sabotage", sorted(SABOTAGES))
def test_protocol_violation_is_caught(sabotage, device):
    """The bitwise and protocol checks of Harness.decode catch a kernel that writes where
    it must not, down to one ulp."""
    break_it, message = SABOTAGES[sabotage]
    cfg = Config("gdn", H=1, ratio=1, K=4, V=4, L=6, state_dtype="fp32", record_dtype="fp32",
                 input_dtype="fp32")
    h = Harness(cfg, num_slots=3, device=device, seed=4, check_conventional=False)
    h.run([Step((0, -1, 1))] * 2)
    decode = h.kern.decode

    def sabotaged(state, slots, out=None, **inputs):
        out = decode(state, slots, out=out, **inputs)
        break_it(h, out)
        return out

    h.kern.decode = sabotaged
    with pytest.raises(AssertionError, match=message):
        h.decode((0, -1, 1))


def test_materialize_that_writes_is_caught(device):
    cfg = Config("gla", H=1, ratio=1, K=4, V=4, L=6, state_dtype="fp32", record_dtype="fp32",
                 input_dtype="fp32")
    h = Harness(cfg, num_slots=2, device=device, seed=4, check_conventional=False)
    h.run([Step((0, 1))])
    materialize = h.kern.materialize

    def writing(state, slots, out=None):
        out = materialize(state, slots, out=out)
        _bump_ulp(state.ring["k"][1, 0, 0])
        return out

    h.kern.materialize = writing
    with pytest.raises(AssertionError, match="materialize wrote ring 'k'"):
        h.check_pool("sabotaged materialize")


def test_same_bits():
    a = torch.tensor([0.0, float("nan"), 1.0])
    assert same_bits(a, a.clone())                        # NaN equals itself, bitwise
    assert not same_bits(a, torch.tensor([-0.0, float("nan"), 1.0]))   # -0 is not +0
    b = a.clone()
    _bump_ulp(b[2:])
    assert not same_bits(a, b)
    assert not same_bits(a, a.to(torch.float64))
