"""A tool loop of the kind a team writes in an afternoon: register tools,
run one model turn's calls, give each call a result the model reads. It is
the runtime `.ci/packaged-gate` gates through the built wheel of the kit;
its baseline (expected-failures.txt) says where it falls short of the wall."""

import asyncio
import inspect
import json
from typing import Any

TYPES = {"string": str, "number": (int, float), "integer": int, "boolean": bool,
         "object": dict, "array": list}


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
        def fail(text: str) -> dict[str, Any]:
            return {"call_id": call.id, "is_error": True, "content": clip(text)}
        tool = self.tools.get(call.name)
        if tool is None:
            return fail(f"unknown tool {call.name}")
        refusal = check_arguments(tool.input_schema, call.arguments)
        refusal = refusal or (tool.check(call.arguments) if tool.check else None)
        if refusal:
            return fail(f"invalid arguments: {refusal}")
        try:
            value = tool.execute(call.arguments)
            if inspect.isawaitable(value):
                value = await value
            return {"call_id": call.id, "is_error": False, "content": clip(json.dumps(value))}
        except Exception as error:  # every ordinary failure becomes a result
            return fail(f"tool failed: {error}")


def check_arguments(schema: dict[str, Any], args: Any) -> str | None:
    """The arguments against the top level of a JSON Schema."""
    if not isinstance(args, dict):
        return "not an object"
    missing = [key for key in schema.get("required", []) if key not in args]
    if missing:
        return f"missing {missing[0]}"
    for key, value in args.items():
        kind = schema.get("properties", {}).get(key, {}).get("type")
        if kind is None:
            if schema.get("additionalProperties") is False:
                return f"unknown key {key}"
            continue
        wrong = not isinstance(value, TYPES.get(kind, object))
        if wrong or isinstance(value, bool) != (kind == "boolean"):
            return f"{key} is not {kind}"
    return None


def clip(text: str) -> str:
    return text if len(text) <= 4096 else text[:4072] + "…[truncated]"
