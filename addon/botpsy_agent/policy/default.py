"""The policy written on first start, from HA's users, when no policy file exists yet.

Admins: full control, everything confirmed that the default confirmation classes name.
Other users: what is exposed to Assist (the upper bound the policy enforces anyway).
MQTT clients: nothing until named in the file. Nobody skips confirmations.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import yaml

from botpsy_agent.policy.schema import DEFAULT_CONFIRM


@dataclass(frozen=True)
class DefaultPolicyUser:
    id: str
    name: str
    is_admin: bool


HEADER = """\
# BotPsy permissions. Written on first start from Home Assistant's users; edit freely.
# The app reloads this file when it changes; an invalid edit is refused and the previous
# rules stay in force (the app log says what is wrong, with the line).
# Rules: allow / deny / confirm: [read, control]  or  limit: {temperature: {min: 18, max: 24}}
# Selectors (all must match): entities (globs), areas, floors, domains, devices, labels,
# device_classes, tools; optional `when: {after: "21:00", before: "07:00"}`. Deny beats allow.
"""


def default_policy_yaml(users: Iterable[DefaultPolicyUser]) -> str:
    """YAML text for a fresh policy covering these users."""
    document = {
        "version": 1,
        "confirm": [c.value for c in DEFAULT_CONFIRM],
        "household": ["notify.mobile_app_*"],
        "groups": {
            "admin": {"ignore_exposure": True, "rules": [{"allow": ["read", "control"]}]},
            "users": {"rules": [{"allow": ["read", "control"]}]},
        },
        "users": [
            {"id": user.id, "name": user.name, "rules": []}
            for user in sorted(users, key=lambda u: u.name.lower())
        ],
        "mqtt": {},
        "anonymous": {"rules": []},
    }
    return HEADER + yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
