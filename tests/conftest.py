"""Test configuration: run the kernels in the Triton interpreter when there is no GPU.

TRITON_INTERPRET=1 must be set before Triton decorates any kernel, so it is set here,
before any test module (or replaygen) is imported, and only when CUDA is unavailable:
with a GPU the very same tests run compiled kernels on it (with more examples, see
`harness.scale`; the real-geometry tests run only there). Interpreter caveats that matter for these tests: fp32 -> bf16 casts
truncate instead of rounding (the tolerances use 2^-7 for bf16), and tl.dot on bf16
operands is broken; the generated kernels only take fp32 dots, so they are unaffected.
"""
from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for p in (str(ROOT), str(ROOT / "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)

import torch  # noqa: E402  (torch first: it decides whether Triton is interpreted)

CUDA = torch.cuda.is_available()
if not CUDA:
    os.environ["TRITON_INTERPRET"] = "1"
# Modules rendered for test-only configurations go to a throwaway cache, not ~/.cache.
if "REPLAYGEN_CACHE" not in os.environ:
    _cache = tempfile.mkdtemp(prefix="replaygen-test-cache-")
    os.environ["REPLAYGEN_CACHE"] = _cache
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)


@pytest.hookimpl(trylast=True)   # after -k / -m deselection
def pytest_collection_modifyitems(session, config, items):
    """The offline sm_90 compile check (test_compile_sm90.py) starts its compiles in a
    child process as soon as it is collected, and runs last, so that they overlap the
    rest of the suite."""
    late = [i for i in items if i.nodeid.endswith("test_default_kernels_compile_for_sm90")]
    if late and not config.option.collectonly:
        items[:] = [i for i in items if i not in late] + late
        late[0].module.start_in_background()


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA GPU (skipped in the interpreter)")


def pytest_report_header(config):
    mode = f"CUDA ({torch.cuda.get_device_name()})" if CUDA else "Triton interpreter (CPU)"
    from harness import scale
    return f"replaygen kernels: {mode}; Hypothesis examples x{scale():g}"


@pytest.fixture(scope="session")
def device() -> str:
    return "cuda" if CUDA else "cpu"
