"""toolgate's shim for your runtime (written by `toolgate init`): it hands a
case's tools and model turn to your runtime's own execution path and says
what the model receives next. A shim never validates, catches or serializes
anything itself: what the runtime does not do, the suite must see not done.
The interface, every field: SHIM.md in the kit's documentation."""

# TOOLGATE: import your runtime's entry points here, e.g.
# from your_runtime import Agent

from toolgate_adapter import Runtime, Turn, TurnOutcome

runtime = Runtime(
    id="my-runtime",  # TOOLGATE: a short id of the runtime under test
    package="my-runtime",  # TOOLGATE: its PyPI distribution
    version="0.0.0",  # TOOLGATE: the exact version installed
    path="the execution path this shim drives",  # TOOLGATE: e.g. "Runner.run with a scripted model"
)

# What your runtime cannot express at all, each with a reason (keys: abort,
# duplicateNames, unknownTool, check, progress, parallel).
not_applicable: dict[str, str] = {}


async def run_turn(turn: Turn) -> TurnOutcome:
    # TOOLGATE: begin (replace this block with your runtime's execution path)
    # Register turn.tools (name, description, input_schema, check, execute,
    # is_async) with the runtime, run one model turn that emits turn.calls
    # (id, name, arguments), and return a TurnOutcome with a ResultSeen
    # (call_id, is_error, delivered) for each tool result the next model
    # request carries.
    raise NotImplementedError("toolgate/shim.py: run_turn is not wired to your runtime yet")
    # TOOLGATE: end
