"""The tool itself: :class:`ToolExecutor` and :class:`ToolDefinition`."""

from __future__ import annotations

import copy
import inspect
import logging
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from toolplug import _engine
from toolplug.arguments import parse_arguments, validate_action
from toolplug.model import Action, Observation, ToolAnnotations
from toolplug.runner import Runner
from toolplug.schema import clean_schema, omit_null_defaults, with_security_risk

if TYPE_CHECKING:
    from pluggy import HookCaller

    from toolplug.budget import Spill
    from toolplug.context import ToolContext
    from toolplug.formats.forms import NativeForm


log = logging.getLogger("toolplug")

A = TypeVar("A", bound=Action)
O = TypeVar("O", bound=Observation)  # noqa: E741


class ToolExecutor(Generic[A, O]):
    """The logic of a tool: ``__call__(action) -> observation``.

    ``__call__`` may be a plain method or ``async def``; the safe entry points run
    either kind from sync and async hosts alike. Override :meth:`close` to release what
    the executor holds (a process, a connection); it is called once, when the host's
    toolset closes.

    A call's timeout is normally kept by the core, which stops waiting for the executor
    (its thread runs on). An executor that can keep time itself, and return control
    with a useful partial result, sets ``handles_timeout = True``: it is then called as
    ``executor(action, timeout=seconds)`` and must return within about that time.

    Any callable taking the action works as an executor too. An executor returns its
    tool's observation type, or a plain :meth:`Observation.error` on failure; a string,
    a content block or a list of them is made an observation. An exception it raises
    becomes an error observation with its message.
    """

    def __call__(self, action: A) -> O | Observation | Awaitable[O | Observation]:
        raise NotImplementedError

    #: True when ``__call__`` takes ``timeout=`` and keeps to it itself.
    handles_timeout: bool = False

    def close(self) -> None:
        """Release resources. The default does nothing."""


