"""The page's views: status (with the doctor's checks), pairing, the audit log and the
permission matrix. Each gathers plain values for its template; the templates escape every
value (`server.py` renders them with autoescaping on).

Views only read, except the two pairing actions (POST): close the open window, revoke a
paired secret. Neither can open a window or show a code: pairing still starts only in an
admin's config flow in Home Assistant, and its code never leaves HA and the app (D63).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
import math
from typing import Any
from urllib.parse import urlencode

from botpsy_agent.audit import AuditFilter, AuditReader, parse_when
from botpsy_agent.home import Entity, Home
from botpsy_agent.link import (
    MAX_PAIRED_SECRETS,
    MAX_SESSIONS_PER_WINDOW,
    SUPERVISOR_LABEL,
    IntegrationChannel,
)
from botpsy_agent.policy import (
    Explained,
    Policy,
    Principal,
    explain_control,
    explain_read,
    home_people,
)
from botpsy_agent.web.sources import PageSources

AUDIT_PAGE_SIZE = 50
MATRIX_PAGE_SIZE = 40
DECISIONS = ("allow", "deny", "confirm", "none")
OUTCOMES = ("executed", "planned", "handed_off", "refused", "pending_confirmation", "failed")
HA_ITSELF = "homeassistant"
"""The MQTT name of Home Assistant's own principal: voice satellites and automations."""


def page_number(text: str | None) -> int:
    try:
        return max(0, int(text or 0))
    except ValueError:
        return 0


# --- status -------------------------------------------------------------------------------


def status_view(sources: PageSources) -> dict[str, Any]:
    stats = dict(sources.stats())
    verdict = sources.health()
    state = stats.get("model_state") or "none"
    if state == "warming_up" and stats.get("warming_up_percent") is not None:
        state = f"building its prompt prefix: {stats['warming_up_percent']} %"
        if stats.get("warming_up_eta_s") is not None:
            state += f", about {stats['warming_up_eta_s']} s left"
    elif state == "downloading":
        state = f"downloading {stats.get('download_percent', '?')} %"
        if stats.get("download_eta_s") is not None:
            state += f", about {stats['download_eta_s']} s left"
    latency = stats.get("last_latency_ms")
    return {
        "healthy": verdict.healthy,
        "health_reason": verdict.reason,
        "problems": list(stats.get("problems") or []),
        "model": sources.model() or "none loaded",
        "model_state": state,
        "engine": stats.get("model_engine") or "-",
        "queue": stats.get("queue_length", 0),
        "busy": bool(stats.get("busy")),
        "per_minute": stats.get("requests_per_minute", 0),
        "latency": "-" if latency is None else f"{latency} ms",
        "answered": stats.get("answered", 0),
        "refused": stats.get("refused_at_door", 0),
        "doctor": sources.doctor is not None,
    }


async def doctor_view(sources: PageSources) -> dict[str, Any]:
    if sources.doctor is None:
        return {"available": False, "checks": [], "failed": 0}
    checks = await sources.doctor()
    rows = [{"name": c.name, "ok": c.ok, "detail": c.detail, "fix": c.fix} for c in checks]
    return {"available": True, "checks": rows, "failed": sum(1 for c in checks if not c.ok)}


# --- pairing ------------------------------------------------------------------------------


def pairing_view(sources: PageSources) -> dict[str, Any]:
    channel = sources.channel()
    if channel is None:
        return {"available": False}
    pairing = channel.pairing
    open_now = pairing.is_open
    left = None
    if open_now and pairing.closes_at is not None:
        left = max(0, math.ceil(pairing.closes_at - pairing.clock()))
    secrets = []
    for entry in pairing.store.listing():
        label = entry["label"]
        secrets.append(
            {
                "id": entry["id"],
                "label": label or "unlabelled",
                "supervisor": label == SUPERVISOR_LABEL,
            }
        )
    return {
        "available": True,
        "by_code": channel.pairing_by_code,
        "open": open_now,
        "seconds_left": left,
        "sessions": pairing.sessions_started,
        "max_sessions": MAX_SESSIONS_PER_WINDOW,
        "secrets": secrets,
        "max_secrets": MAX_PAIRED_SECRETS,
    }


def close_window(channel: IntegrationChannel) -> str:
    if not channel.pairing.is_open:
        return "No pairing window was open."
    channel.pairing.close("closed by an admin on the app's page")
    channel.publish_pairing_state()
    return "The pairing window is closed."


