"""Error types of replaygen.

Every error says where the problem is and why: a spec error names the file, the field
and the reason; a runtime error names the tensor (or option) and what was expected.
"""
from __future__ import annotations


class ReplaygenError(Exception):
    """Base class of every error replaygen raises on purpose."""


class SpecError(ReplaygenError):
    """A spec file is invalid: raised at load time, before anything is generated."""

    def __init__(self, file: str, field: str, reason: str):
        self.file, self.field, self.reason = file, field, reason
        super().__init__(f"{file}: field '{field}': {reason}")


class ConfigError(ReplaygenError):
    """A build configuration (dims, buffer length, precisions) is invalid for a spec."""


class InputError(ReplaygenError, ValueError):
    """A runtime argument has the wrong shape, dtype, device or value."""


class TuningError(ReplaygenError):
    """A tuning table (launch configurations stored as data) is invalid: names the file,
    the entry and the reason; raised when the table is loaded, before any launch."""

    def __init__(self, file: str, key: str, reason: str):
        self.file, self.key, self.reason = file, key, reason
        super().__init__(f"{file}: {key}: {reason}")
