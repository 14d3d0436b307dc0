"""Policies used by the tests (inline YAML, as people would write them), and the start they
share (`HOUSEHOLD_AND_GROUPS`, used by tests/agent/support.py and tests/integration too)."""

from __future__ import annotations

from botpsy_agent.policy import Policy, Principal, parse_policy

CHILD = "c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0c0"
GUEST = "9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e9e"
TEEN = "7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e7e"
ADMIN = "a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0a0"
PARENT = "b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1"

HOUSEHOLD_AND_ADMINS = """\
household: ["notify.mobile_app_*"]
groups:
  admin:
    ignore_exposure: true
    rules:
      - allow: [read, control]
"""
"""The household's phones, and admins who may read and control everything."""

HOUSEHOLD_AND_GROUPS = (
    HOUSEHOLD_AND_ADMINS
    + """\
  users:
    rules:
      - allow: [read, control]
"""
)
"""The start most test policies share: the household's phones, and admins and users who may
read and control everything exposed (each policy then adds its own)."""

NO_LOCKS_FOR_USERS = """\
      - id: no-locks-for-users
        deny: control
        domains: [lock]
"""
"""A rule for the `users` group after HOUSEHOLD_AND_GROUPS: no control of locks."""

FAMILY_POLICY = (
    "\nversion: 1\n"
    + HOUSEHOLD_AND_GROUPS
    + f"""\
users:
  - id: {CHILD}
    name: Sam
    inherit: false
    rules:
      - id: kids-own-rooms
        allow: [read, control]
        areas: [kids_room, living_room]
        domains: [light, media_player, climate, fan, cover]
      - allow: read
      - id: no-locks
        deny: control
        domains: [lock]
      - id: kid-limits
        limit:
          temperature: {{min: 18, max: 24}}
          volume_pct: {{max: 60}}
      - id: no-media-at-night
        deny: control
        domains: [media_player]
        when: {{after: "21:00", before: "07:00"}}
  - id: {GUEST}
    name: Guest
    inherit: false
    rules:
      - id: guest-room
        allow: control
        areas: [guest_room]
  - id: {TEEN}
    name: Teen
    inherit: false
    rules:
      - id: teen-office
        allow: [read, control]
        areas: [office, kids_room]
      - id: not-grown-up-things
        deny: [read, control]
        labels: [grown_ups]
mqtt:
  kitchen-panel:
    rules:
      - id: panel-kitchen
        allow: [read, control]
        areas: [kitchen]
"""
)


def family_policy() -> Policy:
    return parse_policy(FAMILY_POLICY, "family.yaml")


child = Principal.user(CHILD, "Sam")
guest = Principal.user(GUEST, "Guest")
teen = Principal.user(TEEN, "Teen")
admin = Principal.user(ADMIN, "Admin", is_admin=True)
parent = Principal.user(PARENT, "Parent")
kitchen_panel = Principal.mqtt("kitchen-panel")
anonymous = Principal.anonymous()
