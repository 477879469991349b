"""Invalid specs are rejected at load time with an error that names the file, the
field and the reason.

Each case copies specs/gdn.toml into a temporary gdn.toml (the variant name must match
the file stem), applies one textual mutation and loads it. A mutation whose anchor text
is missing from gdn.toml fails loudly, so the cases cannot silently stop mutating
anything when the shipped spec changes.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from replaygen import SpecError
from replaygen.derive import derive
from replaygen.spec import SPEC_DIR, load_spec

GDN = (SPEC_DIR / "gdn.toml").read_text()


def mutate(*pairs: tuple[str, str]):
    def apply(text: str) -> str:
        for old, new in pairs:
            assert old in text, f"anchor {old!r} not found in specs/gdn.toml"
            text = text.replace(old, new, 1)
        return text
    return apply


def append(extra: str):
    return lambda text: text + extra


# (id, mutation, field, reason substrings, needs derive): derive-time errors are
# properties of the recurrence that need evaluating the formulas (the gate's sign).
CASES = [
    ("undeclared-symbol",
     mutate(('g = "-exp(A_log) * softplus(a + dt_bias)"',
             'g = "-exp(A_log) * softplus(a + dt_bias + c0)"')),
     "derive.g", ["undeclared symbol", "c0"], False),
    ("unknown-function",
     mutate(('beta = "sigmoid(b)"', 'beta = "sigmoidx(b)"')),
     "derive.beta", ["unknown function", "sigmoidx"], False),
    ("formula-syntax",
     mutate(('beta = "sigmoid(b)"', 'beta = "sigmoid(b"')),
     "derive.beta", ["cannot parse"], False),
    ("unknown-top-level-key",
     append('\n[extras]\nflag = 1\n'),
     "extras", ["unknown top-level key"], False),
    ("unknown-key-in-table",
     mutate(('[transition]\n', '[transition]\nclip = "v"\n')),
     "transition.clip", ["unknown key", "allowed"], False),
    ("unknown-key-in-tensor",
     mutate(('a = { shape = ["HV"] }', 'a = { shape = ["HV"], dtype = "bf16" }')),
     "inputs.a", ["allowed keys"], False),
    ("value-heads-not-multiple",
     mutate(('dims = { H = 16, HV = 32, K = 128, V = 128 }',
             'dims = { H = 3, HV = 32, K = 128, V = 128 }')),
     "configs[0].dims", ["HV=32", "not a multiple", "H=3"], False),
    ("config-missing-dim",
     mutate(('dims = { H = 16, HV = 32, K = 128, V = 128 }', 'dims = { H = 16, HV = 32, K = 128 }')),
     "configs[0].dims", ["missing ['V']"], False),
    ("scalar-decay-per-channel-gate",
     mutate(('g = "-exp(A_log) * softplus(a + dt_bias)"',
             'g = "-exp(A_log) * softplus(a + dt_bias) * k * k"')),
     "transition.gate", ["axis 'K'", "expected", "'scalar'"], False),
    ("positive-gate",
     mutate(('g = "-exp(A_log) * softplus(a + dt_bias)"', 'g = "exp(a)"')),
     "transition.gate", ["must be a log decay", "<= 0"], True),
    ("value-on-key-axis",
     mutate(('value = "v"', 'value = "k"')),
     "transition.value", ["axis 'K'", "expected"], False),
    ("mixed-axes",
     mutate(('beta = "sigmoid(b)"', 'beta = "sigmoid(b) * k * v"')),
     "derive.beta", ["mixes the key axis and the value axis"], False),
    ("value-axis-reduction",
     mutate(('beta = "sigmoid(b)"', 'beta = "sigmoid(b) * sumsq(v)"')),
     "derive.beta", ["sumsq(v)", "key-axis", "cannot be lowered"], False),
    ("state-not-v-first",
     mutate(('layout = ["HV", "V", "K"]', 'layout = ["HV", "K", "V"]')),
     "state.layout", ["cannot be lowered", "V-first"], False),
    ("tensor-shape-cannot-be-lowered",
     mutate(('v = { shape = ["HV", "V"] }', 'v = { shape = ["HV", "V", "K"] }')),
     "inputs.v.shape", ["cannot be lowered"], False),
    ("unknown-dim",
     mutate(('a = { shape = ["HV"] }', 'a = { shape = ["HX"] }')),
     "inputs.a.shape", ["unknown dim 'HX'"], False),
    ("missing-update",
     mutate(('update = "delta"\n', '')),
     "transition.update", ["is required"], False),
    ("missing-geometry-role",
     mutate(('key_dim = "K"\n', '')),
     "geometry.key_dim", ["is required"], False),
    ("missing-state-table",
     mutate(('[state]\nlayout = ["HV", "V", "K"]\n', '')),
     "state.layout", ["is required"], False),
    ("missing-configs",
     lambda text: text[:text.index("[[configs]]")],
     "configs", ["at least one"], False),
    ("delta-without-beta",
     mutate(('beta = "beta"\n', '')),
     "transition.beta", ["delta-rule update needs beta"], False),
    ("additive-with-beta",
     mutate(('update = "delta"', 'update = "additive"')),
     "transition.beta", ["only a delta-rule update takes beta"], False),
    ("no-decay-with-gate",
     mutate(('decay = "scalar"', 'decay = "none"')),
     "transition.gate", ["takes no gate"], False),
    ("unknown-decay",
     mutate(('decay = "scalar"', 'decay = "vector"')),
     "transition.decay", ["'vector' is not one of"], False),
    ("transition-on-optional-input",
     mutate(('b = { shape = ["HV"] }', 'b = { shape = ["HV"], optional = true }')),
     "transition.beta", ["may not depend on an optional input"], False),
    ("redeclared-name",
     mutate(('beta = "sigmoid(b)"', 'beta = "sigmoid(b)"\nq = "k"')),
     "derive.q", ["already declared"], False),
    ("bad-buffer-length",
     mutate(('buffer_length = 16', 'buffer_length = 0')),
     "build.buffer_length", ["integer >= 1"], False),
    ("unknown-dtype",
     mutate(('record_dtype = "bf16"', 'record_dtype = "fp8"')),
     "build", ["unknown dtype 'fp8'"], False),
    ("invalid-toml",
     mutate(('[transition]', '[transition')),
     "<file>", ["not valid TOML"], False),
]


@pytest.mark.parametrize("mutation,field,reasons,needs_derive",
                         [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_invalid_spec(tmp_path, mutation, field, reasons, needs_derive):
    path = tmp_path / "gdn.toml"
    path.write_text(mutation(GDN))
    with pytest.raises(SpecError) as info:
        spec = load_spec(path)
        if needs_derive:
            derive(spec)
        else:
            pytest.fail("load_spec accepted an invalid spec")
    err = info.value
    assert (err.file, err.field) == (str(path), field), str(err)
    message = str(err)
    assert message.startswith(f"{path}: field '{field}': "), message
    for reason in reasons:
        assert reason in err.reason, f"{reason!r} not in {err.reason!r}"


def test_unmutated_copy_loads(tmp_path):
    """The control: the copy itself is valid, so each failure above is its mutation's."""
    path = tmp_path / "gdn.toml"
    path.write_text(GDN)
    derive(load_spec(path))


