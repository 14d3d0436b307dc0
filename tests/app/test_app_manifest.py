"""The app's files pass the Supervisor's and the app linter's rules, and agree with the code.

`app_rules` is our reading of those rules; the first tests show it rejects what they reject,
the rest apply it to `addon/config.yaml`, `addon/translations/en.yaml` and `repository.yaml`.
"""

from __future__ import annotations

import json
from pathlib import Path
import re
import tomllib
from typing import Any

import pytest
import yaml

import botpsy_agent
from botpsy_agent.app.config import (
    DEFAULT_OPTIONS,
    MODEL_SERVER_FIELDS,
    MQTT_FIELDS,
    OPTIONAL_OPTIONS,
    READABLE_ROOTS,
    OptionsError,
    parse_options,
)
from botpsy_agent.web import IngressSettings
from tests.app.app_rules import (
    config_problems,
    options_problems,
    parse_element,
    repository_problems,
    schema_problems,
    translation_problems,
)

ROOT = Path(__file__).resolve().parents[2]
ADDON = ROOT / "addon"


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    data: dict[str, Any] = load_yaml(ADDON / "config.yaml")
    return data


# --- the checker rejects what the Supervisor and the linter reject -------------------------


@pytest.mark.parametrize(
    "text",
    [
        "str",
        "str(1,)",
        "password?",
        "bool",
        "int(512,32768)",
        "int(-5,)",
        "float(0.5,2)",
        "port",
        "url?",
        "email",
        "match(^[a-z]+$)?",
        "list(Q8_0|Q4_K_M|BF16|custom)",
        "device(subsystem=tty)",
    ],
)
def test_valid_schema_types_parse(text: str) -> None:
    assert parse_element(text).optional is text.endswith("?")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("string", "unknown type"),
        ("int(5)", "expected int(min,max)"),
        ("int(9,1)", "min is greater than max"),
        ("float(a,b)", "expected float(min,max)"),
        ("list()", "no empty choice"),
        ("list(a||b)", "no empty choice"),
        ("match([)", "invalid regular expression"),
        ("bool(1,2)", "takes no such argument"),
        ("str(1,2", "missing ')'"),
    ],
)
def test_invalid_schema_types_are_rejected(text: str, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        parse_element(text)


GOOD: dict[str, Any] = {
    "name": "X",
    "version": "1.0.0",
    "slug": "x",
    "description": "d",
    "arch": ["aarch64", "amd64"],
    "image": "ghcr.io/owner/x",
    "init": False,
    "options": {"level": "info", "group": {"n": 1}, "names": ["a"]},
    "schema": {
        "level": "list(info|debug)",
        "token": "password?",
        "group": {"n": "int(0,9)"},
        "names": ["str"],
    },
}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"init": True}, "init: set to its default value (True); remove it"),
        ({"boot": "auto"}, "boot: set to its default value ('auto'); remove it"),
        ({"startup": "application"}, "startup: set to its default value ('application')"),
        ({"timeout": 10}, "timeout: set to its default value (10); remove it"),
        ({"watchdog": "tcp://[HOST]:[PORT:80]"}, "watchdog: obsolete: use a Docker HEALTHCHECK"),
        ({"arch": ["aarch64", "armv7"]}, "arch: 'armv7' is not supported"),
        ({"image": "ghcr.io/owner/x:1.0.0"}, "image: 'ghcr.io/owner/x:1.0.0' has a tag"),
        ({"version": 1.0}, "version: must be a string (quote it)"),
        ({"slug": "my app"}, "slug: only letters, digits"),
        ({"services": ["mqtt:require"]}, "services: 'mqtt:require' is not like mqtt:need"),
        ({"map": ["share:ro", {"type": "app_config"}]}, "map: use one form for all entries"),
        ({"map": [{"type": "addon_config"}]}, "map: 'addon_config' is deprecated since Supervisor"),
        ({"map": [{"type": "addons"}]}, "map: 'addons' is deprecated since Supervisor 2026.07"),
        ({"map": [{"type": "all_addon_configs"}]}, "map: 'all_addon_configs' is deprecated"),
        ({"map": [{"type": "config"}]}, "map: 'config' is deprecated; use 'homeassistant_config'"),
        ({"map": [{"type": "app_config"}, {"type": "config"}]}, "map: config conflicts with"),
        ({"map": [{"type": "addon"}]}, "map: unknown type 'addon'"),
        ({"timeout": 600}, "timeout: must be 10 to 300 seconds, got 600"),
        ({"colour": "red"}, "colour: unknown key"),
        ({"options": {"level": "warn"}}, "options.level: 'warn' is not one of the choices"),
        ({"options": {"level": "info", "token": "x"}}, "options.token: optional ('?')"),
        ({"options": {"names": []}}, "options.level: mandatory (no default and no '?')"),
        ({"options": {}}, "options: set to its default value ({}); remove it"),
        ({"schema": {"level": "int(1)"}}, "schema.level: 'int(1)': expected int(min,max)"),
        ({"schema": {"a": [["str"]]}}, "schema.a: a list holds exactly one element type"),
        ({"schema": {"a": {"b": {"c": ["str"]}}}}, "schema.a.b.c: lists and groups nest at most"),
    ],
)
def test_the_checker_finds_what_the_supervisor_and_linter_reject(
    change: dict[str, Any], problem: str
) -> None:
    assert config_problems(GOOD) == []
    found = config_problems(GOOD | change)
    assert any(line.startswith(problem) for line in found), found


