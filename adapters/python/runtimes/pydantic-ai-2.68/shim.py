"""toolgate runtime shim: Pydantic AI (``pydantic-ai-slim`` 2.68.0).

Execution path: ``await Agent(model=FunctionModel(...), tools=[...]).run(prompt,
cancellation_token=token)``, Pydantic AI's own agent loop (``_agent_graph`` and
``_tool_execution``), with a scripted model. The model function's first call
returns one ``ModelResponse`` holding a ``ToolCallPart`` per call of the turn
(``tool_call_id`` the case's id, ``args`` the arguments as JSON text, as the
OpenAI models produce them); the loop validates, runs and answers the calls and
calls the model again; the second call records the ``messages`` it receives
(whose ``ToolReturnPart``\\ s are what is "delivered") and returns a final
``TextPart``, which ends the run. See README.md.

The shim validates, catches, serializes and bounds nothing of the runtime's:
each tool is ``Tool.from_schema`` with the case's JSON Schema and the kit's
``execute`` as its function; what the runtime does not do is not done here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic_ai import Agent, CancellationToken, RunContext
from pydantic_ai import Tool as PydanticTool
from pydantic_ai.exceptions import ModelRetry, UserError
from pydantic_ai.messages import (
    ERROR_OUTCOMES,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage

from toolgate_adapter import (
    Call,
    RegistrationError,
    ResultSeen,
    Runtime,
    Tool,
    ToolContext,
    Turn,
    TurnOutcome,
    arguments_text,
)

runtime = Runtime(
    id="pydantic-ai-2.68",
    package="pydantic-ai-slim",
    version="2.68.0",
    path="await Agent(model=FunctionModel(...), tools=[Tool.from_schema(...)]).run(...) "
    "with a CancellationToken",
    homepage="https://ai.pydantic.dev",
)

not_applicable = {
    "progress": (
        "a tool's only channel for reporting while it runs is `await RunContext.emit(event)` into "
        "the run's event stream (pydantic_ai/_run_context.py:874-885): it must be awaited, sync "
        "tools cannot use it at all, and the kit's synchronous progress(value) callback cannot "
        "await it"
    ),
}

#: Pydantic AI's own entry for stopping a run from the outside: a CancellationToken
#: passed to `run()` (agent/__init__.py:1591); see README.md.
cancellation = "signal"

PROMPT = "Run the tools."
FINAL_TEXT = "done"


def _body(tool: Tool) -> Callable[..., Any]:
    """The tool's function for `Tool.from_schema(..., takes_ctx=True)`.

    Pydantic AI calls it as `function(ctx, **validated_args)`
    (_function_schema.py:92-100, 102-118), awaiting a coroutine function and running a
    plain one in a worker thread (`run_in_executor`, _utils.py:186-226). So an async
    body is registered as a coroutine function and a sync body as a plain function:
    the runtime decides where each runs. `ctx.tool_call_id` is the call's id.
    """
    if tool.is_async:

        async def run_async(ctx: RunContext[None], /, **args: Any) -> Any:
            return await tool.execute(args, ToolContext(call_id=ctx.tool_call_id))

        return run_async

    def run_sync(ctx: RunContext[None], /, **args: Any) -> Any:
        return tool.execute(args, ToolContext(call_id=ctx.tool_call_id))

    return run_sync


def _validator(check: Callable[[Any], str | None]) -> Callable[..., None]:
    """The tool's `args_validator`: Pydantic AI's own hook for refusing arguments after
    schema validation and before execution (tools.py:534-540, tool_manager.py:633-643).
    It receives the validated arguments as keywords; `ModelRetry` is how it refuses,
    the same path a schema's `ValidationError` takes (an `outcome='retried'` return)."""

    def validate(_ctx: RunContext[None], /, **args: Any) -> None:
        problem = check(args)
        if problem is not None:
            raise ModelRetry(problem)

    return validate


def _tools(tools: list[Tool]) -> list[PydanticTool[None]]:
    return [
        PydanticTool.from_schema(
            _body(tool),
            name=tool.name,
            description=tool.description,
            json_schema=tool.input_schema,
            takes_ctx=True,
            args_validator=None if tool.check is None else _validator(tool.check),
        )
        for tool in tools
    ]


class ScriptedModel:
    """The `FunctionModel` function: the turn's calls, then a final text."""

    def __init__(self, calls: list[Call]) -> None:
        # JSON text, as the OpenAI models hand arguments to the loop (see README.md).
        self.parts = [
            ToolCallPart(call.name, arguments_text(call.arguments), tool_call_id=call.id)
            for call in calls
        ]
        self.requests: list[list[ModelMessage]] = []

    async def __call__(self, messages: list[ModelMessage], _info: AgentInfo) -> ModelResponse:
        self.requests.append(list(messages))
        # A usage of its own, as every real provider reports one: else FunctionModel
        # estimates tokens by walking every message (models/function.py:186-191), a
        # test double's cost on a 10 MB output that no real run pays.
        usage = RequestUsage(input_tokens=1, output_tokens=1)
        if len(self.requests) == 1:
            return ModelResponse(parts=list(self.parts), usage=usage)
        return ModelResponse(parts=[TextPart(FINAL_TEXT)], usage=usage)


def _seen(part: Any) -> ResultSeen | None:
    """One tool result of the model's request, as the model function received it."""
    if isinstance(part, ToolReturnPart):
        return ResultSeen(
            call_id=part.tool_call_id,
            # 'failed' and 'retried' are the outcomes that reach the model as an error,
            # through the provider's error channel or an {"error": ...} wrapper
            # (messages.py:2332-2339); 'denied' and 'interrupted' are ordinary results.
            is_error=part.outcome in ERROR_OUTCOMES,
            delivered={
                "part_kind": part.part_kind,
                "tool_name": part.tool_name,
                "tool_call_id": part.tool_call_id,
                "content": part.content,
                "outcome": part.outcome,
            },
        )
    if isinstance(part, RetryPromptPart):  # deprecated; 2.68 sends retries as ToolReturnPart
        return ResultSeen(
            call_id=part.tool_call_id,
            is_error=True,
            delivered={
                "part_kind": part.part_kind,
                "tool_name": part.tool_name,
                "tool_call_id": part.tool_call_id,
                "content": part.content,
            },
        )
    return None


def _results(messages: list[ModelMessage]) -> list[ResultSeen]:
    results = []
    for message in messages:
        if isinstance(message, ModelRequest):
            for part in message.parts:
                seen = _seen(part)
                if seen is not None:
                    results.append(seen)
    return results


async def run_turn(turn: Turn) -> TurnOutcome:
    notes: list[str] = []
    model = ScriptedModel(turn.calls)
    try:
        # FunctionToolset.add_tool refuses a second tool of one name with UserError
        # (toolsets/function.py:739-740), when the Agent is built.
        agent = Agent(FunctionModel(model), tools=_tools(turn.tools))
    except UserError as error:
        return TurnOutcome(
            registration_error=RegistrationError(type(error).__name__, str(error)), notes=notes
        )
    token = CancellationToken()
    turn.signal.add_listener(token.cancel)
    result = await agent.run(PROMPT, cancellation_token=token)
    if len(model.requests) < 2:
        notes.append(
            f"the model was called {len(model.requests)} time(s); "
            "no tool results were sent back to it"
        )
        return TurnOutcome(notes=notes)
    if len(model.requests) > 2:
        notes.append(f"the model was called {len(model.requests)} times")
    if result.output != FINAL_TEXT:
        notes.append(f"the run ended without the scripted final text ({result.output!r})")
    return TurnOutcome(results=_results(model.requests[1]), notes=notes)
