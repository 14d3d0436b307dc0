"""Permission rules edited in Home Assistant, written into the policy file.

The policy file stays the single source of truth on disk. The integration's permissions
form edits only rules whose ids start with `ui-` (and a user's `inherit`, and the global
`confirm` classes); it sends them, signed with the shared secret, retained on
`botpsy/<instance>/policy/set/<key>` so an app that is offline gets them when it is back:

    {"key": "<HA user id>", "instance": "home", "revision": 1796000000123, "ts": 1796000000,
     "user": {"name": "Min-ji", "inherit": true, "rules": [{"id": "ui-deny-areas", ...}]},
     "sig": "..."}
    {"key": "confirm", "instance": "home", "revision": ..., "ts": ...,
     "confirm": ["locks", ...], "sig": "..."}
    {"key": "homeassistant", "instance": "home", "revision": ..., "ts": ...,
     "principal": {"rules": [{"id": "ui-allow", "allow": ["read"]}]}, "sig": "..."}

The last is Home Assistant itself (`mqtt: homeassistant:` in the file): voice satellites and
automations without a user. Only a request HA signed as itself acts as it (D60), so rules
given to it here never reach whoever can merely write its request topic.

The app merges the update into the file's text (the user's hand-written rules and every
other section stay as they are, comments outside the rewritten section too), validates the
whole result with `parse_policy` and only then replaces the file and reloads the policy. An
invalid update is refused and the file is left alone. Each key's last revision is kept, so
a retained update is applied once, and a hand edit made afterwards is not overwritten when
the app restarts. Replays are refused by two things that fail apart (issue 18, finding 12):
the recorded revisions (an update whose revision cannot be recorded is refused), and `ts`
itself: an update signed more than `FUTURE_S` ahead of the app's clock, or signed before
the policy file was last changed by anyone but the app (`SKEW_S` allowed), is refused, so a
captured old update cannot undo a newer one even when the revisions file is lost. After
every update, and whenever the file changes, the app publishes the
file's users and confirmation classes (retained, `policy/state`), which is what the form
shows: the two never disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
import json
import logging
from pathlib import Path
import re
import time
from typing import Any, Final

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from botpsy_agent.contract import signature_matches
from botpsy_agent.mqtt import SecretProvider
from botpsy_agent.policy import DEFAULT_CONFIRM, PolicyError, PolicyStore, parse_policy

_LOGGER = logging.getLogger(__name__)

UI_RULE_PREFIX: Final = "ui-"
CONFIRM_KEY: Final = "confirm"
HA_PRINCIPAL_KEY: Final = "homeassistant"
"""The key (and `mqtt:` name) of Home Assistant's own principal."""
USER_KEY: Final = re.compile(r"[0-9a-f]{32}")
MAX_RULES: Final = 64
_FIELDS: Final = {"key", "instance", "revision", "ts", "sig"}
_BODIES: Final = {CONFIRM_KEY: "confirm", HA_PRINCIPAL_KEY: "principal"}
"""The body field of each key that is not an HA user's (theirs is `user`)."""
FUTURE_S: Final = 300
"""How far ahead of the app's clock an update may be signed (clocks differ a little)."""
SKEW_S: Final = 60
"""How much older than the policy file's last outside change an update may be signed."""


@dataclass(frozen=True)
class UpdateResult:
    """What became of one update; published in `policy/state` as `last_update`."""

    key: str
    revision: int
    status: str
    """`applied` or `refused`."""
    problems: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "revision": self.revision,
            "status": self.status,
            "problems": list(self.problems),
        }


