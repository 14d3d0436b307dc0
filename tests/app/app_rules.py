"""The rules the Supervisor applies to an app's files, as a small checker.

Written from Supervisor **2026.08.0** (`supervisor/apps/validate.py` `_SCHEMA_APP_CONFIG`,
`_migrate_app_config`, `_warn_app_config`; `supervisor/apps/const.py` `MappingType`;
`supervisor/apps/options.py`), the version CI validates `addon/config.yaml` with
(`.github/workflows/lint.yaml`, job "Supervisor schema"): required keys, known keys only,
aarch64/amd64 only, an image name without a tag, the map types (the `addon_*` names are
deprecated since 2026.07), the option schema grammar, options that fit their schema, a
translation for every option, and `repository.yaml`. One rule is the app linter's
(frenck/action-addon-linter `lint.py`), kept as our style: no key set to its default value.
Each check returns a list of problems (empty: fine).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
import re
from typing import Any

SUPERVISOR_VERSION = "2026.08.0"
REQUIRED_KEYS = ("name", "version", "slug", "description", "arch")
SUPPORTED_ARCHES = ("aarch64", "amd64")
DEPRECATED_KEYS = {
    "watchdog": "obsolete: use a Docker HEALTHCHECK",
    "codenotary": "no longer used",
    "auto_uart": "deprecated: use uart",
    "advanced": "ignored since Supervisor 2026.03",
}
# Keys with a default: setting one to that value is a linter error.
DEFAULTS: Mapping[str, object] = {
    "advanced": False,
    "apparmor": True,
    "audio": False,
    "auth_api": False,
    "backup": "hot",
    "boot": "auto",
    "devicetree": False,
    "docker_api": False,
    "full_access": False,
    "gpio": False,
    "hassio_api": False,
    "hassio_role": "default",
    "homeassistant_api": False,
    "host_dbus": False,
    "host_ipc": False,
    "host_network": False,
    "host_pid": False,
    "host_uts": False,
    "ingress": False,
    "ingress_port": 8099,
    "ingress_stream": False,
    "init": True,
    "journald": False,
    "kernel_modules": False,
    "legacy": False,
    "options": {},
    "panel_admin": True,
    "panel_icon": "mdi:puzzle",
    "realtime": False,
    "schema": {},
    "stage": "stable",
    "startup": "application",
    "stdin": False,
    "timeout": 10,
    "tmpfs": False,
    "uart": False,
    "udev": False,
    "ulimits": {},
    "usb": False,
    "video": False,
}
OTHER_KEYS = [
    "arch",
    "description",
    "name",
    "slug",
    "version",
    "url",
    "image",
    "machine",
    "ports",
    "ports_description",
    "webui",
    "ingress_entry",
    "panel_title",
    "homeassistant",
    "devices",
    "map",
    "environment",
    "privileged",
    "services",
    "discovery",
    "backup_exclude",
    "backup_pre",
    "backup_post",
    "breaking_versions",
    "watchdog",
    "codenotary",
]
KNOWN_KEYS = frozenset(DEFAULTS) | frozenset(OTHER_KEYS)
MAP_TYPES = frozenset(
    [
        "app_config",
        "local_apps",
        "all_app_configs",
        "backup",
        "config",
        "data",
        "homeassistant_config",
        "media",
        "share",
        "ssl",
    ]
)
# Accepted, but deprecated as of Supervisor 2026.07 (a warning for store apps).
LEGACY_MAP_TYPES: Mapping[str, str] = {
    "addon_config": "app_config",
    "addons": "local_apps",
    "all_addon_configs": "all_app_configs",
}
SLUG = re.compile(r"[-_.A-Za-z0-9]+")
SERVICE = re.compile(r"(mqtt|mysql):(provide|want|need)")
IMAGE = re.compile(r"(?P<registry>[a-z0-9.-]+(:\d+)?/)?[a-z0-9._-]+(/[a-z0-9._-]+)*")
HTTP_URL = re.compile(r"https?://[^\s/$.?#][^\s]*")


# --- the option schema grammar -------------------------------------------------------------


@dataclass(frozen=True)
class Element:
    """One parsed schema type, e.g. `int(512,32768)` or `list(a|b)?`."""

    kind: str
    optional: bool
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    pattern: str | None = None


_NUMBER = {"int": r"-?\d+", "float": r"-?\d*\.?\d+", "str": r"\d+", "password": r"\d+"}
_PLAIN = frozenset({"str", "password", "bool", "int", "float", "email", "url", "port", "device"})


def parse_element(text: str) -> Element:
    """Parse one schema type; `ValueError` says what is wrong with it."""
    optional = text.endswith("?")
    body = text.removesuffix("?")
    name, parenthesis, rest = body.partition("(")
    if not parenthesis:
        if name not in _PLAIN:
            raise ValueError(f"unknown type {text!r}")
        return Element(name, optional)
    if not rest.endswith(")"):
        raise ValueError(f"{text!r}: missing ')'")
    argument = rest[:-1]
    if name in _NUMBER:
        number = _NUMBER[name]
        match = re.fullmatch(rf"({number})?,({number})?", argument)
        if match is None:
            raise ValueError(f"{text!r}: expected {name}(min,max), either may be left out")
        low, high = (float(g) if g is not None else None for g in match.groups())
        if low is not None and high is not None and low > high:
            raise ValueError(f"{text!r}: min is greater than max")
        return Element(name, optional, low=low, high=high)
    if name == "list":
        choices = tuple(argument.split("|"))
        if not argument or "" in choices:
            raise ValueError(f"{text!r}: expected list(a|b|...) with no empty choice")
        return Element("list", optional, choices=choices)
    if name == "match":
        try:
            re.compile(argument)
        except re.error as err:
            raise ValueError(f"{text!r}: invalid regular expression ({err})") from None
        return Element("match", optional, pattern=argument)
    if name == "device" and re.fullmatch(r"subsystem=[a-z]+", argument):
        return Element("device", optional)
    raise ValueError(f"{text!r}: {name} takes no such argument")


def value_problem(element: Element, value: object) -> str | None:
    """Why `value` does not fit `element` (None: it fits), as the Supervisor would judge."""
    check = _VALUE_CHECKS.get(element.kind)
    return check(element, value) if check else None


def _text(element: Element, value: object) -> str | None:
    if not isinstance(value, str):
        return f"{value!r} is not text"
    return _range_problem(element, len(value), "length")


def _number(element: Element, value: object) -> str | None:
    allowed = (int,) if element.kind == "int" else (int, float)
    if isinstance(value, bool) or not isinstance(value, allowed):
        return f"{value!r} is not a {'whole ' if element.kind == 'int' else ''}number"
    return _range_problem(element, value, "value")


def _boolean(element: Element, value: object) -> str | None:
    return None if isinstance(value, bool) else f"{value!r} is not true/false"


def _port(element: Element, value: object) -> str | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 65535
    return None if ok else f"{value!r} is not a port"


def _url(element: Element, value: object) -> str | None:
    return None if isinstance(value, str) and HTTP_URL.fullmatch(value) else f"{value!r}: no URL"


def _email(element: Element, value: object) -> str | None:
    return None if isinstance(value, str) and "@" in value else f"{value!r}: no e-mail address"


def _choice(element: Element, value: object) -> str | None:
    return None if str(value) in element.choices else f"{value!r} is not one of the choices"


def _pattern(element: Element, value: object) -> str | None:
    assert element.pattern is not None
    return None if re.match(element.pattern, str(value)) else f"{value!r} does not match"


_VALUE_CHECKS: Mapping[str, Callable[[Element, object], str | None]] = {
    "str": _text,
    "password": _text,
    "int": _number,
    "float": _number,
    "bool": _boolean,
    "port": _port,
    "url": _url,
    "email": _email,
    "list": _choice,
    "match": _pattern,
}


def _range_problem(element: Element, number: float, what: str) -> str | None:
    if element.low is not None and number < element.low:
        return f"{what} {number} is below {element.low:g}"
    if element.high is not None and number > element.high:
        return f"{what} {number} is above {element.high:g}"
    return None


def schema_problems(schema: object) -> list[str]:
    """Syntax of a `schema:`: types parse, containers nest at most two deep, no list in a list."""
    if schema is False:
        return []  # validation switched off
    if not isinstance(schema, dict):
        return ["schema: must be a mapping of option names to types"]
    problems: list[str] = []
    for key, sub in schema.items():
        problems += _element_problems(sub, f"schema.{key}", containers=0)
    return problems


def _type_problems(text: str, where: str) -> list[str]:
    try:
        parse_element(text)
    except ValueError as err:
        return [f"{where}: {err}"]
    return []


def _element_problems(element: object, where: str, containers: int) -> list[str]:
    if isinstance(element, str):
        return _type_problems(element, where)
    if not isinstance(element, list | dict):
        return [f"{where}: {element!r} is not a schema type"]
    if containers == 2:
        return [f"{where}: lists and groups nest at most two deep"]
    if isinstance(element, dict):
        return [
            problem
            for key, sub in element.items()
            for problem in _element_problems(sub, f"{where}.{key}", containers + 1)
        ]
    if len(element) != 1 or isinstance(element[0], list):
        return [f"{where}: a list holds exactly one element type, and not a list"]
    return _element_problems(element[0], f"{where}[]", containers + 1)


def options_problems(options: object, schema: object, where: str = "options") -> list[str]:
    """The `options:` defaults against `schema:`: every value fits, nothing is left unset."""
    if isinstance(schema, dict):
        if not isinstance(options, dict):
            return [f"{where}: must be a group of options"]
        problems = [f"{where}.{key}: not in the schema" for key in options if key not in schema]
        for key, sub in schema.items():
            optional = isinstance(sub, str) and sub.endswith("?")
            if key not in options:
                if not optional and not isinstance(sub, dict):
                    problems.append(f"{where}.{key}: mandatory (no default and no '?')")
                continue
            if optional:
                problems.append(f"{where}.{key}: optional ('?') options take no default")
            problems += options_problems(options[key], sub, f"{where}.{key}")
        return problems
    if isinstance(schema, list):
        if not isinstance(options, list):
            return [f"{where}: must be a list"]
        return [p for item in options for p in options_problems(item, schema[0], f"{where}[]")]
    problem = value_problem(parse_element(str(schema)), options)
    return [f"{where}: {problem}"] if problem else []


# --- config.yaml, translations, repository.yaml --------------------------------------------


def config_problems(config: Mapping[str, Any]) -> list[str]:
    """What the Supervisor or the linter would reject in an app's config.yaml."""
    problems = [f"{key}: required" for key in REQUIRED_KEYS if key not in config]
    for key, value in config.items():
        if key not in KNOWN_KEYS:
            problems.append(f"{key}: unknown key")
        if key in DEPRECATED_KEYS:
            problems.append(f"{key}: {DEPRECATED_KEYS[key]}")
        if key in DEFAULTS and value == DEFAULTS[key] and type(value) is type(DEFAULTS[key]):
            problems.append(f"{key}: set to its default value ({value!r}); remove it")
    if not isinstance(config.get("version"), str):
        problems.append("version: must be a string (quote it)")
    if not SLUG.fullmatch(str(config.get("slug", ""))):
        problems.append("slug: only letters, digits, '-', '_' and '.'")
    arch = config.get("arch", [])
    if not arch or not isinstance(arch, list):
        problems.append("arch: a non-empty list")
    else:
        problems += [f"arch: {a!r} is not supported" for a in arch if a not in SUPPORTED_ARCHES]
        if len(set(arch)) != len(arch):
            problems.append("arch: listed twice")
    problems += _image_problems(config.get("image"))
    for service in config.get("services", []):
        if not SERVICE.fullmatch(str(service)):
            problems.append(f"services: {service!r} is not like mqtt:need")
    problems += _map_problems(config.get("map", []))
    timeout = config.get("timeout", 10)
    if not isinstance(timeout, int) or not 10 <= timeout <= 300:
        problems.append(f"timeout: must be 10 to 300 seconds, got {timeout!r}")
    if "url" in config and not HTTP_URL.fullmatch(str(config["url"])):
        problems.append("url: not an http(s) address")
    schema = config.get("schema", {})
    problems += schema_problems(schema)
    if not problems:
        problems += options_problems(config.get("options", {}), schema)
    return problems


