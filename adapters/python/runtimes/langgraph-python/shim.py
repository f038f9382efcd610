"""toolgate runtime shim: LangGraph 1.2.22's prebuilt ToolNode as the dispatcher of
langchain-core 1.8.1 tools, inside the smallest real agent loop.

Each tool of the case is a ``StructuredTool.from_function`` with the case's JSON Schema
as ``args_schema`` (a dict) and the body as ``func`` (a plain function) or ``coroutine``
(a coroutine function); the model's turn is one ``AIMessage`` carrying every call in
``tool_calls``. The loop is a compiled ``StateGraph(MessagesState)``: a scripted model
node, ``ToolNode(tools)`` with its default error handling, ``tools_condition`` between
them, and the model node again, which records the messages it is called with: the
``ToolMessage``s after the ``AIMessage`` are what the next model request carries. The
graph runs with ``astream(..., stream_mode="custom")``, LangGraph's own progress channel.
See README.md for every choice, with file and line references.
"""

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.prebuilt import ToolNode, ToolRuntime, tools_condition

from toolgate_adapter import (
    RegistrationError,
    ResultSeen,
    Runtime,
    Tool,
    ToolContext,
    Turn,
    TurnOutcome,
)

runtime = Runtime(
    id="langgraph-python",
    package="langgraph",
    version="1.2.22",
    path=(
        "StateGraph(MessagesState): scripted model node -> ToolNode (langgraph-prebuilt "
        "1.1.3, default handle_tool_errors) -> model node, over langchain-core 1.8.1 "
        "StructuredTool.from_function(args_schema=<JSON Schema dict>)"
    ),
    homepage="https://github.com/langchain-ai/langgraph",
)

not_applicable = {
    "check": (
        "a StructuredTool whose args_schema is a JSON Schema dict is not validated at all "
        "(langchain_core/tools/base.py:817-818 returns the input as it is), and it has no "
        "validator hook beside it: only a Pydantic args_schema could carry a model "
        "validator, and langchain-core has no JSON Schema to Pydantic conversion"
    ),
}

# LangGraph has no cancel entry for a local run (no signal, no cancel()): a run is
# stopped by cancelling the asyncio task awaiting it, which Pregel's runner propagates
# to the node tasks (README, "Cancellation").
cancellation = "task"

#: The user message that starts the run; the scripted model answers it with the turn.
_PROMPT = "toolgate: the case's turn"
#: The scripted model's final text, after it has received the tool results.
_FINAL = "done"


async def run_turn(turn: Turn) -> TurnOutcome:
    notes: list[str] = []
    model = _ScriptedModel(
        AIMessage(
            content="",
            tool_calls=[
                {"id": call.id, "name": call.name, "args": call.arguments, "type": "tool_call"}
                for call in turn.calls
            ],
        )
    )
    try:
        tools = [_langchain_tool(tool) for tool in turn.tools]
        graph = _agent_loop(tools, model)
    except Exception as error:  # noqa: BLE001 (a refusal of the tools is reported, not raised)
        return TurnOutcome(registration_error=RegistrationError(type(error).__name__, str(error)))

    async for chunk in graph.astream({"messages": [HumanMessage(_PROMPT)]}, stream_mode="custom"):
        notes.append(f"custom stream: {_text(chunk)}")

    if len(model.requests) < 2:
        notes.append(f"the model was called {len(model.requests)} time(s), not twice")
        return TurnOutcome(results=[], notes=notes)
    results = [
        ResultSeen(
            call_id=message.tool_call_id,
            is_error=message.status == "error",
            delivered={
                "content": message.content,
                "status": message.status,
                "tool_call_id": message.tool_call_id,
            },
        )
        for message in _tool_results(model.requests[1])
    ]
    return TurnOutcome(results=results, notes=notes)


class _ScriptedModel:
    """The model node: the first call answers with the turn's ``AIMessage``, the second
    (after the tool results) with a final text; each call's messages are kept, as the
    request a chat model would be sent."""

    def __init__(self, turn_message: AIMessage) -> None:
        self.turn_message = turn_message
        self.requests: list[list[AnyMessage]] = []

    async def __call__(self, state: MessagesState) -> dict[str, list[AnyMessage]]:
        self.requests.append(list(state["messages"]))
        if len(self.requests) == 1:
            return {"messages": [self.turn_message]}
        return {"messages": [AIMessage(content=_FINAL)]}


def _agent_loop(tools: Sequence[BaseTool], model: _ScriptedModel) -> CompiledStateGraph[Any]:
    """The loop of LangGraph's ToolNode documentation: model -> tools -> model."""
    builder = StateGraph(MessagesState)
    builder.add_node("model", model)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition, ["tools", END])
    builder.add_edge("tools", "model")
    return builder.compile()


def _langchain_tool(tool: Tool) -> StructuredTool:
    """A ``StructuredTool`` with the case's JSON Schema as it is. The body's arguments
    arrive as keyword arguments (``StructuredTool._run``/``_arun`` call
    ``func(**args)``); ``runtime: ToolRuntime`` is injected by ToolNode and carries the
    call id and the custom stream writer."""
    if tool.is_async:

        async def run_async(runtime: ToolRuntime, **kwargs: Any) -> Any:
            return await tool.execute(kwargs, _context(runtime))

        return StructuredTool.from_function(
            coroutine=run_async,
            name=tool.name,
            description=tool.description,
            args_schema=tool.input_schema,
        )

    def run_sync(runtime: ToolRuntime, **kwargs: Any) -> Any:
        return tool.execute(kwargs, _context(runtime))

    return StructuredTool.from_function(
        func=run_sync,
        name=tool.name,
        description=tool.description,
        args_schema=tool.input_schema,
    )


def _context(runtime: ToolRuntime) -> ToolContext:
    # LangGraph gives a tool no cancellation signal: signal stays None.
    return ToolContext(call_id=runtime.tool_call_id, progress=runtime.stream_writer)


def _tool_results(request: list[AnyMessage]) -> list[ToolMessage]:
    """The tool results of the model's second request: the ``ToolMessage``s after the
    turn's ``AIMessage``."""
    last_ai = max(i for i, message in enumerate(request) if isinstance(message, AIMessage))
    return [message for message in request[last_ai + 1 :] if isinstance(message, ToolMessage)]


def _text(value: Any) -> str:
    """A note's text for a value written on the custom stream (any value a tool chose)."""
    try:
        return json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        try:
            return repr(value)
        except Exception as error:  # noqa: BLE001 (a note only: the value's repr may raise)
            return f"(no text: {type(error).__name__})"
