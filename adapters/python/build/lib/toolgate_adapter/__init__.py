"""The toolgate adapter kit for Python: runs toolgate's
``boundary`` suite on a Python agent runtime through a small shim
(adapters/python/runtimes/SHIM.md). Standard library only.
"""

from .behaviours import executor_for, is_async, is_pending
from .encode import arguments_text, encode_delivered, utf8_bytes
from .shim_api import (
    AbortSignal,
    Call,
    RegistrationError,
    ResultSeen,
    Runtime,
    Tool,
    ToolContext,
    ToolEvent,
    Turn,
    TurnOutcome,
)
from .values import ThrownValue, materialize, thrown

__all__ = [
    "AbortSignal",
    "Call",
    "RegistrationError",
    "ResultSeen",
    "Runtime",
    "ThrownValue",
    "Tool",
    "ToolContext",
    "ToolEvent",
    "Turn",
    "TurnOutcome",
    "arguments_text",
    "encode_delivered",
    "executor_for",
    "is_async",
    "is_pending",
    "materialize",
    "thrown",
    "utf8_bytes",
]