def revoke(channel: IntegrationChannel, secret_id: str) -> str:
    """Revoke a paired secret by its fingerprint; the Supervisor's is not revoked here (the
    app offers it again at every start: remove the integration in HA instead)."""
    entries = {e["id"]: e["label"] for e in channel.pairing.store.listing()}
    if secret_id not in entries:
        return "No paired secret has that id."
    if entries[secret_id] == SUPERVISOR_LABEL:
        return "The Supervisor's secret is Home Assistant's own link; it is not revoked here."
    label = channel.pairing.store.revoke(secret_id)
    channel.publish_pairing_state()
    return f"Revoked the secret {secret_id} ({label})."


# --- the audit log --------------------------------------------------------------------------


@dataclass(frozen=True)
class AuditQuery:
    user: str = ""
    entity: str = ""
    decision: str = ""
    outcome: str = ""
    since: str = ""
    until: str = ""
    page: int = 0

    @classmethod
    def of(cls, query: Mapping[str, str]) -> AuditQuery:
        def field(name: str, allowed: Sequence[str] | None = None) -> str:
            value = query.get(name, "").strip()[:200]
            return value if allowed is None or value in allowed else ""

        return cls(
            user=field("user"),
            entity=field("entity"),
            decision=field("decision", DECISIONS),
            outcome=field("outcome", OUTCOMES),
            since=field("since"),
            until=field("until"),
            page=page_number(query.get("page")),
        )

    def link(self, page: int) -> str:
        values = {k: v for k, v in self.__dict__.items() if k != "page" and v}
        return "?" + urlencode({**values, "page": page})


async def audit_view(sources: PageSources, query: AuditQuery) -> dict[str, Any]:
    names = principal_names(sources)
    view: dict[str, Any] = {
        "query": query,
        "principals": sorted(names.items(), key=lambda item: item[1].lower()),
        "decisions": DECISIONS,
        "outcomes": OUTCOMES,
        "error": None,
        "records": [],
        "total": 0,
        "pages": 1,
    }
    try:
        where = AuditFilter(
            principal=query.user or None,
            entity=query.entity or None,
            decision=query.decision or None,
            outcome=query.outcome or None,
            since=parse_when(query.since) if query.since else None,
            until=parse_when(query.until) if query.until else None,
        )
    except ValueError as err:
        view["error"] = str(err)
        return view
    reader = AuditReader(sources.audit_file)
    total, newest = await asyncio.to_thread(_newest_page, reader, where, query.page)
    view["total"] = total
    view["pages"] = max(1, math.ceil(total / AUDIT_PAGE_SIZE))
    view["records"] = [_audit_row(record, names) for record in newest]
    view["previous"] = query.link(query.page - 1) if query.page > 0 else None
    view["next"] = query.link(query.page + 1) if query.page + 1 < view["pages"] else None
    view["skipped"] = reader.skipped
    return view


def _newest_page(
    reader: AuditReader, where: AuditFilter, page: int
) -> tuple[int, list[dict[str, Any]]]:
    """How many records match, and page `page` of them newest first: one pass over the
    log, keeping no more than the pages up to this one."""
    kept: deque[dict[str, Any]] = deque(maxlen=(page + 1) * AUDIT_PAGE_SIZE)
    total = 0
    for record in reader.records(where):
        kept.append(record)
        total += 1
    shown = list(kept)[: max(0, len(kept) - page * AUDIT_PAGE_SIZE)]
    return total, shown[::-1]


