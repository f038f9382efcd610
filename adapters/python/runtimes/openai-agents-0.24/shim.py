"""toolgate runtime shim: the OpenAI Agents SDK for Python (``openai-agents`` 0.24.0).

Execution path: ``Runner.run(agent, input, run_config=...)``, the SDK's own agent
loop, with an ``Agent`` whose ``model`` is a scripted implementation of the SDK's
``Model`` interface. The first ``get_response`` returns one ``function_call``
output item per call of the turn (arguments as JSON text, ``call_id`` the case's
id); the runner resolves, guards and invokes the tools and calls the model again;
the second ``get_response`` records its ``input`` (whose ``function_call_output``
items are what is "delivered") and returns a final assistant message, which ends
the run. See README.md.

The shim validates, catches, serializes and bounds nothing of the runtime's: tool
bodies are the kit's ``execute`` functions, wired as the SDK's ``on_invoke_tool``;
what the runtime does not do is not done here.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from typing import Any

from agents import (
    Agent,
    FunctionTool,
    Model,
    ModelResponse,
    ModelSettings,
    ModelTracing,
    RunConfig,
    Runner,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
    Usage,
)
from agents.agent_output import AgentOutputSchemaBase
from agents.handoffs import Handoff
from agents.items import TResponseInputItem, TResponseStreamEvent
from agents.tool import Tool as SdkTool
from agents.tool_context import ToolContext as SdkToolContext
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_prompt_param import ResponsePromptParam
from typing_extensions import override

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
    id="openai-agents-0.24",
    package="openai-agents",
    version="0.24.0",
    path="Runner.run(agent, input) with a scripted Model (Agent.model), tools as FunctionTool",
    homepage="https://github.com/openai/openai-agents-python",
)

not_applicable = {
    "progress": (
        "a FunctionTool's on_invoke_tool(ctx, input) receives no progress callback and a "
        "non-streamed Runner.run emits no per-tool progress events"
    ),
}

# Runner.run has no signal, no cancel() and no cancel scope: the non-streamed run is
# stopped the Python way, by cancelling the task that awaits it (the SDK handles
# CancelledError in its tool batch, run_internal/tool_execution.py). RunResultStreaming
# .cancel() exists only on the streamed path, which this shim does not drive.
cancellation = "task"

FINAL_TEXT = "done"
_SDK_LOGGER = "openai.agents"


class _NoteHandler(logging.Handler):
    """Keeps what the SDK logs at WARNING and above during a turn (a name collision,
    a tool failure), as notes for people. It observes; it changes nothing."""

    def __init__(self, notes: list[str]) -> None:
        super().__init__(level=logging.WARNING)
        self.notes = notes

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception as error:  # noqa: BLE001 (a record whose arguments do not format)
            message = f"<unformattable log record: {type(error).__name__}>"
        self.notes.append(f"sdk log {record.levelname}: {message[:500]}")


class ScriptedTurnModel(Model):
    """Answers the first request with the turn's function calls and every later one
    with a final text; records each request's input."""

    def __init__(self, calls: list[Call]) -> None:
        self.calls = calls
        self.inputs: list[str | list[TResponseInputItem]] = []

    @override
    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[SdkTool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        # The list as the runner hands it over (a shallow copy of the list, the items
        # themselves are the runner's).
        self.inputs.append(list(input) if isinstance(input, list) else input)
        if len(self.inputs) == 1:
            return ModelResponse(
                output=[
                    ResponseFunctionToolCall(
                        type="function_call",
                        id=call.id,
                        call_id=call.id,
                        name=call.name,
                        arguments=arguments_text(call.arguments),
                        status="completed",
                    )
                    for call in self.calls
                ],
                usage=Usage(),
                response_id="resp_1",
            )
        number = len(self.inputs)
        return ModelResponse(
            output=[
                ResponseOutputMessage(
                    type="message",
                    id=f"msg_{number}",
                    role="assistant",
                    status="completed",
                    content=[
                        ResponseOutputText(
                            type="output_text", text=FINAL_TEXT, annotations=[], logprobs=[]
                        )
                    ],
                )
            ],
            usage=Usage(),
            response_id=f"resp_{number}",
        )

    @override
    def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[SdkTool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError("the toolgate shim drives the non-streamed path only")


def _invoker(tool: Tool) -> Any:
    """The FunctionTool's on_invoke_tool: the SDK hands it the arguments as JSON text."""

    async def on_invoke_tool(ctx: SdkToolContext[Any], input: str) -> Any:
        # The JSON text the model produced, decoded as the SDK's own function_tool
        # decodes it (json.loads, tool.py _parse_function_tool_json_input).
        args = json.loads(input) if input else {}
        context = ToolContext(call_id=ctx.tool_call_id, progress=None, signal=None)
        if tool.is_async:
            return await tool.execute(args, context)
        # As function_tool runs a sync function: in a worker thread (tool.py:2828-2832).
        return await asyncio.to_thread(tool.execute, args, context)

    return on_invoke_tool


def _check_guardrail(tool: Tool) -> ToolInputGuardrail[Any]:
    """The tool's extra check as the SDK's own pre-invocation hook, a tool input
    guardrail: rejecting content means the tool never runs and the message is its
    output."""
    check = tool.check
    assert check is not None

    def guardrail(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        text = data.context.tool_arguments
        problem = check(json.loads(text) if text else {})
        if problem is None:
            return ToolGuardrailFunctionOutput.allow()
        return ToolGuardrailFunctionOutput.reject_content(problem)

    return ToolInputGuardrail(guardrail_function=guardrail, name="check")


def function_tools(tools: list[Tool]) -> list[FunctionTool]:
    """The SDK's FunctionTools for the kit's tools (registration order, names may repeat)."""
    return [
        FunctionTool(
            name=tool.name,
            description=tool.description,
            params_json_schema=tool.input_schema,
            on_invoke_tool=_invoker(tool),
            # Strict mode would rewrite the schema for OpenAI Structured Outputs (every
            # property required, additionalProperties false) or refuse it, and would
            # still never check the arguments: see README.md.
            strict_json_schema=False,
            tool_input_guardrails=None if tool.check is None else [_check_guardrail(tool)],
        )
        for tool in tools
    ]


def delivered_from(model_input: str | list[TResponseInputItem]) -> list[ResultSeen]:
    """The function_call_output items of the model's second input, in order."""
    if not isinstance(model_input, list):
        return []
    results: list[ResultSeen] = []
    for item in model_input:
        if not isinstance(item, dict) or item.get("type") != "function_call_output":
            continue
        call_id = item.get("call_id")
        results.append(
            ResultSeen(
                call_id=call_id if isinstance(call_id, str) else None,
                # A function_call_output item has no error flag.
                is_error=None,
                delivered=dict(item),
            )
        )
    return results


async def run_turn(turn: Turn) -> TurnOutcome:
    notes: list[str] = []
    try:
        tools = function_tools(turn.tools)
    except Exception as error:  # noqa: BLE001 (FunctionTool(...) refused the definition)
        return TurnOutcome(
            registration_error=RegistrationError(type(error).__name__, str(error)), notes=notes
        )
    model = ScriptedTurnModel(turn.calls)
    agent: Agent[Any] = Agent(
        name="toolgate", instructions="Run the tools.", model=model, tools=list(tools)
    )
    handler = _NoteHandler(notes)
    sdk_logger = logging.getLogger(_SDK_LOGGER)
    sdk_logger.addHandler(handler)
    try:
        result = await Runner.run(
            agent, "Run the tools.", run_config=RunConfig(tracing_disabled=True)
        )
    finally:
        sdk_logger.removeHandler(handler)
    if len(model.inputs) < 2:
        notes.append(
            f"the model was called {len(model.inputs)} time(s); no tool results were sent back"
        )
        return TurnOutcome(results=[], notes=notes)
    if result.final_output != FINAL_TEXT:
        notes.append(f"the run ended without the scripted final text: {result.final_output!r}")
    return TurnOutcome(results=delivered_from(model.inputs[1]), notes=notes)
