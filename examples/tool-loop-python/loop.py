"""A tool loop of the kind a team writes in an afternoon: register tools, run
one model turn's calls, give each call a result the model reads. The runtime
.ci/packaged-gate gates through the built wheel of the kit; its baseline
(expected-failures.txt) says where it falls short of the wall."""

import asyncio
import inspect
import json
from typing import Any

TYPES = {"string": str, "number": (int, float), "integer": int, "boolean": bool, "object": dict, "array": list}


class Loop:
    def __init__(self, tools: list[Any]) -> None:
        self.tools: dict[str, Any] = {}
        for tool in tools:
            if tool.name in self.tools:
                raise ValueError(f"duplicate tool name {tool.name}")
            self.tools[tool.name] = tool

    async def run_turn(self, calls: list[Any]) -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(self.run_call(call) for call in calls)))

    async def run_call(self, call: Any) -> dict[str, Any]:
        tool = self.tools.get(call.name)
        if tool is None:
            return result(call, True, f"unknown tool {call.name}")
        refusal = check_arguments(tool.input_schema, call.arguments)
        refusal = refusal or (tool.check(call.arguments) if tool.check else None)
        if refusal:
            return result(call, True, f"invalid arguments: {refusal}")
        try:
            value = tool.execute(call.arguments)
            return result(call, False, json.dumps(await value if inspect.isawaitable(value) else value))
        except Exception as error:  # every ordinary failure becomes a result
            return result(call, True, f"tool failed: {error}")


def check_arguments(schema: dict[str, Any], args: Any) -> str | None:
    """The arguments against the top level of a JSON Schema."""
    if not isinstance(args, dict):
        return "not an object"
    for key in [key for key in schema.get("required", []) if key not in args]:
        return f"missing {key}"
    for key, value in args.items():
        kind = schema.get("properties", {}).get(key, {}).get("type")
        if kind is None and schema.get("additionalProperties") is False:
            return f"unknown key {key}"
        wrong = kind is not None and not isinstance(value, TYPES.get(kind, object))
        if wrong or (kind is not None and isinstance(value, bool) != (kind == "boolean")):
            return f"{key} is not {kind}"
    return None


def result(call: Any, is_error: bool, text: str) -> dict[str, Any]:
    content = text if len(text) <= 4096 else text[:4072] + "…[truncated]"
    return {"call_id": call.id, "is_error": is_error, "content": content}