class ToolDefinition(Generic[A, O]):
    """A tool: its name, description, input and output types, hints and executor.

    Stateless tools are instances of this class. Stateful tools subclass it and
    implement :meth:`create`, which the registry calls with the host's context and the
    user's params to build fresh instances (each with its own executor) per session.

    Call a tool through :meth:`call` or :meth:`acall`: these never raise; bad arguments,
    failures and timeouts come back as error observations a model can act on.
    """

    #: Whether the tool keeps its own output within bounds (a streaming cap, pages):
    #: the toolset's output budget (:mod:`toolplug.budget`) then leaves its results
    #: alone, unless the host gives this tool a budget of its own by name.
    bounds_output: bool = False

    # Class-level defaults, for subclasses whose __init__ does not call this one.
    _hooks: HookCaller | None = None
    #: The output budget of the toolset the tool is in (set by :meth:`Toolset.add`).
    _spill: Spill | None = None
    _context: ToolContext | None = None
    _run_with: Runner | None = None
    #: The tool's native forms, by format name (see :mod:`toolplug.formats.forms`):
    #: the provider's own trained declaration, exported with ``Toolset.export(format,
    #: native=True)``. Empty for most tools.
    native_forms: Mapping[str, NativeForm] = MappingProxyType({})

    def __init__(
        self,
        *,
        name: str,
        description: str,
        action_type: type[A],
        observation_type: type[O] = Observation,  # type: ignore[assignment]
        executor: Callable[[A], O | Observation | Awaitable[O | Observation]] | None = None,
        annotations: ToolAnnotations | None = None,
        title: str | None = None,
        timeout: float | None = None,
        meta: dict[str, Any] | None = None,
        native_forms: Mapping[str, NativeForm] | None = None,
    ) -> None:
        if not name:
            raise ValueError("a tool needs a name")
        self.name = name
        self.description = description
        self.action_type = action_type
        self.observation_type = observation_type
        self.executor = executor
        self.annotations = annotations
        self.title = title or (annotations.title if annotations else None)
        #: Default per-call timeout in seconds (``None``: wait as long as it takes).
        self.timeout = timeout
        self.meta = dict(meta or {})
        #: Where the tool comes from, for people ("tool 'now' of MCP server 'time'").
        self.origin: str | None = None
        if native_forms:
            self.native_forms = _checked_forms(native_forms)
        self._hooks = None
        self._context = None
        self._run_with = None
        self._closed = False
        self._close_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"

    # -- stateful tools --------------------------------------------------------------

    @classmethod
    def from_function(
        cls,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        annotations: ToolAnnotations | None = None,
        title: str | None = None,
        timeout: float | None = None,
        meta: dict[str, Any] | None = None,
    ) -> ToolDefinition[Any, Any]:
        """A tool made from a typed function, sync or async: see `toolplug.functions`.

        The parameters become the action's fields, the docstring the description (and
        the fields' descriptions, from ``Args:`` or ``:param name:``); the function
        returns a string, an `Observation` or content blocks.
        """
        from toolplug.functions import read_function

        read = read_function(fn, name=name, description=description)
        return ToolDefinition(
            name=read.name,
            description=read.description,
            action_type=read.action_type,
            observation_type=read.observation_type,
            executor=read.executor,
            annotations=annotations,
            title=title,
            timeout=timeout,
            meta=meta,
        )

    @classmethod
    def create(cls, *args: Any, **params: Any) -> Sequence[ToolDefinition[Any, Any]]:
        """Build this tool's instances for one host session.

        Subclasses implement it as ``create(cls, context, *, param=default, ...)``: read
        what they need from ``context`` (the workspace, the environment, limits), accept
        the params they document as keyword arguments (the registry refuses others by
        this signature), and return the created definitions (usually one). The base
        signature takes anything, so that every such override type-checks.
        """
        raise NotImplementedError(f"{cls.__name__} does not implement create()")

    def bind_hooks(
        self, hooks: HookCaller | None, context: ToolContext | None = None
    ) -> ToolDefinition[A, O]:
        """A shallow copy whose calls go through the given ``tool_call`` hook, which is
        told ``context`` (the context the tool was created with) on every call."""
        bound = copy.copy(self)
        bound._hooks = hooks
        bound._context = context
        bound._close_lock = threading.Lock()
        return bound

    @property
    def is_async(self) -> bool:
        """Whether the executor is a coroutine function (or an object with one as ``__call__``)."""
        return self._runner().is_async

    def touches(self, action: A) -> frozenset[str] | None:
        """What a call with this action touches, for running calls side by side.

        Two calls may run concurrently when the sets they return do not intersect.
        ``None`` means "unknown": the call runs alone, in order. The default is an empty
        set (touches nothing) for read-only tools and ``None`` for the rest; tools that
        know better override it (a file editor returns the file's path, a shell its
        session).
        """
        return frozenset() if self.read_only else None

    # -- schemas ---------------------------------------------------------------------

    def input_schema(self, *, security_risk: bool = False) -> dict[str, Any]:
        """The JSON schema of the action, cleaned for export.

        The action's docstring is left out (it documents the Python class; the model
        reads the tool's description), and an optional field whose default is ``None``
        is its plain type, left out of ``required`` (see `toolplug.schema.omit_null_defaults`).
        """
        schema = clean_schema(self.action_type.model_json_schema())
        schema.pop("description", None)
        schema = omit_null_defaults(schema)
        if security_risk and not self.read_only:
            schema = with_security_risk(schema)
        return schema

    def output_schema(self) -> dict[str, Any] | None:
        """The JSON schema of the observation's typed fields, if it has any."""
        return self.observation_type.output_schema()

    @property
    def read_only(self) -> bool:
        """Whether the tool says it changes nothing."""
        return bool(self.annotations and self.annotations.readOnlyHint)

    # -- calling ---------------------------------------------------------------------

    def parse_action(self, arguments: Any) -> tuple[A, list[str]]:
        """Decode and validate arguments; raises :class:`ArgumentError` with a clear text."""
        data, notes = parse_arguments(arguments)
        action, more = validate_action(self.action_type, data)
        return action, (notes + more if notes else more)  # type: ignore[return-value]

    def call(self, arguments: Any = None, *, timeout: float | None = None) -> Observation:
        """Run the tool on JSON arguments (a dict or a string). Never raises.

        ``timeout`` (else the definition's own) limits the wait in seconds. The call
        goes through the ``tool_call`` hook of the plugins loaded with the registry
        that resolved this tool; see `toolplug.runner` for how it runs.
        """
        return self._runner().call(self, arguments, timeout)

    async def acall(self, arguments: Any = None, *, timeout: float | None = None) -> Observation:
        """Async :meth:`call`: sync executors run in a worker thread. Never raises."""
        return await self._runner().acall(self, arguments, timeout)

    def _runner(self) -> Runner:
        """The runner of the current executor (built again if the executor was replaced)."""
        runner = self._run_with
        if runner is None or runner.executor is not self.executor:
            runner = self._run_with = Runner(self.executor)
        return runner

    # -- closing ---------------------------------------------------------------------

    def _take_close(self) -> Callable[[], Any] | None:
        """The executor's ``close`` the first time it is asked for; ``None`` after that."""
        with self._close_lock:
            if self._closed:
                return None
            self._closed = True
        return getattr(self.executor, "close", None)

    def close(self) -> None:
        """Close the executor, once; later calls do nothing. Never raises."""
        close = self._take_close()
        if close is None:
            return
        try:
            result = close()
            if inspect.isawaitable(result):
                _engine.run(result, 30)
        except Exception:
            log.warning("closing tool %s failed", self.name, exc_info=True)

    async def aclose(self) -> None:
        """Async :meth:`close`."""
        close = self._take_close()
        if close is None:
            return
        try:
            if inspect.iscoroutinefunction(close):
                await close()
            else:
                result = await _engine.to_thread(close)
                if inspect.isawaitable(result):
                    await result
        except Exception:
            log.warning("closing tool %s failed", self.name, exc_info=True)


def _checked_forms(forms: Mapping[str, NativeForm]) -> Mapping[str, NativeForm]:
    """``forms`` as a read-only mapping, each keyed by its own format's name."""
    for format, form in forms.items():
        if getattr(form, "format", None) != format:
            raise ValueError(
                f"native_forms[{format!r}] is {form!r}, a form for another format; "
                "key each form by its format's name"
            )
    return MappingProxyType(dict(forms))


@overload
def tool(fn: Callable[..., Any], /) -> ToolDefinition[Any, Any]: ...


@overload
def tool(
    *,
    name: str | None = None,
    description: str | None = None,
    annotations: ToolAnnotations | None = None,
    title: str | None = None,
    timeout: float | None = None,
    meta: dict[str, Any] | None = None,
) -> Callable[[Callable[..., Any]], ToolDefinition[Any, Any]]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    **options: Any,
) -> ToolDefinition[Any, Any] | Callable[[Callable[..., Any]], ToolDefinition[Any, Any]]:
    """Make a function a tool: ``@tool`` or ``@tool(name=..., annotations=...)``.

    The decorated name is then the `ToolDefinition` (register it with
    ``register(word_count)``); the options are those of `ToolDefinition.from_function`,
    and `toolplug.functions` has the rules.
    """
    if fn is not None:
        return ToolDefinition.from_function(fn, **options)

    def decorate(function: Callable[..., Any]) -> ToolDefinition[Any, Any]:
        return ToolDefinition.from_function(function, **options)

    return decorate