def _image_problems(image: object) -> list[str]:
    if image is None:
        return []
    text = str(image)
    last = text.rsplit("/", 1)[-1]
    if ":" in last or "@" in text:
        return [f"image: {text!r} has a tag; the version is the tag"]
    if not IMAGE.fullmatch(text):
        return [f"image: {text!r} is not an image name (lower case, registry/owner/name)"]
    return []


def _map_problems(entries: object) -> list[str]:
    if not isinstance(entries, list):
        return ["map: must be a list"]
    if entries and not all(isinstance(e, dict) for e in entries):
        return ["map: use one form for all entries (the linter rejects mixing)"]
    problems: list[str] = []
    types = set()
    for entry in entries:
        kind = entry.get("type")
        types.add(kind)
        if kind in LEGACY_MAP_TYPES:
            problems.append(
                f"map: {kind!r} is deprecated since Supervisor 2026.07; "
                f"use {LEGACY_MAP_TYPES[kind]!r}"
            )
        elif kind not in MAP_TYPES:
            problems.append(f"map: unknown type {kind!r}")
        if set(entry) - {"type", "read_only", "path"}:
            problems.append(f"map: {kind}: unknown keys {sorted(set(entry) - {'type'})}")
        if "read_only" in entry and not isinstance(entry["read_only"], bool):
            problems.append(f"map: {kind}: read_only must be true or false")
    if "config" in types and types & {"addon_config", "app_config", "homeassistant_config"}:
        problems.append("map: config conflicts with app_config / homeassistant_config")
    elif "config" in types:
        problems.append("map: 'config' is deprecated; use 'homeassistant_config'")
    return problems