class PolicyUpdates:
    """Applies the integration's signed permission updates to the policy file."""

    def __init__(
        self,
        instance: str,
        store: PolicyStore,
        secrets: SecretProvider,
        revisions_file: Path,
        known_user_ids: Callable[[], Iterable[str] | None] = lambda: None,
    ) -> None:
        self.instance = instance
        self.store = store
        self._secrets = secrets
        self._revisions_file = revisions_file
        self._known_user_ids = known_user_ids
        self._revisions = _read_revisions(revisions_file)
        self._own_writes: set[int] = set()
        """mtimes (ns) of the policy file as the app itself wrote it."""
        self._changed_ns = _mtime_ns(store.path) or 0
        """When the policy file was last changed by someone else (a hand edit, a restore):
        an update signed before that is stale."""
        self.last: UpdateResult | None = None

    def apply(self, topic_key: str, payload: bytes) -> UpdateResult | None:
        """Apply one message of `policy/set/<topic_key>`. None: nothing to do (a cleared
        retained message, or a revision applied before)."""
        if not payload.strip():
            return None
        update, revision, problem = self._read(topic_key, payload)
        if problem is not None:
            return self._finish(topic_key, revision, "refused", [problem])
        if revision <= self._revisions.get(topic_key, 0):
            _LOGGER.debug("Permission update %s/%d was applied before", topic_key, revision)
            return None
        if problem := self._freshness_problem(update["ts"]) or self._remember(topic_key, revision):
            _LOGGER.warning("Security event: permission update %s refused: %s", topic_key, problem)
            return self._finish(topic_key, revision, "refused", [problem])
        if problems := self._write(update):
            _LOGGER.warning(
                "Refused a permission update from Home Assistant (the policy file stays):\n%s",
                "\n".join(problems),
            )
            return self._finish(topic_key, revision, "refused", problems)
        _LOGGER.info("Applied permission update %s from Home Assistant", topic_key)
        self.store.reload()
        return self._finish(topic_key, revision, "applied", [])

    def _read(self, topic_key: str, payload: bytes) -> tuple[dict[str, Any], int, str | None]:
        """The update, its revision, and why it cannot be applied (None: it can)."""
        try:
            update = json.loads(payload)
        except ValueError:
            return {}, 0, "the update is not JSON"
        revision = update.get("revision") if isinstance(update, dict) else None
        revision = revision if isinstance(revision, int) and not isinstance(revision, bool) else 0
        if problem := self._shape_problem(update, topic_key):
            return {}, revision, problem
        if not signature_matches(update, update["sig"], self._secrets.secrets()):
            _LOGGER.warning(
                "Security event: a permission update for %s does not carry a valid signature; "
                "ignored",
                topic_key,
            )
            return {}, revision, "the signature does not match"
        return update, revision, None

    def _write(self, update: Mapping[str, Any]) -> list[str]:
        """Merge, validate the whole file, replace it; the problems when it is refused."""
        path = self.store.path
        try:
            merged = merge_update(path.read_text("utf-8"), update)
            parse_policy(merged, str(path), self._known_user_ids())
            _write_atomically(path, merged)
            if (written := _mtime_ns(path)) is not None:
                self._own_writes = {written}  # only the latest can be the file's mtime
        except PolicyError as err:
            return [problem.render(str(path)) for problem in err.problems]
        except (OSError, yaml.YAMLError, ValueError, TypeError) as err:
            return [f"{path}: {err}"]
        return []

    def _freshness_problem(self, ts: int) -> str | None:
        now = time.time()
        if ts > now + FUTURE_S:
            return f"ts {ts} is in the future by {ts - now:.0f} s; check the clocks"
        mtime = _mtime_ns(self.store.path)
        if mtime is not None and mtime not in self._own_writes:
            self._changed_ns = mtime  # someone else changed the file since
        changed_s = self._changed_ns / 1e9
        if ts < changed_s - SKEW_S:
            return (
                f"the update (signed at ts {ts}) is older than the policy file's last change "
                f"({changed_s:.0f}); save the permissions in Home Assistant again"
            )
        return None

    def state(self) -> dict[str, Any]:
        """The file's users, Home Assistant's own rules and the confirmation classes as
        they are now, for the integration."""
        try:
            document = yaml.safe_load(self.store.path.read_text("utf-8"))
        except OSError, yaml.YAMLError:
            document = None
        if not isinstance(document, dict):
            document = {}
        users = [
            {
                "id": entry["id"],
                "name": entry.get("name"),
                "inherit": entry.get("inherit", True) is not False,
                "rules": _plain(entry.get("rules") or []),
            }
            for entry in document.get("users") or []
            if isinstance(entry, dict) and isinstance(entry.get("id"), str)
        ]
        confirm: list[str] = [c.value for c in DEFAULT_CONFIRM]
        if isinstance(document.get("confirm"), list):
            confirm = [str(c) for c in document["confirm"]]
        principals = document.get("mqtt")
        own = principals.get(HA_PRINCIPAL_KEY) if isinstance(principals, dict) else None
        own_rules = own.get("rules") if isinstance(own, dict) else None
        return {
            "users": users,
            "confirm": confirm,
            HA_PRINCIPAL_KEY: {"rules": _plain(own_rules if isinstance(own_rules, list) else [])},
            "valid": self.store.last_error is None,
            "last_update": None if self.last is None else self.last.to_json(),
        }

    def _shape_problem(self, update: object, topic_key: str) -> str | None:  # noqa: PLR0911 - a check list
        """Why `update` is not a well-formed update for `topic_key`, or None."""
        if not isinstance(update, dict):
            return "the update is not a JSON object"
        body = _BODIES.get(topic_key, "user")
        unknown = set(update) - _FIELDS - {body}
        missing = (_FIELDS | {body}) - set(update)
        if unknown or missing:
            return f"fields: unknown {sorted(unknown)}, missing {sorted(missing)}"
        if update["key"] != topic_key or update["instance"] != self.instance:
            return "the update is for another key or instance than its topic"
        if topic_key not in _BODIES and not USER_KEY.fullmatch(topic_key):
            return f"the key must be an HA user id, {CONFIRM_KEY!r} or {HA_PRINCIPAL_KEY!r}"
        if not isinstance(update["sig"], str) or not update["revision"]:
            return "sig and revision are required"
        if not isinstance(update["ts"], int) or isinstance(update["ts"], bool):
            return "ts must be a whole number of seconds"
        if body == "confirm":
            return None if _strings(update["confirm"]) else "confirm must be a list of classes"
        if body == "principal":
            return _principal_problem(update["principal"])
        return _user_problem(update["user"])

    def _remember(self, key: str, revision: int) -> str | None:
        """Record `revision` before applying it; why not, when it cannot be recorded (an
        update that could apply again after a restart is a replay waiting to happen)."""
        revisions = {**self._revisions, key: revision}
        try:
            _write_atomically(self._revisions_file, json.dumps(revisions, sort_keys=True))
        except OSError as err:
            _LOGGER.warning(
                "Cannot record permission revisions in %s: %s", self._revisions_file, err
            )
            return f"cannot record the revision in {self._revisions_file}: {err}"
        self._revisions = revisions
        return None

    def _finish(self, key: str, revision: int, status: str, problems: list[str]) -> UpdateResult:
        self.last = UpdateResult(key, revision, status, tuple(problems))
        return self.last


