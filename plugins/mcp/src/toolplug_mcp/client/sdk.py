"""One connection to one MCP server, made with the official MCP SDK's ``ClientSession``.

The client used to be fastmcp's ``Client``; importing it cost about half again as much
as ``import mcp`` itself (its transports, OAuth, telemetry and settings all load with
it), for what is a thin layer here. :class:`SdkClient` does the part of it this
plugin used, straight on the SDK:

- the transport the configuration names, and only its code (:meth:`SdkClient.connect`):
  ``stdio_client`` for a command, ``streamable_http_client`` or ``sse_client`` for a
  URL, through the HTTP client factory given (the refusal watch of
  :mod:`~toolplug_mcp.client.unauthorized`) and the OAuth sign-in, if any;
- the protocol negotiation: ``server/discover`` at the newest revision when the server
  answers it in the shape that revision requires, else the ``initialize`` handshake,
  within the start timeout;
- the client's declarations (its name and version, the extensions given, sampling,
  elicitation and roots when the host serves them, every log level);
- requests waited for beside the connection's task (:meth:`SdkClient.monitored`): an
  HTTP error raised there ends the request instead of leaving it waiting;
- the SEP-2322 input-required rounds of a call, prompt or resource read, and the
  claimed results (a task) of a call, finished by the extension that claims them;
- every page of a listing.

Imports the MCP SDK: loaded only when a server is opened.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import mcp_types
from mcp import MCPError
from mcp.client._input_required import (
    DEFAULT_INPUT_REQUIRED_MAX_ROUNDS,
    run_input_required_driver,
)
from mcp.client._probe import negotiate_auto
from mcp.client.client import _fold_extensions
from mcp.client.extension import ClaimContext, ClientExtension
from mcp.client.session import ClientRequestContext, ClientSession

from toolplug_mcp.client.tracing import trace_meta

if TYPE_CHECKING:
    from toolplug_mcp.client.config import ServerSpec

if sys.version_info < (3, 11):  # pragma: no cover - the backport, as anyio uses it
    from exceptiongroup import BaseExceptionGroup

log = logging.getLogger("toolplug.mcp")
T = TypeVar("T")

#: The most pages of one listing read before the listing is given up on.
MAX_PAGES = 250
#: The connect timeout of a remote server's HTTP client (the SDK's own default).
HTTP_CONNECT_TIMEOUT = 30.0
_SESSION_HEADER = "mcp-session-id"


class SdkClient:
    """A connection to one server: entered (once) with :meth:`connect`, by one task.

    ``session_kwargs`` are the handlers given to the SDK's ``ClientSession``
    (``sampling_callback``, ``list_roots_callback``, ...: see
    :meth:`~toolplug_mcp.client.handlers.ServerHandlers.session_kwargs`).
    """

    def __init__(
        self,
        spec: ServerSpec,
        *,
        client_info: mcp_types.Implementation,
        timeout: float,
        init_timeout: float,
        extensions: Sequence[ClientExtension] = (),
        message_handler: Callable[[Any], Awaitable[None]] | None = None,
        stderr: TextIO | None = None,
        http_client: Callable[..., Any] | None = None,
        auth: Any = None,
        session_kwargs: dict[str, Any] | None = None,
    ) -> None:
        self.spec = spec
        self.timeout = timeout
        self.init_timeout = init_timeout
        self.stderr = stderr
        self.http_client = http_client
        self.auth = auth
        folded = _fold_extensions(list(extensions))
        #: The result model each claim parses, and the claim that finishes it.
        self.claim_by_model = dict(folded.by_model)
        self._session_kwargs: dict[str, Any] = {
            "read_timeout_seconds": timeout or None,
            "client_info": client_info,
            "message_handler": message_handler,
            # At 2026-07-28 a server sends log messages only to a request that asks
            # for them: every level is asked for, the server's own level filters.
            "log_level": "debug",
            "extensions": folded.ad,
            "result_claims": folded.claims,
            "notification_bindings": list(folded.bindings or ()),
            **(session_kwargs or {}),
        }
        #: The open session (``None`` before :meth:`connect` and after it ended).
        self.session: ClientSession | None = None
        #: The task the connection lives in (set by its holder): when it ends, so
        #: does every request waited for with :meth:`monitored`.
        self.session_task: asyncio.Task[Any] | None = None
        #: A streamable HTTP server's session id (for the client span).
        self.session_id: str | None = None

    # -- the connection --------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def connect(self) -> AsyncIterator[SdkClient]:
        """Open the transport and the session, negotiate, and hold them in the block."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await self._transport(stack)
                session = ClientSession(read, write, **self._session_kwargs)
                session = await stack.enter_async_context(session)
                self.session = session
                try:
                    await self._negotiate(session)
                    yield self
                finally:
                    self.session = None
        except BaseExceptionGroup as group:
            raise _first_error(group) from None

    async def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        """The read and write streams of the SDK transport of the server's kind (its
        module imported only now), entered on ``stack``."""
        spec = self.spec
        if spec.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(
                command=spec.command or "", args=list(spec.args), env=dict(spec.env), cwd=spec.cwd
            )
            return await stack.enter_async_context(
                stdio_client(params, errlog=self.stderr or sys.stderr)
            )
        if spec.transport == "sse":
            from mcp.client.sse import sse_client

            options: dict[str, Any] = {"headers": dict(spec.headers), "auth": self._bound_auth()}
            if self.timeout:
                options["timeout"] = self.timeout
            if self.http_client is not None:
                options["httpx_client_factory"] = self.http_client
            return await stack.enter_async_context(sse_client(spec.url or "", **options))
        from mcp.client.streamable_http import streamable_http_client

        http = await stack.enter_async_context(self._http_client())
        return await stack.enter_async_context(
            streamable_http_client(spec.url or "", http_client=http)
        )

    def _http_client(self) -> Any:
        """The HTTP client of a streamable HTTP connection: the server's headers and
        auth, the read timeout of its requests, and its session id noted."""
        import httpx2

        timeout = httpx2.Timeout(HTTP_CONNECT_TIMEOUT, read=self.timeout) if self.timeout else None
        options: dict[str, Any] = {"headers": dict(self.spec.headers), "auth": self._bound_auth()}
        if self.http_client is not None:
            client = self.http_client(follow_redirects=True, timeout=timeout, **options)
        else:
            from mcp.shared._httpx_utils import create_mcp_http_client

            client = create_mcp_http_client(timeout=timeout, **options)
        client.event_hooks.setdefault("response", []).append(self._note_session)
        return client

    async def _note_session(self, response: Any) -> None:
        session_id = response.headers.get(_SESSION_HEADER)
        if session_id:
            self.session_id = session_id

    def _bound_auth(self) -> Any:
        """The OAuth sign-in (if any) told the server's URL and given the HTTP clients
        of the watch, as its token requests are watched too."""
        auth = self.auth
        bind = getattr(auth, "_bind", None)
        if callable(bind):
            bind(self.spec.url or "")
            if self.http_client is not None and _default_factory(auth):
                auth.httpx_client_factory = self.http_client
        return auth

    async def _negotiate(self, session: ClientSession) -> None:
        """Agree on the protocol revision within :attr:`init_timeout` seconds."""
        import anyio

        try:
            with anyio.fail_after(self.init_timeout or None):
                async with _discover_held_to_its_revision(session):
                    await negotiate_auto(session)
        except TimeoutError as exc:
            raise RuntimeError("Failed to initialize server session") from exc

    def is_connected(self) -> bool:
        """Whether the session is open."""
        return self.session is not None

    def ended(self) -> bool:
        """Whether a stdio server's output has closed under the open session (the
        session's dispatcher, read with care: a private part of the SDK)."""
        if self.session is None or self.spec.transport != "stdio":
            return False
        dispatcher = getattr(self.session, "_dispatcher", None)
        return bool(getattr(dispatcher, "_closed", False))

    def _open(self) -> ClientSession:
        if self.session is None:
            raise RuntimeError("the connection to the MCP server is not open")
        return self.session

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol revision."""
        return self.session.protocol_version if self.session is not None else None

    @property
    def server_capabilities(self) -> mcp_types.ServerCapabilities | None:
        """What the server said it can do."""
        return self.session.server_capabilities if self.session is not None else None

    # -- requests ----------------------------------------------------------------------

    async def monitored(self, work: Coroutine[Any, Any, T]) -> T:
        """Await ``work`` in a task of its own beside the connection's task; if that
        ends first, ``work`` is cancelled and what ended the connection is raised."""
        held = self.session_task
        if held is None:
            return await work
        if held.done():
            work.close()
            raise _what_ended(held)
        running = asyncio.ensure_future(work)
        try:
            done, _ = await asyncio.wait({running, held}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            running.cancel()
            await asyncio.wait({running})
            raise
        if running in done:
            return running.result()
        running.cancel()
        await asyncio.wait({running})
        raise _what_ended(held)

    async def list_tools(self) -> list[mcp_types.Tool]:
        """Every page of the server's tools."""
        session = self._open()
        return await self._all_pages(session.list_tools, "tools")

    async def list_resources(self) -> list[mcp_types.Resource]:
        """Every page of the server's resources."""
        session = self._open()
        return await self._all_pages(session.list_resources, "resources")

    async def list_resource_templates(self) -> list[mcp_types.ResourceTemplate]:
        """Every page of the server's resource templates."""
        session = self._open()
        return await self._all_pages(session.list_resource_templates, "resource_templates")

    async def list_prompts(self) -> list[mcp_types.Prompt]:
        """Every page of the server's prompts."""
        session = self._open()
        return await self._all_pages(session.list_prompts, "prompts")

    async def _all_pages(
        self, fetch: Callable[..., Coroutine[Any, Any, Any]], field: str
    ) -> list[Any]:
        found: list[Any] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            params = mcp_types.PaginatedRequestParams(cursor=cursor) if cursor else None
            page: Any = await self.monitored(fetch(params=params))
            found.extend(getattr(page, field))
            cursor = page.next_cursor
            if cursor is None:
                return found
            if cursor in seen:
                log.warning("an MCP server sent the same page cursor twice; listing stopped")
                return found
            seen.add(cursor)
        raise RuntimeError(f"the server's {field} take more than {MAX_PAGES} pages")

    async def read_resource(self, uri: str) -> mcp_types.ReadResourceResult:
        """One resource's ``ReadResourceResult`` (input-required rounds driven)."""
        session = self._open()
        meta = trace_meta()

        async def send(responses: Any, state: str | None) -> Any:
            return await session.read_resource(
                uri,
                meta=meta,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
            )

        result: mcp_types.ReadResourceResult = await self.request_with_rounds(send)
        return result

    async def get_prompt(self, name: str, arguments: dict[str, Any]) -> mcp_types.GetPromptResult:
        """One prompt's ``GetPromptResult`` (arguments sent as text, as the spec has
        them: a value that is not a string is sent as its JSON)."""
        import pydantic_core

        session = self._open()
        texts = {
            key: value if isinstance(value, str) else pydantic_core.to_json(value).decode()
            for key, value in arguments.items()
        }
        meta = trace_meta()

        async def send(responses: Any, state: str | None) -> Any:
            return await session.get_prompt(
                name=name,
                arguments=texts or None,
                meta=meta,
                input_responses=responses,
                request_state=state,
                allow_input_required=True,
            )

        result: mcp_types.GetPromptResult = await self.request_with_rounds(send)
        return result

    async def request_with_rounds(
        self, send: Callable[[Any, str | None], Coroutine[Any, Any, Any]]
    ) -> Any:
        """Send a request (``send(None, None)``) and drive its input-required rounds."""
        first = await self.monitored(send(None, None))
        return await self.monitored(self.drive_input_required(first, send))

    async def drive_input_required(
        self, first: Any, retry: Callable[[Any, str | None], Coroutine[Any, Any, Any]]
    ) -> Any:
        """The final result of a request the server answered with an
        ``InputRequiredResult``: its embedded requests are served by the session's
        handlers and the request sent again, round after round (any other answer
        is returned as it is)."""
        if not isinstance(first, mcp_types.InputRequiredResult):
            return first
        session = self._open()

        async def dispatch(key: str, request: Any) -> Any:
            meta = request.params.meta if request.params else None
            context = ClientRequestContext(session=session, request_id=key, meta=meta)
            return await session.dispatch_input_request(context, request)

        return await run_input_required_driver(
            first, dispatch=dispatch, retry=retry, max_rounds=DEFAULT_INPUT_REQUIRED_MAX_ROUNDS
        )

    async def resolve_claimed(
        self, name: str, result: mcp_types.Result, timeout: float | None
    ) -> mcp_types.CallToolResult:
        """Finish a call the server answered with a claimed shape (a task) through
        the extension that claims it; the outcome is checked as a direct answer is."""
        session = self._open()
        claim = self.claim_by_model[type(result)]
        context = ClaimContext(
            session=session, tool_name=name, read_timeout_seconds=timeout or self.timeout or None
        )
        final: mcp_types.CallToolResult = await claim.resolve(result, context)
        if not final.is_error:
            await session.validate_tool_result(name, final)
        return final


