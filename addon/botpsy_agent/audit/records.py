"""What goes into an audit record, and what never does.

Kinds (field `kind`):

* `request` — a request admitted to the agent (`retry`: answered from its first outcome);
* `action` — one tool call: `decision` (allow / deny / confirm / none), the `rule` that
  decided, the `outcome` (executed, planned, refused, pending_confirmation, failed), the
  entities and the error code;
* `response` — the answer: status, path, error code, total time;
* `refused` — a request answered at the door; `security: true` for the codes that may mean
  someone posing as another or flooding (`contract.SECURITY_CODES`).

Never: secrets, signatures, tokens, HA's results (states, events, items), error messages from
HA. Texts people wrote (the request, the spoken answer, message bodies, event titles, to-do
items: every free-text tool argument) only when the `audit_message_bodies` option is on;
otherwise a free-text argument is replaced by its length, e.g. `"<42 chars>"`.
"""

from __future__ import annotations

from typing import Any

from botpsy_agent.agent.protocol import ActionReport, AgentRequest, AgentResponse
from botpsy_agent.audit.door import Refusal
from tool_schemas.redact import redact

MAX_MESSAGE_CHARS = 200


def request_record(
    request: AgentRequest, topic: str, *, retry: bool, bodies: bool
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "kind": "request",
        "id": request.id,
        "principal": request.principal.key,
        "topic": topic,
        "language": request.language,
        "conversation_id": request.conversation_id,
        "dry_run": request.dry_run,
        "retry": retry,
    }
    if bodies:
        record["text"] = request.text
    return record


def answer_records(
    request: AgentRequest, response: AgentResponse, *, bodies: bool
) -> list[dict[str, Any]]:
    """One `action` record per tool call, then the `response` record."""
    records = [action_record(request, action, bodies=bodies) for action in response.actions]
    record: dict[str, Any] = {
        "kind": "response",
        "id": request.id,
        "principal": request.principal.key,
        "status": response.status.value,
        "path": response.path.value,
        "error": None if response.error is None else response.error.code,
        "total_ms": round(response.timings.total_ms, 1),
    }
    if bodies:
        record["speech"] = response.speech
    records.append(record)
    return records


def action_record(request: AgentRequest, action: ActionReport, *, bodies: bool) -> dict[str, Any]:
    return {
        "kind": "action",
        "id": request.id,
        "principal": request.principal.key,
        "tool": action.tool,
        "arguments": dict(action.arguments) if bodies else redact(action.tool, action.arguments),
        "entity_ids": list(action.entity_ids),
        "decision": action.decision,
        "rule": action.rule,
        "outcome": action.outcome.value,
        "error": None if action.error is None else action.error.code,
        "dry_run": request.dry_run,
    }


def refusal_record(refusal: Refusal) -> dict[str, Any]:
    return {
        "kind": "refused",
        "id": refusal.request_id,
        "principal": refusal.principal,
        "claimed_user_id": refusal.claimed_user_id,
        "topic": refusal.topic,
        "code": refusal.code,
        "message": refusal.message[:MAX_MESSAGE_CHARS],
        "security": refusal.security,
    }
