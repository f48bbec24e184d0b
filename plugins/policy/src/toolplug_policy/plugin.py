"""The hook implementations of one loaded policy: decide, ask, refuse, and log.

toolplug registers a :class:`PolicyPlugin` in the plugin manager of the registry that
loaded the policy, so it sees the calls of that registry's tools only. Its plain
``tool_call`` (``tryfirst``) decides each call and returns the refusal, so a refused
tool never runs. With an audit log, a ``tool_call`` wrapper around everything times the
call and logs it: the plain implementation writes the ``start`` line as it lets a call
go on (before the tool runs), and the wrapper queues the ``end`` line after it, or the
one ``refused`` line. The plain implementation hands the wrapper its verdict through a
context variable, since both run in the one hook call.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from toolplug import Observation, hookimpl

from toolplug_policy.approval import Answer, Approver, ask
from toolplug_policy.audit import AuditLog, audit_log, call_id
from toolplug_policy.directories import hide_refused_files
from toolplug_policy.messages import describe_call, refusal
from toolplug_policy.policy import Policy, Verdict
from toolplug_policy.rules import tool_names


@dataclass
class _Record:
    """What the plain implementation tells the audit wrapper about one call."""

    owner: PolicyPlugin
    #: When the call came (a Unix time), and the clock from the go-ahead.
    when: float = field(default_factory=time.time)
    started: float = field(default_factory=time.perf_counter)
    verdict: Verdict | None = None
    answer: Answer | None = None
    #: The id of its ``start`` line, once written.
    call: str | None = None


_record: contextvars.ContextVar[_Record | None] = contextvars.ContextVar(
    "toolplug_policy_record", default=None
)


class PolicyPlugin:
    """Applies one :class:`Policy` to every call; ``approver`` answers its ``ask`` rules.

    Build it with :func:`plugin_for` (which adds the audit wrapper when the policy has
    a log).
    """

    def __init__(self, policy: Policy, approver: Approver | None = None) -> None:
        self.policy = policy
        self.approver = approver

    @hookimpl(tryfirst=True)
    def tool_call(self, tool: Any, action: Any, context: Any) -> Observation | None:
        """Let the call go on (``None``), or refuse it with an error observation."""
        workspace = getattr(context, "workspace", None)
        names = tool_names(tool)
        verdict = self.policy.decide(names, action, workspace)
        answer = None
        if verdict.decision == "ask":
            what = describe_call(tool.name, action)
            answer = ask(self.approver, tool, action, verdict.rule, what)
        going_on = verdict.decision == "allow" or (answer is not None and answer.approved)
        record = _record.get()
        if record is not None and record.owner is self:
            record.verdict, record.answer = verdict, answer
            if going_on:
                self._starting(tool, action, record)
            record.started = time.perf_counter()
        if going_on:
            hide_refused_files(self.policy, names, action, workspace, verdict.decision)
            return None
        return Observation.error(
            refusal(tool.name, action, verdict, self.policy, workspace, answer, names)
        )

    def _starting(self, tool: Any, action: Any, record: _Record) -> None:
        """A call is about to run (with an audit log, its ``start`` line is written)."""


class AuditedPolicyPlugin(PolicyPlugin):
    """A :class:`PolicyPlugin` that also appends every call to the policy's audit log."""

    def __init__(self, policy: Policy, approver: Approver | None, log: AuditLog) -> None:
        super().__init__(policy, approver)
        self.log = log

    @hookimpl(specname="tool_call", wrapper=True)
    def audit_call(self, tool: Any, action: Any) -> Generator[None, Any, Any]:
        """Time the call (from the policy's go-ahead) and log its end, or its refusal."""
        record = _Record(self)
        token = _record.set(record)
        try:
            observation = yield
        except BaseException:
            self._finished(tool, action, record, is_error=True)
            raise
        finally:
            _record.reset(token)
        self._finished(tool, action, record, is_error=bool(getattr(observation, "is_error", True)))
        return observation

    def _starting(self, tool: Any, action: Any, record: _Record) -> None:
        """Write the ``start`` line before the call runs: it outlives a host the call kills."""
        verdict, answer = record.verdict, record.answer
        assert verdict is not None
        record.call = call_id()
        try:
            self.log.write_now(
                time=record.when,
                phase="start",
                call=record.call,
                tool=tool.name,
                arguments=action,
                decision=verdict.decision,
                rule=[rule.number for rule in verdict.rules],
                approved=answer.approved if answer else None,
                approved_by=answer.by if answer else None,
            )
        except Exception as exc:  # a log that cannot be written never stops a call
            self.log.warn(exc)

    def _finished(self, tool: Any, action: Any, record: _Record, *, is_error: bool) -> None:
        duration = time.perf_counter() - record.started
        if record.call is not None:
            self.log.write(
                time=time.time(),
                phase="end",
                call=record.call,
                tool=tool.name,
                duration=duration,
                is_error=is_error,
            )
            return
        verdict, answer = record.verdict, record.answer
        self.log.write(
            time=record.when,
            phase="refused",
            call=call_id(),
            tool=tool.name,
            arguments=action,
            decision=verdict.decision if verdict else "unknown",
            rule=[rule.number for rule in verdict.rules] if verdict else [],
            duration=duration,
            is_error=is_error,
            approved=answer.approved if answer else None,
            approved_by=answer.by if answer else None,
        )


def plugin_for(policy: Policy, approver: Approver | None = None) -> PolicyPlugin:
    """The plugin object that applies ``policy``: audited when it names a log."""
    if policy.audit_log is None:
        return PolicyPlugin(policy, approver)
    return AuditedPolicyPlugin(policy, approver, audit_log(policy.audit_log))
