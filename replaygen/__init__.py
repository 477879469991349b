"""replaygen: a compiler from declarative SSM specs to ReplaySSM Triton decode kernels.

Pipeline (one pass per module): spec (load, validate) -> derive (sympy) -> plan ->
render (Jinja) -> emit (generated/). `load()` returns the kernels of one configuration.
The runtime (and so torch, ~0.8 s to import) loads on first use of `load`, `Kernels` or
`ReplayState`, so the compiler passes and the `replaygen` command start without it.
"""
from .errors import ConfigError, InputError, ReplaygenError, SpecError

__all__ = ["load", "Kernels", "ReplayState", "ReplaygenError", "SpecError", "ConfigError",
           "InputError"]
__version__ = "0.1.0"
RUNTIME_NAMES = ("load", "Kernels", "ReplayState")


def __getattr__(name: str):
    if name in RUNTIME_NAMES:
        from . import runtime
        return getattr(runtime, name)
    raise AttributeError(f"module 'replaygen' has no attribute {name!r}")