def _user_problem(user: object) -> str | None:
    if not isinstance(user, dict) or set(user) - {"name", "inherit", "rules"}:
        return "user must be an object with name, inherit and rules"
    if not isinstance(user.get("inherit", True), bool):
        return "user.inherit must be true or false"
    if user.get("name") is not None and not isinstance(user["name"], str):
        return "user.name must be text"
    return _rules_problem(user.get("rules"), "user.rules")


def _principal_problem(principal: object) -> str | None:
    if not isinstance(principal, dict) or set(principal) != {"rules"}:
        return "principal must be an object with rules"
    return _rules_problem(principal["rules"], "principal.rules")


def _rules_problem(rules: object, where: str) -> str | None:
    if not isinstance(rules, list) or len(rules) > MAX_RULES:
        return f"{where} must be a list of at most {MAX_RULES} rules"
    for rule in rules:
        if not isinstance(rule, dict) or not str(rule.get("id", "")).startswith(UI_RULE_PREFIX):
            return f"every rule from Home Assistant needs an id starting with {UI_RULE_PREFIX!r}"
    return None


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


# --- merging into the file's text ---------------------------------------------------------


def merge_update(text: str, update: Mapping[str, Any]) -> str:
    """The policy file's text with the update merged in (not yet validated)."""
    document = yaml.safe_load(text)
    if not isinstance(document, dict):
        raise TypeError("the policy file is not a mapping")
    if update["key"] == CONFIRM_KEY:
        return replace_top_level(text, "confirm", list(update["confirm"]))
    if update["key"] == HA_PRINCIPAL_KEY:
        principals = document.get("mqtt") or {}
        if not isinstance(principals, dict):
            raise TypeError("mqtt is not a mapping")
        entry = principals.get(HA_PRINCIPAL_KEY)
        entry = dict(entry) if isinstance(entry, dict) else {}
        entry["rules"] = _kept_rules(entry.get("rules")) + list(update["principal"]["rules"])
        principals[HA_PRINCIPAL_KEY] = entry
        return replace_top_level(text, "mqtt", principals)
    users = document.get("users") or []
    if not isinstance(users, list):
        raise TypeError("users is not a list")
    user = update["user"]
    entry = next((u for u in users if isinstance(u, dict) and u.get("id") == update["key"]), None)
    if entry is None:
        entry = {"id": update["key"]}
        users.append(entry)
    if user.get("name"):
        entry["name"] = user["name"]
    if user.get("inherit", True):
        entry.pop("inherit", None)
    else:
        entry["inherit"] = False
    entry["rules"] = _kept_rules(entry.pop("rules", None)) + list(user["rules"])
    return replace_top_level(text, "users", users)