def test_the_checker_finds_missing_required_keys_and_translations() -> None:
    assert config_problems({"name": "X"})[:4] == [
        "version: required",
        "slug: required",
        "description: required",
        "arch: required",
    ]
    schema = {"a": "str", "g": {"b": "bool"}}
    translations = {"configuration": {"a": {"name": "A"}, "g": {"name": "G", "description": "g"}}}
    assert translation_problems(translations, schema) == [
        "configuration.a.description: missing",
        "configuration.g.fields.b: not translated",
    ]


# --- the app's own files -------------------------------------------------------------------


def test_config_yaml_passes_every_rule(config: dict[str, Any]) -> None:
    assert config_problems(config) == []


def test_config_yaml_says_what_this_app_needs(config: dict[str, Any]) -> None:
    assert config["slug"] == "botpsy"
    assert config["arch"] == ["aarch64", "amd64"]
    assert ":" not in config["image"].rsplit("/", 1)[-1]
    assert config["init"] is False
    assert config["homeassistant_api"] is True
    assert config["services"] == ["mqtt:need"]
    assert config["discovery"] == ["botpsy"]
    assert config["map"] == [
        {"type": "app_config", "read_only": False},
        {"type": "share"},
        {"type": "media"},
    ]
    assert "*.gguf" in config["backup_exclude"]
    assert config["timeout"] >= 30  # time to finish a request and free the model
    assert "watchdog" not in config  # the Dockerfile's HEALTHCHECK replaces it
    # The admin page: HA's ingress on the port the app listens on, no port of its own.
    assert config["ingress"] is True
    assert config.get("ingress_port", 8099) == IngressSettings().port
    assert "ports" not in config and "webui" not in config
    assert config["panel_icon"].startswith("mdi:")


def test_translations_name_and_describe_every_option(config: dict[str, Any]) -> None:
    translations = load_yaml(ADDON / "translations" / "en.yaml")
    assert translation_problems(translations, config["schema"]) == []


def test_repository_yaml_is_valid() -> None:
    repository = load_yaml(ROOT / "repository.yaml")
    assert repository_problems(repository) == []
    assert repository["name"]


def test_no_other_config_yaml_confuses_the_supervisor() -> None:
    # The Supervisor takes every config.yaml in the repository for an app.
    found = [
        path.relative_to(ROOT).as_posix()
        for path in ROOT.rglob("config.y*ml")
        if not any(part.startswith(".") for part in path.relative_to(ROOT).parts)
    ]
    assert found == ["addon/config.yaml"]


def test_the_version_is_the_same_everywhere(config: dict[str, Any]) -> None:
    versions = {
        "addon/config.yaml": config["version"],
        "botpsy_agent.__version__": botpsy_agent.__version__,
        "pyproject.toml": tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
            "version"
        ],
    }
    changelog = (ADDON / "CHANGELOG.md").read_text()
    first = re.search(r"^## (\S+)", changelog, re.MULTILINE)
    assert first is not None
    versions["addon/CHANGELOG.md"] = first.group(1)
    manifest = ROOT / "custom_components" / "botpsy" / "manifest.json"
    if manifest.exists():
        versions["custom_components/botpsy/manifest.json"] = json.loads(manifest.read_text())[
            "version"
        ]
    assert set(versions.values()) == {config["version"]}, versions