def test_positive_gate_loads_but_does_not_derive(tmp_path):
    """The sign of a gate is a property of its values, checked when deriving."""
    path = tmp_path / "gdn.toml"
    path.write_text(mutate(('g = "-exp(A_log) * softplus(a + dt_bias)"', 'g = "exp(a)"'))(GDN))
    load_spec(path)


def test_variant_name_must_match_file(tmp_path):
    path = tmp_path / "other.toml"
    path.write_text(GDN)
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert info.value.field == "variant.name"
    assert "'gdn' must match the file name 'other'" in str(info.value)
    assert str(path) in str(info.value)


def test_missing_spec_file(tmp_path):
    path: Path = tmp_path / "nope.toml"
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert str(path) in str(info.value) and "no such spec file" in str(info.value)


# -- values of the wrong TOML type -------------------------------------------------------
# These fail today (reported to the lead): the loader converts with tuple()/bool()
# instead of checking types, so a string shape is read character by character and any
# non-empty string counts as `optional = true`; an empty state_dtypes list loads and
# only breaks later with an IndexError.
TYPE_CASES = [
    ("shape-as-string",
     mutate(('q = { shape = ["H", "K"] }', 'q = { shape = "HK" }')),
     "inputs.q.shape", ["list", "array", "sequence"]),
    ("optional-as-string",
     mutate(('a = { shape = ["HV"] }', 'a = { shape = ["HV"], optional = "no" }')),
     "inputs.a.optional", ["true or false", "boolean", "bool"]),
    ("empty-state-dtypes",
     mutate(('state_dtypes = ["fp32", "bf16", "fp16"]', 'state_dtypes = []')),
     "build.state_dtypes", ["at least one", "empty", "non-empty"]),
]


@pytest.mark.parametrize("mutation,field,reasons", [c[1:] for c in TYPE_CASES],
                         ids=[c[0] for c in TYPE_CASES])
def test_wrongly_typed_value(tmp_path, mutation, field, reasons):
    """A value of the wrong type is an error naming the file and its field, with a reason
    (any of a few plausible wordings)."""
    path = tmp_path / "gdn.toml"
    path.write_text(mutation(GDN))
    with pytest.raises(SpecError) as info:
        load_spec(path)
    assert (info.value.file, info.value.field) == (str(path), field), str(info.value)
    assert any(r in info.value.reason for r in reasons), str(info.value)