def _default_factory(auth: Any) -> bool:
    """Whether an OAuth sign-in still makes its HTTP clients the library's default way."""
    import httpx2

    return getattr(auth, "httpx_client_factory", None) is httpx2.AsyncClient


@contextlib.asynccontextmanager
async def _discover_held_to_its_revision(session: ClientSession) -> AsyncIterator[None]:
    """While negotiating, a ``server/discover`` answer counts only if it has every field
    the revision it names requires of later answers.

    The SDK's probe accepts an answer missing fields it has defaults for; every later
    answer is then checked strictly, and each would fail. Such a server is treated as
    one without ``server/discover``: the ``initialize`` handshake follows.
    """
    from mcp_types.methods import validate_server_result
    from pydantic import ValidationError

    probe = session.send_discover

    async def strict(version: str) -> dict[str, Any]:
        answer = await probe(version)
        try:
            validate_server_result("server/discover", version, answer)
        except ValidationError as exc:
            raise MCPError(
                code=mcp_types.INVALID_PARAMS,
                message=f"the server/discover answer does not conform to {version}",
            ) from exc
        except (KeyError, ValueError):
            pass  # no schema for this revision: the probe's own reading decides
        return answer

    own = "send_discover" in vars(session)
    session.send_discover = strict  # type: ignore[method-assign]
    try:
        yield
    finally:
        if own:
            session.send_discover = probe  # type: ignore[method-assign]
        else:
            del session.send_discover


def _first_error(group: BaseExceptionGroup[Any]) -> BaseException:
    """The first failure in a task group's exceptions (a connect timeout as the SDK's
    request timeout error)."""
    import httpx2

    for leaf in _leaves(group):
        if isinstance(leaf, httpx2.ConnectTimeout):
            return MCPError(code=408, message="Timed out while waiting for response.")
        if isinstance(leaf, Exception):
            return leaf
    return group


def _leaves(group: BaseExceptionGroup[Any]) -> list[BaseException]:
    found: list[BaseException] = []
    for exc in group.exceptions:
        found += _leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc]
    return found


def _what_ended(held: asyncio.Task[Any]) -> BaseException:
    """What ended the connection's task."""
    if held.cancelled():
        return RuntimeError("Session task completed unexpectedly")
    return held.exception() or RuntimeError("Session task completed unexpectedly")
