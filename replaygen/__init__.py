"""replaygen: a compiler from declarative SSM specs to ReplaySSM Triton decode kernels.

Pipeline (one pass per module): spec (load, validate) -> derive (sympy) -> plan ->
render (Jinja) -> emit (generated/). `load()` returns the kernels of one configuration.
"""
from .errors import ConfigError, InputError, ReplaygenError, SpecError
from .runtime import Kernels, ReplayState, load

__all__ = ["load", "Kernels", "ReplayState", "ReplaygenError", "SpecError", "ConfigError",
           "InputError"]
__version__ = "0.1.0"
