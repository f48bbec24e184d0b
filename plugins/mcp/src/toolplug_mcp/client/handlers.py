"""The host's handlers, serving an MCP server: sampling, questions, roots, progress, logs.

A server may turn to its client: ask the host's model for a completion (sampling), ask
the user a question with a small form (elicitation), ask which directories it may work
in (roots), and send progress reports and log messages. :class:`ServerHandlers` gives
one server's connection what the host supplied in its
:class:`toolplug.interaction.Handlers` (the ``ToolContext.handlers`` of the ``mcp``
factory, which ``Toolset.load`` fills):

- sampling is declared only with an ``on_sample``, elicitation only with an
  ``on_elicit`` (form mode; a URL-mode request is declined), so a server never asks for
  what the host cannot give;
- roots (the workspace, then ``Handlers.roots``) are declared when the host gave any
  handler or root: a host that gave none gets the client it had before;
- progress of a call goes to ``on_progress`` marked with the call's toolplug name and
  id; log messages go to ``on_log``, marked with the call's name and id when one call
  to the server is running, else with the server's key (without these handlers, both
  go to Python logging, logger ``toolplug.tools``).

A sync ``on_elicit`` or ``on_sample`` (a person at a prompt, a blocking model call) runs
in a worker thread, so that the client loop, which every server shares, goes on.

A server may send only so many sampling and elicitation requests during one call (the
``limit``: the ``mcp`` factory's ``max_server_requests``, or a server's own
``maxServerRequests``); past it each one is refused, with an error the server reads,
and never reaches the host. A request is counted against every call to the server
then running (the protocol does not say which call asked), or, outside calls, against
the time since the last call started.

Imports the MCP SDK: loaded only when a server is opened.
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import mcp_types
from toolplug.interaction import (
    Answer,
    CallScope,
    Handlers,
    LogMessage,
    Progress,
    Question,
    SamplingRequest,
    answer,
    current,
    notify,
    sample,
)

from toolplug_mcp.errors import TooManyRequests

T = TypeVar("T")

#: The model named in a sampling result whose handler answered with plain text.
UNKNOWN_MODEL = "unknown"


class ServerHandlers:
    """The host's handlers as one server's connection uses them (see the module)."""

    def __init__(
        self, server: str, handlers: Handlers | None, workspace: Path, *, limit: int = 20
    ) -> None:
        self.server = server
        self.handlers = handlers if handlers is not None else Handlers()
        self.workspace = workspace
        #: Sampling and elicitation requests allowed per call (see the module).
        self.limit = limit
        # The calls to this server now running: a key per call -> (its scope, its name).
        self._calls: dict[int, tuple[CallScope | None, str]] = {}
        self._keys = itertools.count()
        # Requests counted per running call; None: those sent outside any call.
        self._asks: dict[int | None, int] = {None: 0}

    # -- what the client session is given --------------------------------------------

    def session_kwargs(self) -> dict[str, Any]:
        """The SDK ``ClientSession`` arguments that declare and serve what the host gave.

        A handler that fails (or refuses past the limit) answers the server's request
        with an error carrying its message.
        """
        kwargs: dict[str, Any] = {"logging_callback": self._on_log}
        if self.handlers.on_sample is not None:
            kwargs["sampling_callback"] = _answering(self._on_sample)
            kwargs["sampling_capabilities"] = mcp_types.SamplingCapability()
        if self.handlers.on_elicit is not None:
            kwargs["elicitation_callback"] = _answering(self._on_elicit)
        if self.handlers != Handlers():
            roots = mcp_types.ListRootsResult(roots=self.roots())

            async def list_roots(context: Any) -> mcp_types.ListRootsResult:
                return roots

            kwargs["list_roots_callback"] = list_roots
        return kwargs

    def roots(self) -> list[Any]:
        """The roots offered: the workspace first, then each of ``Handlers.roots``."""
        added = [Path(root).expanduser().resolve() for root in self.handlers.roots]
        paths = [self.workspace, *added]
        names = ["workspace", *(path.name or str(path) for path in paths[1:])]
        return [
            mcp_types.Root.model_validate({"uri": path.as_uri(), "name": name})
            for path, name in zip(paths, names)
        ]

    # -- calls -------------------------------------------------------------------------

    @contextmanager
    def call(self, tool: str) -> Iterator[Callable[[float, float | None, str | None], Any]]:
        """Mark a call of toolplug tool ``tool`` as running; yields its progress handler.

        The call's scope (:data:`toolplug.interaction.current`: the toolset's handlers,
        the name the toolset knows the tool by, the provider's call id) is read here, on
        the call's own context; notifications arrive later on the connection's task.
        """
        scope = current.get()
        name = scope.tool if scope is not None and scope.tool else tool
        key = next(self._keys)
        self._calls[key] = (scope, name)
        self._asks[key] = 0
        self._asks[None] = 0

        async def progress(amount: float, total: float | None, message: str | None) -> None:
            call_id = scope.call_id if scope else None
            event = Progress(name, call_id, amount, total, message)
            handlers, loop = self._pick(scope)
            await notify(handlers, event, loop=loop)

        try:
            yield progress
        finally:
            del self._calls[key]
            del self._asks[key]

    def _count_request(self, what: str) -> None:
        """Count a sampling or elicitation request; raise :class:`TooManyRequests` past
        the limit (its message goes back to the server as the request's error)."""
        keys: list[int | None] = list(self._calls) or [None]
        for key in keys:
            self._asks[key] += 1
        if any(self._asks[key] > self.limit for key in keys):
            raise TooManyRequests(
                f"refused: MCP server '{self.server}' sent more than {self.limit} sampling "
                f"and elicitation requests during one call (this {what} request is not "
                "passed to the host); the limit is the client's maxServerRequests"
            )

    def _pick(self, scope: CallScope | None) -> tuple[Handlers, asyncio.AbstractEventLoop | None]:
        """The handlers that serve: the connection's with the call's on top (a host may
        give each toolset its own), so each handler is the call's when it has one; and
        the loop async handlers run on (the async caller's, if any)."""
        if scope is None:
            return self.handlers, None
        return self.handlers | scope.handlers, scope.loop

    def _only_call(self) -> tuple[CallScope | None, str | None]:
        """The running call's scope and name when exactly one call to the server runs."""
        if len(self._calls) == 1:
            return next(iter(self._calls.values()))
        return None, None

    def _asked(self) -> tuple[Handlers, asyncio.AbstractEventLoop | None, str | None]:
        """:meth:`_pick` for what the server sends outside a call's own progress: the
        call is the server's only running one, if any; its tool name comes too."""
        scope, name = self._only_call()
        handlers, loop = self._pick(scope)
        return handlers, loop, name

    # -- from the server ---------------------------------------------------------------

    async def _on_log(self, params: Any) -> None:
        scope, name = self._only_call()
        data = params.data
        event = LogMessage(
            tool=name or self.server,
            call_id=scope.call_id if scope else None,
            level=params.level,
            message=_log_text(data),
            data=None if isinstance(data, str) else data,
            logger=params.logger,
        )
        handlers, loop = self._pick(scope)
        await notify(handlers, event, loop=loop)

    async def _on_sample(self, context: Any, params: Any) -> Any:
        self._count_request("sampling")
        request = SamplingRequest(
            server=self.server,
            messages=[_wire(message) for message in params.messages],
            system_prompt=params.system_prompt,
            max_tokens=params.max_tokens,
            temperature=params.temperature,
            stop_sequences=params.stop_sequences,
            model_preferences=_wire(params.model_preferences),
        )
        handlers, loop, _ = self._asked()
        # A SamplingError (no handler, a failing one) goes back to the server as the
        # request's error, with its message.
        result = await _off_loop(handlers.on_sample, lambda: sample(handlers, request, loop=loop))
        return _sampling_result(result)

    async def _on_elicit(self, context: Any, params: Any) -> Any:
        self._count_request("elicitation")
        message = params.message
        schema = getattr(params, "requested_schema", None)
        if schema is None:  # URL mode: not offered to the host (form mode only)
            return mcp_types.ElicitResult(action="decline")
        handlers, loop, name = self._asked()
        question = Question(tool=name, message=message, schema=dict(schema))
        got: Answer = await _off_loop(
            handlers.on_elicit, lambda: answer(handlers, question, loop=loop)
        )
        content = got.content if got.action == "accept" else None
        return mcp_types.ElicitResult(action=got.action, content=content)


def _answering(
    handler: Callable[[Any, Any], Awaitable[Any]],
) -> Callable[[Any, Any], Awaitable[Any]]:
    """``handler`` as a session callback: a failure becomes the request's error."""

    async def callback(context: Any, params: Any) -> Any:
        try:
            return await handler(context, params)
        except Exception as exc:
            return mcp_types.ErrorData(code=mcp_types.INTERNAL_ERROR, message=str(exc))

    return callback


async def _off_loop(handler: Any, run: Callable[[], Awaitable[T]]) -> T:
    """Await ``run()``; in a worker thread (with a loop of its own) when ``handler`` is a
    plain function, which may block for as long as a person or a model takes."""
    if (
        handler is None
        or inspect.iscoroutinefunction(handler)
        or inspect.iscoroutinefunction(
            getattr(handler, "__call__", None)  # noqa: B004 - an object with async __call__
        )
    ):
        return await run()

    def in_thread() -> T:
        async def whole() -> T:
            return await run()

        return asyncio.run(whole())

    return await asyncio.to_thread(in_thread)


def _sampling_result(result: str | dict[str, Any]) -> Any:
    """The handler's answer as MCP's ``CreateMessageResult``.

    Text becomes the assistant's text; a dict is a ``CreateMessageResult`` (its ``role``
    defaults to ``assistant`` and its ``model`` to ``unknown``), or a bare content block.
    """
    if isinstance(result, str):
        content = mcp_types.TextContent(type="text", text=result)
        return mcp_types.CreateMessageResult(role="assistant", model=UNKNOWN_MODEL, content=content)
    fields: dict[str, Any] = dict(result) if "content" in result else {"content": result}
    fields.setdefault("role", "assistant")
    fields.setdefault("model", UNKNOWN_MODEL)
    try:
        return mcp_types.CreateMessageResult.model_validate(fields)
    except ValueError as exc:
        raise ValueError(
            "the host's sampling handler returned a dict that is not a CreateMessageResult "
            f"(role, content, model) or a content block: {exc}"
        ) from None


def _wire(value: Any) -> Any:
    """An SDK model in MCP's wire form (camelCase keys, no unset fields)."""
    if value is None:
        return None
    dump = getattr(value, "model_dump", None)
    return dump(by_alias=True, mode="json", exclude_none=True) if callable(dump) else value


def _log_text(data: Any) -> str:
    """A log notification's ``data`` as one line: the text, a dict's ``message``, or JSON."""
    if isinstance(data, str):
        return data
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return str(data["message"])
    try:
        return json.dumps(data, default=str)
    except (TypeError, ValueError):
        return repr(data)