def _audit_row(record: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    principal = str(record.get("principal") or "")
    base, _, area = principal.partition("@")  # HA itself, placed in a satellite's area
    who = names.get(base, base or "-") + (f" in {area}" if area else "")
    claimed = record.get("claimed_user_id")
    if claimed:
        who += f" (claimed {names.get(f'user:{claimed}', claimed)})"
    kind = str(record.get("kind") or "?")
    what, decision, outcome = "", "", ""
    if kind == "action":
        entities = ", ".join(str(e) for e in record.get("entity_ids") or []) or "-"
        what = f"{record.get('tool')} {entities}"
        decision = str(record.get("decision") or "")
        if record.get("rule"):
            decision += f" ({record['rule']})"
        outcome = str(record.get("outcome") or "")
        if record.get("error"):
            outcome += f": {record['error']}"
    elif kind == "request":
        what = f"on {record.get('topic')}" + (f": {record['text']}" if "text" in record else "")
    elif kind == "response":
        what = f"{record.get('status')} via {record.get('path')}, {record.get('total_ms')} ms"
        outcome = str(record.get("error") or "")
    elif kind == "refused":
        what = f"on {record.get('topic')}: {record.get('message')}"
        outcome = str(record.get("code") or "")
    return {
        "time": str(record.get("time") or "")[:23].replace("T", " "),
        "kind": kind,
        "id": str(record.get("id") or "-"),
        "who": who,
        "what": what,
        "decision": decision,
        "outcome": outcome,
        "security": bool(record.get("security")),
    }


# --- the permission matrix --------------------------------------------------------------------


def principal_names(sources: PageSources) -> dict[str, str]:
    """Principal key -> how people call it: HA users by name, HA itself, MQTT names."""
    names = {
        f"user:{u.user_id}": u.name
        for u in sources.users()
        if u.is_active and not u.system_generated
    }
    policy = sources.policy()
    for name in policy.mqtt:
        names[f"mqtt:{name}"] = (
            "Voice satellites and automations" if name == HA_ITSELF else f"MQTT client {name}"
        )
    names["anonymous:anonymous"] = "Anonymous MQTT requests"
    return names


def matrix_principals(sources: PageSources, policy: Policy) -> list[tuple[Principal, str]]:
    people = [(p, p.name) for p in home_people(sources.users())]
    named = []
    if HA_ITSELF in policy.mqtt:
        placed = any(rule.own_area for rule in policy.mqtt[HA_ITSELF].rules)
        title = "Voice satellites in that room" if placed else "Voice satellites and automations"
        named.append((Principal.mqtt(HA_ITSELF), title))
    named += [(Principal.mqtt(n), f"MQTT {n}") for n in sorted(policy.mqtt) if n != HA_ITSELF]
    if policy.anonymous.rules:
        named.append((Principal.anonymous(), "Anonymous MQTT"))
    return people + named


@dataclass(frozen=True)
class MatrixQuery:
    area: str = ""
    domain: str = ""
    text: str = ""
    page: int = 0

    @classmethod
    def of(cls, query: Mapping[str, str]) -> MatrixQuery:
        return cls(
            area=query.get("area", "").strip()[:100],
            domain=query.get("domain", "").strip()[:50],
            text=query.get("q", "").strip()[:100],
            page=page_number(query.get("page")),
        )

    def link(self, page: int) -> str:
        values = {"area": self.area, "domain": self.domain, "q": self.text}
        return "?" + urlencode({**{k: v for k, v in values.items() if v}, "page": page})


def matrix_view(sources: PageSources, query: MatrixQuery) -> dict[str, Any]:
    policy, home, now = sources.policy(), sources.home(), sources.now()
    principals = matrix_principals(sources, policy)
    entities = [e for e in _sorted_entities(home) if _matches(e, query, home)]
    pages = max(1, math.ceil(len(entities) / MATRIX_PAGE_SIZE))
    page = min(query.page, pages - 1)
    shown = entities[page * MATRIX_PAGE_SIZE : (page + 1) * MATRIX_PAGE_SIZE]
    rows = []
    for entity in shown:
        area = home.areas.get(entity.area_id or "")
        cells = []
        for listed, _ in principals:
            # Home Assistant itself as a satellite in the entity's own room (its `own_area`
            # rules depend on where the request comes from).
            principal = (
                replace(listed, area_id=entity.area_id) if listed.id == HA_ITSELF else listed
            )
            cells.append(
                {
                    "read": _cell(explain_read(policy, principal, entity, now)),
                    "control": _cell(explain_control(policy, principal, entity, now)),
                }
            )
        rows.append(
            {
                "entity_id": entity.entity_id,
                "name": entity.name,
                "area": area.name if area is not None else "",
                "exposed": entity.exposed,
                "cells": cells,
            }
        )
    return {
        "query": query,
        "principals": [
            {"name": name, "key": p.key, "group": p.group or p.kind.value} for p, name in principals
        ],
        "rows": rows,
        "total": len(entities),
        "page": page,
        "pages": pages,
        "previous": query.link(page - 1) if page > 0 else None,
        "next": query.link(page + 1) if page + 1 < pages else None,
        "areas": sorted(((a.area_id, a.name) for a in home.areas.values()), key=lambda a: a[1]),
        "domains": sorted({e.domain for e in home.entities.values()}),
        "now": now.strftime("%Y-%m-%d %H:%M"),
        "confirm": sorted(c.value for c in policy.confirm),
    }


def _sorted_entities(home: Home) -> list[Entity]:
    def key(entity: Entity) -> tuple[str, str]:
        area = home.areas.get(entity.area_id or "")
        return (area.name.lower() if area else "~", entity.entity_id)

    return sorted(home.entities.values(), key=key)


def _matches(entity: Entity, query: MatrixQuery, home: Home) -> bool:
    if query.area and entity.area_id != query.area:
        return False
    if query.domain and entity.domain != query.domain:
        return False
    text = query.text.lower()
    return not text or text in entity.entity_id.lower() or text in entity.name.lower()


def _cell(explained: Explained) -> dict[str, str]:
    marks = {"allow": "✓", "confirm": "?", "deny": "✗", "n/a": "-"}
    return {
        "verdict": explained.verdict.value.replace("/", ""),
        "mark": marks[explained.verdict.value],
        "rule": explained.rule or "",
        "reason": explained.reason,
    }