def test_the_services_defaults_are_config_yamls(config: dict[str, Any]) -> None:
    assert config["options"] == DEFAULT_OPTIONS
    schema = config["schema"]
    optional = {key for key, value in schema.items() if str(value).endswith("?")}
    assert optional == OPTIONAL_OPTIONS
    assert set(schema) == set(DEFAULT_OPTIONS) | OPTIONAL_OPTIONS
    assert set(schema["mqtt"]) == MQTT_FIELDS
    assert set(schema["model_server"]) == MODEL_SERVER_FIELDS
    assert set(schema["rate_limits"]) == set(DEFAULT_OPTIONS["rate_limits"])
    assert schema_problems(schema) == []
    assert options_problems(config["options"], schema) == []
    parse_options(config["options"])  # the service accepts what the Supervisor writes


def test_the_dockerfile_copies_what_exists_and_checks_health() -> None:
    dockerfile = (ADDON / "Dockerfile").read_text()
    sources = [
        source
        for line in dockerfile.splitlines()
        if line.startswith("COPY ") and "--from=" not in line
        for source in line.split()[1:-1]
        if not source.startswith("--")
    ]
    assert sources, "no COPY from the build context"
    missing = [source for source in sources if not (ROOT / source).exists()]
    assert missing == []
    assert re.search(r"^HEALTHCHECK .*botpsy_agent.*health", dockerfile, re.MULTILINE | re.DOTALL)
    assert re.search(r"^FROM ghcr\.io/home-assistant/base-debian:trixie", dockerfile, re.MULTILINE)


def test_store_images_and_the_apparmor_profile() -> None:
    from PIL import Image

    with Image.open(ADDON / "icon.png") as icon, Image.open(ADDON / "logo.png") as logo:
        assert (icon.format, icon.size) == ("PNG", (128, 128))
        assert (logo.format, logo.size) == ("PNG", (250, 100))
    apparmor = (ADDON / "apparmor.txt").read_text()
    assert re.search(r"^profile botpsy flags=", apparmor, re.MULTILINE)  # named after the slug
    assert "/config/** rwk," in apparmor
    assert "/share/** r," in apparmor


def test_every_folder_custom_model_accepts_is_mapped_and_readable(config: dict[str, Any]) -> None:
    """`custom_model` may name a file under these roots (issue 30, item 9: /media was
    accepted but neither mapped nor allowed, so such a file could never be read)."""
    mapped = {"/config", "/data"} | {f"/{entry['type']}" for entry in config["map"]}
    apparmor = (ADDON / "apparmor.txt").read_text()
    for root in READABLE_ROOTS:
        assert root in mapped, root
        assert re.search(rf"^\s*{re.escape(root)}/\*\* rw?k?,", apparmor, re.MULTILINE), root


def _edges(element: str) -> tuple[list[Any], list[Any]]:
    """Values config.yaml's schema element admits at its edges, and values just past them."""
    parsed = parse_element(element)
    if parsed.kind == "int" and parsed.low is not None and parsed.high is not None:
        return [int(parsed.low), int(parsed.high)], [int(parsed.low) - 1, int(parsed.high) + 1]
    if parsed.kind == "list":
        return list(parsed.choices), ["none-of-these"]
    if parsed.kind == "match":
        return [], ["not/matching!"]
    return [], []


def _bounded(schema: dict[str, Any]) -> list[tuple[tuple[str, ...], str]]:
    found = []
    for key, element in schema.items():
        if isinstance(element, dict):
            found += [((key, k), e) for k, e in element.items() if isinstance(e, str)]
        elif isinstance(element, str):
            found.append(((key,), element))
    # Optional options have no default in options.json, so they are left out here.
    return [(p, e) for p, e in found if not e.endswith("?") and any(_edges(e))]


def test_the_app_refuses_what_the_supervisor_would_refuse(config: dict[str, Any]) -> None:
    """Each bounded option, at its edges and just past them: the app's own parser agrees
    with the schema in config.yaml (the Supervisor checks the UI; options.json may be
    written by hand or by an older schema)."""
    bounded = _bounded(config["schema"])
    assert len(bounded) >= 8, bounded  # context_length, thinking_budget, model, rate_limits, …
    for path, element in bounded:
        good, bad = _edges(element)
        for value, admitted in [(v, True) for v in good] + [(v, False) for v in bad]:
            options = json.loads(json.dumps(config["options"]))
            *parents, last = path
            target = options
            for parent in parents:
                target = target.setdefault(parent, {})
            if path[0] == "rate_limits":  # the app's own rule: per_principal <= global
                target.update({"per_principal": 1, "global": 6000})
            target[last] = value
            if (path[0], value) == ("model", "custom"):
                continue  # needs a custom_model, which options.json's defaults cannot hold
            assert (options_problems(options, config["schema"]) == []) is admitted, (path, value)
            if admitted:
                parse_options(options)
            else:
                with pytest.raises(OptionsError, match=re.escape(path[-1])):
                    parse_options(options)
