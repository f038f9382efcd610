"""A test shim: runs each call's tool directly, one after another, with no
wall at all (no validation, no deadline), so the kit's tests see every
outcome the kit must record as it is."""

from __future__ import annotations

from toolgate_adapter import ResultSeen, Runtime, ToolContext, Turn, TurnOutcome

runtime = Runtime(id="direct", package="toolgate-test-direct", version="0.0.0", path="run_turn")
not_applicable = {"duplicateNames": "the test shim keeps tools by name"}


async def run_turn(turn: Turn) -> TurnOutcome:
    # runtimes print: the kit must keep this off the protocol's stdout
    print(f"direct shim: {len(turn.calls)} call(s)")
    if any(call.name == "raise-the-turn" for call in turn.calls):
        raise LookupError("the whole turn raised")
    results = []
    for call in turn.calls:
        tool = next((t for t in turn.tools if t.name == call.name), None)
        if tool is None:
            results.append(ResultSeen(call.id, True, f"unknown tool {call.name}"))
            continue
        try:
            value = await tool.call(call.arguments, ToolContext(call_id=call.id))
        except Exception as error:  # noqa: BLE001 (every failure becomes a result)
            results.append(ResultSeen(call.id, True, repr(error)))
        else:
            results.append(ResultSeen(call.id, False, value))
    return TurnOutcome(results=results, notes=["direct"])
