"""The shim the kit loads (`python -m toolgate_adapter --shim <this folder>`):
it hands the case's tools and turn to the loop and says what the model
receives. The interface: SHIM.md in the kit's documentation."""

from loop import Loop

from toolgate_adapter import RegistrationError, ResultSeen, Runtime, Turn, TurnOutcome

runtime = Runtime(id="tool-loop-python", package="tool-loop-python", version="0.0.0",
                  path="Loop(tools).run_turn(calls)")

not_applicable = {"progress": "the loop has no progress channel"}


async def run_turn(turn: Turn) -> TurnOutcome:
    try:
        loop = Loop(turn.tools)
    except ValueError as error:
        return TurnOutcome(results=[], registration_error=RegistrationError(
            type(error).__name__, str(error)), notes=[])
    results = await loop.run_turn(turn.calls)
    return TurnOutcome(results=[ResultSeen(call_id=r["call_id"], is_error=r["is_error"],
                                           delivered=r["content"]) for r in results], notes=[])
