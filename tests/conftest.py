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
import subprocess
import sys
import tempfile
import threading
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


def _skip_repatching_inside_launches() -> bool:
    """Make the interpreter's device-function calls cheap; True where it applied.

    Triton's interpreter (3.6 through 3.9) patches the triton.language modules a function
    sees (`tl`, `tl.core`: its globals) into interpreted ones when a kernel launch starts
    (`_patch_lang`, undone when the launch ends), and again at every call of a @triton.jit
    function inside the kernel. For modules already patched the second time changes
    nothing: their builtins are the interpreted ones by then, and the rest sets the same
    attributes again. But it walks the modules with inspect.getmembers each time, and the
    generated kernels call their helpers thousands of times per test: a third of the
    interpreter's time in test_replay_decode_matches_reference (cProfile, session 35). So
    inside a launch, a call is patched only when its function sees a set of language
    modules that no call of this launch has patched yet (triton.language.standard's
    functions see `tl.core` alone, which the launch's `tl` does not cover): as Triton does
    it, only not again. A change to how Triton patches shows as an error (a builtin called
    unpatched raises), not as a wrong result."""
    try:
        import triton.language as tl
        from triton.runtime import interpreter
    except ImportError:
        return False
    patch_lang = getattr(interpreter, "_patch_lang", None)
    scope_type = getattr(interpreter, "_LangPatchScope", None)
    if patch_lang is None or scope_type is None or getattr(patch_lang, "replaygen", False):
        return False
    langs_of = {}    # function -> the language modules in its globals (as _patch_lang finds them)
    launch = {"patched": None}   # the module sets patched in the current launch; None outside one

    def patch_once_per_launch(fn):
        key = langs_of.get(fn)
        if key is None:
            key = langs_of[fn] = frozenset(id(v) for v in fn.__globals__.values()
                                           if v is tl or v is tl.core)
        patched = launch["patched"]
        if patched is not None:   # a call inside a launch
            if key in patched:
                return scope_type()
            patched.add(key)
            return patch_lang(fn)
        scope = patch_lang(fn)    # a launch
        restore = scope.restore

        def restore_and_leave():
            launch["patched"] = None
            restore()
        scope.restore = restore_and_leave
        launch["patched"] = {key}
        return scope
    patch_once_per_launch.replaygen = True
    interpreter._patch_lang = patch_once_per_launch
    return True


INTERPRETER_PATCHED_ONCE = not CUDA and _skip_repatching_inside_launches()


# -- the offline sm_90 compile check (test_compile_sm90.py) -----------------------------
# Its compiles (~11 CPU-minutes cold) run in one child process started as soon as the
# session knows it runs the test, and overlap the rest of the suite; the test itself runs
# last and waits for the child. Under pytest-xdist every worker collects every test, so
# the xdist controller (which lives until the session ends) starts the one child, and the
# worker that gets the test finds it by the run's id. One child per session: two would
# compile everything twice on CI's two cores. The child compiles on two processes
# (SM90_WORKERS): once the interpreter tests got faster (session 35) the child became the
# suite's tail, one core compiling alone for four minutes while the other idled.
SM90_TEST = "test_default_kernels_compile_for_sm90"
SM90_WORKERS = min(2, os.cpu_count() or 1)


def sm90_child(workers: int, log) -> subprocess.Popen:
    """test_compile_sm90.py as a script on `workers` processes, its output to `log`. The
    compiler must run without TRITON_INTERPRET (set above on a CPU machine)."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    return subprocess.Popen([sys.executable, str(ROOT / "tests" / "test_compile_sm90.py"), str(workers)],
                            env=env, stdout=log, stderr=subprocess.STDOUT, text=True)


def sm90_run_dir(run_id: str | None = None) -> Path:
    """Where this session's background child writes `log` and, once it ends, `rc`."""
    run_id = run_id or os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"serial-{os.getpid()}"
    return Path(tempfile.gettempdir()) / f"replaygen-sm90-{run_id}"


def _start_sm90(run_dir: Path) -> None:
    """Start the child on SM90_WORKERS processes (once per run directory); its return code
    goes to run_dir/rc when it ends, and it is killed if the session ends first."""
    # test_compile_sm90._ptxas_available's check, repeated: importing that module here
    # would load every configuration in the xdist controller, and it cannot import this
    # file at module level (run as the compile script, this file would set
    # TRITON_INTERPRET)
    try:
        from triton.backends.nvidia.compiler import get_ptxas  # noqa: F401
    except Exception:   # no NVIDIA backend: the test skips itself
        return
    try:
        run_dir.mkdir(parents=True)
    except FileExistsError:
        return
    log = open(run_dir / "log", "w")

    def publish(returncode: int) -> None:
        (run_dir / "rc.part").write_text(str(returncode))
        (run_dir / "rc.part").rename(run_dir / "rc")   # seen whole or not at all

    try:
        proc = sm90_child(SM90_WORKERS, log)
    except OSError as exc:   # the test then fails with this, instead of waiting for an rc
        log.write(f"could not start the sm_90 compiles: {exc!r}\n")
        log.close()
        publish(-1)
        return

    def publish_return_code():
        proc.wait()
        log.close()
        publish(proc.returncode)

    threading.Thread(target=publish_return_code, daemon=True).start()

    def stop():
        if proc.poll() is None:
            proc.kill()
        shutil.rmtree(run_dir, ignore_errors=True)
    atexit.register(stop)


@pytest.hookimpl(trylast=True)   # after -k / -m deselection
def pytest_collection_modifyitems(session, config, items):
    late = [i for i in items if i.nodeid.endswith(SM90_TEST)]
    if late and not config.option.collectonly:
        items[:] = [i for i in items if i not in late] + late
        if "PYTEST_XDIST_WORKER" not in os.environ:   # a serial session starts it here
            _start_sm90(sm90_run_dir())


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """(xdist controller) a worker's collection: start the child if it holds the test."""
    if any(i.endswith(SM90_TEST) for i in ids) and not node.config.option.collectonly:
        _start_sm90(sm90_run_dir(node.workerinput["testrunuid"]))


def pytest_configure(config):
    config.addinivalue_line("markers", "cuda: needs a CUDA GPU (skipped in the interpreter)")


def pytest_report_header(config):
    mode = f"CUDA ({torch.cuda.get_device_name()})" if CUDA else "Triton interpreter (CPU)"
    from harness import scale
    return f"replaygen kernels: {mode}; Hypothesis examples x{scale():g}"


@pytest.fixture(scope="session")
def device() -> str:
    return "cuda" if CUDA else "cpu"
