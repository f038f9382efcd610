"""toolgate runtime shim: AutoGen AgentChat (``autogen-agentchat`` 0.7.5, ``autogen-core`` 0.7.5).

Execution path: ``await AssistantAgent(..., model_client=<scripted>, tools=[...],
reflect_on_tool_use=True).run(task=..., cancellation_token=token)``, AgentChat's own
tool loop (``AssistantAgent.on_messages_stream`` -> ``_process_model_result`` ->
``_execute_tool_call`` -> ``StaticStreamWorkbench.call_tool_stream`` ->
``BaseTool.run_json``). The scripted ``ChatCompletionClient``'s first ``create``
returns one ``CreateResult`` whose content is one ``FunctionCall`` per call of the
turn (``id`` the case's id, ``arguments`` the JSON text); the agent parses, validates,
runs and answers the calls, then makes its reflection inference: the second
``create`` records the ``messages`` it receives (whose
``FunctionExecutionResultMessage`` holds what is "delivered") and returns the final
text. See README.md.

Each tool is a ``BaseTool`` whose ``args_type`` is ``autogen_core.utils.
schema_to_pydantic_model(input_schema)``, the pattern of autogen-ext's
``McpToolAdapter`` (a ``BaseStreamTool`` when its body reports progress, AutoGen's only
progress channel). The shim validates, catches, serializes and bounds nothing of the
runtime's: what the runtime does not do is not done here.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import Any, Literal

from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import BaseAgentEvent
from autogen_core import CancellationToken, FunctionCall
from autogen_core.models import (
    ChatCompletionClient,
    CreateResult,
    FunctionExecutionResultMessage,
    LLMMessage,
    ModelCapabilities,
    ModelInfo,
    RequestUsage,
)
from autogen_core.tools import BaseStreamTool, BaseTool, ToolSchema
from autogen_core.tools import Tool as AutogenTool
from autogen_core.utils import schema_to_pydantic_model
from pydantic import BaseModel, create_model, model_validator

from toolgate_adapter import (
    AbortSignal,
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
from toolgate_adapter.shim_api import on_loop

runtime = Runtime(
    id="autogen-agentchat-0.7",
    package="autogen-agentchat",
    version="0.7.5",
    path="await AssistantAgent(model_client=<scripted ChatCompletionClient>, tools=[BaseTool "
    "with schema_to_pydantic_model(...)], reflect_on_tool_use=True).run(task, "
    "cancellation_token=token)",
    homepage="https://github.com/microsoft/autogen",
)

# Nothing: progress is AutoGen's streaming tool (BaseStreamTool) yielding an agent event, see
# README.md; duplicate names, unknown tools, extra checks, aborts and parallel calls are all
# expressible.
not_applicable: dict[str, str] = {}

#: AgentChat's own entry for stopping a run: a CancellationToken passed to `run()`
#: (autogen_agentchat/agents/_base_chat_agent.py:111-149); see README.md.
cancellation = "signal"

PROMPT = "Run the tools."
FINAL_TEXT = "done"
AGENT_NAME = "toolgate"


class ScriptedClient(ChatCompletionClient):
    """The model: the turn's calls as one response, then a final text. Records the
    messages of every request."""

    def __init__(self, calls: list[Call]) -> None:
        # JSON text: FunctionCall.arguments is a str, which the agent json.loads
        # (_assistant_agent.py:1547).
        self.calls = [
            FunctionCall(id=call.id, arguments=arguments_text(call.arguments), name=call.name)
            for call in calls
        ]
        self.requests: list[list[LLMMessage]] = []
        self._usage = RequestUsage(prompt_tokens=0, completion_tokens=0)

    async def create(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[AutogenTool | ToolSchema] = (),
        tool_choice: AutogenTool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] | None = None,
        cancellation_token: CancellationToken | None = None,
    ) -> CreateResult:
        # As autogen-ext's clients await their HTTP request: a future linked to the
        # token, so a cancelled token ends the request (see README.md).
        future = asyncio.ensure_future(self._respond(list(messages)))
        if cancellation_token is not None:
            cancellation_token.link_future(future)
        return await future

    async def _respond(self, messages: list[LLMMessage]) -> CreateResult:
        self.requests.append(messages)
        usage = RequestUsage(prompt_tokens=1, completion_tokens=1)
        if len(self.requests) == 1:
            return CreateResult(
                finish_reason="function_calls", content=list(self.calls), usage=usage, cached=False
            )
        return CreateResult(finish_reason="stop", content=FINAL_TEXT, usage=usage, cached=False)

    def create_stream(
        self,
        messages: Sequence[LLMMessage],
        *,
        tools: Sequence[AutogenTool | ToolSchema] = (),
        tool_choice: AutogenTool | Literal["auto", "required", "none"] = "auto",
        json_output: bool | type[BaseModel] | None = None,
        extra_create_args: Mapping[str, Any] | None = None,
        cancellation_token: CancellationToken | None = None,
    ) -> AsyncGenerator[str | CreateResult, None]:
        raise NotImplementedError("the toolgate shim drives the non-streamed path only")

    async def close(self) -> None:
        return None

    def actual_usage(self) -> RequestUsage:
        return self._usage

    def total_usage(self) -> RequestUsage:
        return self._usage

    def count_tokens(
        self, messages: Sequence[LLMMessage], *, tools: Sequence[AutogenTool | ToolSchema] = ()
    ) -> int:
        return 0

    def remaining_tokens(
        self, messages: Sequence[LLMMessage], *, tools: Sequence[AutogenTool | ToolSchema] = ()
    ) -> int:
        return 1_000_000

    @property
    def capabilities(self) -> ModelCapabilities:
        return {"vision": False, "function_calling": True, "json_output": False}

    @property
    def model_info(self) -> ModelInfo:
        return {
            "vision": False,
            "function_calling": True,
            "json_output": False,
            "family": "unknown",
            "structured_output": False,
        }


def _args_type(tool: Tool) -> type[BaseModel]:
    """The tool's arguments model: AutoGen's own JSON Schema converter, and the extra
    check (if any) as a Pydantic `model_validator` on it, so that the runtime's one
    validation step (`args_type.model_validate`, autogen_core/tools/_base.py:198) runs
    both."""
    model = schema_to_pydantic_model(tool.input_schema)
    check = tool.check
    if check is None:
        return model

    def run_check(self: BaseModel) -> BaseModel:
        problem = check(self.model_dump(exclude_unset=True))
        if problem is not None:
            raise ValueError(problem)
        return self

    return create_model(
        model.__name__,
        __base__=model,
        __validators__={"check": model_validator(mode="after")(run_check)},  # type: ignore[dict-item]
    )


def _signal_of(token: CancellationToken) -> AbortSignal:
    """The token AutoGen hands the tool's `run` / `run_stream`, as the kit's AbortSignal."""
    signal = AbortSignal()
    token.add_callback(signal.abort)
    return signal


async def _call(tool: Tool, args: BaseModel, context: ToolContext) -> Any:
    """The body on the arguments model the runtime validated, given as its fields (as
    autogen-ext's McpToolAdapter hands them on, `args.model_dump(exclude_unset=True)`)."""
    arguments = args.model_dump(exclude_unset=True)
    if tool.is_async:
        return await tool.execute(arguments, context)
    # As FunctionTool runs a plain function: in the default executor
    # (autogen_core/tools/_function_tool.py:127-130).
    return await asyncio.get_running_loop().run_in_executor(
        None, functools.partial(tool.execute, arguments, context)
    )


class SchemaTool(BaseTool[BaseModel, BaseModel]):
    """A tool declared by a JSON Schema (a tool that reports no progress)."""

    def __init__(self, tool: Tool) -> None:
        super().__init__(_args_type(tool), object, tool.name, tool.description)  # type: ignore[arg-type]
        self._tool = tool

    async def run(self, args: BaseModel, cancellation_token: CancellationToken) -> Any:
        return await _call(self._tool, args, ToolContext(signal=_signal_of(cancellation_token)))


class ToolProgressEvent(BaseAgentEvent):
    """One progress report of a tool: a new agent event type, AgentChat's documented way
    of "signaling observable events to user and application"
    (autogen_agentchat/messages.py:142-156)."""

    content: Any
    type: Literal["ToolProgressEvent"] = "ToolProgressEvent"

    def to_text(self) -> str:
        return repr(self.content)


class SchemaStreamTool(BaseStreamTool[BaseModel, ToolProgressEvent, BaseModel]):
    """A tool declared by a JSON Schema that reports progress: AutoGen's streaming tool.
    `run_stream` yields a ToolProgressEvent per report while the body runs, then the
    body's value (`run_json_stream` takes the last yield as the result,
    autogen_core/tools/_base.py:251-259). The token is handed to the body as its signal,
    as TaskRunnerTool hands it to its runner (autogen_agentchat/tools/_task_runner_tool.py:
    46-52); nothing else here cancels, catches or reorders."""

    def __init__(self, tool: Tool) -> None:
        super().__init__(_args_type(tool), object, tool.name, tool.description)  # type: ignore[arg-type]
        self._tool = tool

    async def run(self, args: BaseModel, cancellation_token: CancellationToken) -> Any:
        return await _call(self._tool, args, ToolContext(signal=_signal_of(cancellation_token)))

    async def run_stream(
        self, args: BaseModel, cancellation_token: CancellationToken
    ) -> AsyncGenerator[Any, None]:
        loop = asyncio.get_running_loop()
        reports: asyncio.Queue[Any] = asyncio.Queue()

        def progress(value: Any) -> None:
            # from any thread (a sync body runs in a worker thread)
            on_loop(loop, lambda: reports.put_nowait(value))

        context = ToolContext(progress=progress, signal=_signal_of(cancellation_token))
        body = asyncio.ensure_future(_call(self._tool, args, context))
        while not body.done():
            report = asyncio.ensure_future(reports.get())
            await asyncio.wait({body, report}, return_when=asyncio.FIRST_COMPLETED)
            if report.done():
                yield ToolProgressEvent(source=self.name, content=report.result())
            else:
                report.cancel()
        while not reports.empty():
            yield ToolProgressEvent(source=self.name, content=reports.get_nowait())
        yield body.result()


def _tool_of(tool: Tool) -> BaseTool[BaseModel, BaseModel]:
    """A body that reports progress needs AutoGen's streaming tool, the only kind with a
    channel for it; every other body is a plain BaseTool (see README.md)."""
    if "progress" in tool.behaviour:
        return SchemaStreamTool(tool)
    return SchemaTool(tool)


def _results(messages: list[LLMMessage]) -> list[ResultSeen]:
    results = []
    for message in messages:
        if isinstance(message, FunctionExecutionResultMessage):
            for result in message.content:
                results.append(
                    ResultSeen(
                        call_id=result.call_id,
                        is_error=result.is_error,
                        delivered={
                            "call_id": result.call_id,
                            "name": result.name,
                            "content": result.content,
                            "is_error": result.is_error,
                        },
                    )
                )
    return results


def build_agent(tools: list[Tool], client: ScriptedClient) -> AssistantAgent:
    return AssistantAgent(
        AGENT_NAME,
        model_client=client,
        tools=[_tool_of(tool) for tool in tools],
        reflect_on_tool_use=True,
    )


async def run_turn(turn: Turn) -> TurnOutcome:
    notes: list[str] = []
    client = ScriptedClient(turn.calls)
    try:
        # schema_to_pydantic_model refuses schemas it cannot convert, and AssistantAgent
        # refuses duplicate names (_assistant_agent.py:786-789), before any turn.
        agent = build_agent(turn.tools, client)
    except Exception as error:  # noqa: BLE001 (whatever the runtime refuses the tools with)
        return TurnOutcome(
            registration_error=RegistrationError(type(error).__name__, str(error)), notes=notes
        )
    token = CancellationToken()
    turn.signal.add_listener(token.cancel)
    result = await agent.run(task=PROMPT, cancellation_token=token)
    if len(client.requests) < 2:
        notes.append(
            f"the model was called {len(client.requests)} time(s); "
            "no tool results were sent back to it"
        )
        return TurnOutcome(notes=notes)
    if len(client.requests) > 2:
        notes.append(f"the model was called {len(client.requests)} times")
    reports = sum(isinstance(message, ToolProgressEvent) for message in result.messages)
    if reports:
        notes.append(f"the agent's run carried {reports} ToolProgressEvent(s) of its tools")
    final = result.messages[-1] if result.messages else None
    if getattr(final, "content", None) != FINAL_TEXT:
        notes.append(f"the run ended without the scripted final text ({final!r:.200})")
    return TurnOutcome(results=_results(client.requests[1]), notes=notes)