def _kept_rules(rules: object) -> list[Any]:
    """The rules written by hand (every one not from the form)."""
    return [
        rule
        for rule in (rules if isinstance(rules, list) else [])
        if not (isinstance(rule, dict) and str(rule.get("id", "")).startswith(UI_RULE_PREFIX))
    ]


def replace_top_level(text: str, key: str, value: Any) -> str:
    """`text` with the top-level `key: …` section replaced by `value` (added at the end when
    missing). Everything outside that section, comments included, stays byte for byte."""
    block = yaml.safe_dump({key: value}, sort_keys=False, allow_unicode=True).rstrip("\n")
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    if not isinstance(root, MappingNode) or root.flow_style:
        document = yaml.safe_load(text)
        document[key] = value
        return yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
    for key_node, value_node in root.value:
        if isinstance(key_node, ScalarNode) and key_node.value == key:
            start = key_node.start_mark.index - key_node.start_mark.column
            return text[:start] + block + text[_end_of_content(text, value_node) :]
    return text.rstrip("\n") + "\n" + block + "\n"


def _end_of_content(text: str, node: Node) -> int:
    """Where the line holding the last character of `node` ends (a block collection's own
    end mark lies at the next key, past any comments in between)."""
    last = node
    while isinstance(last, MappingNode | SequenceNode) and not last.flow_style and last.value:
        last = last.value[-1][1] if isinstance(last, MappingNode) else last.value[-1]
    mark = last.end_mark
    newline = text.find("\n", mark.index if mark.column else max(mark.index - 1, 0))
    return len(text) if newline < 0 else newline


def _plain(value: Any) -> Any:
    """JSON-safe: YAML may hold times or dates."""
    return json.loads(json.dumps(value, default=str))


def _read_revisions(path: Path) -> dict[str, int]:
    try:
        data = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        _LOGGER.warning("Cannot read %s (%s); permission updates start afresh", path, err)
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, int)}


def _mtime_ns(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)