def translation_problems(translations: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """Every option (and nested field) has a name and a description; nothing extra."""
    configuration = translations.get("configuration", {})
    problems = [
        f"translations: unexpected section {key!r}"
        for key in translations
        if key not in {"configuration", "network"}
    ]
    problems += _fields_problems(configuration, schema, "configuration")
    return problems


def _fields_problems(
    entries: Mapping[str, Any], schema: Mapping[str, Any], where: str
) -> list[str]:
    problems = [f"{where}.{key}: no such option" for key in entries if key not in schema]
    for key, sub in schema.items():
        entry = entries.get(key)
        if not isinstance(entry, dict):
            problems.append(f"{where}.{key}: not translated")
            continue
        for field in ("name", "description"):
            if not isinstance(entry.get(field), str) or not entry[field].strip():
                problems.append(f"{where}.{key}.{field}: missing")
        if isinstance(sub, dict):
            problems += _fields_problems(entry.get("fields", {}), sub, f"{where}.{key}.fields")
    return problems


def repository_problems(repository: Mapping[str, Any]) -> list[str]:
    problems = [] if isinstance(repository.get("name"), str) else ["name: required"]
    if "url" in repository and not HTTP_URL.fullmatch(str(repository["url"])):
        problems.append("url: not an http(s) address")
    if "maintainer" in repository and not isinstance(repository["maintainer"], str):
        problems.append("maintainer: must be text")
    problems += [
        f"{key}: unknown key" for key in repository if key not in {"name", "url", "maintainer"}
    ]
    return problems
