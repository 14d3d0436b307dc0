"""The integration's package as HACS installs it: complete translations in every language,
every key the code uses translated, actions described, nothing imported from the rest of the
repository, and the pairing arithmetic the same as the app's."""

from __future__ import annotations

import ast
import json
from pathlib import Path
import re
import string
from typing import Any

from homeassistant.util.yaml import load_yaml
import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "custom_components" / "botpsy"
LANGUAGES = ("en", "ko", "id")


def translations(language: str) -> dict[str, Any]:
    data = json.loads((PACKAGE / "translations" / f"{language}.json").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def flatten(tree: dict[str, Any], prefix: str = "") -> dict[str, str]:
    flat: dict[str, str] = {}
    for key, value in tree.items():
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict):
            flat.update(flatten(value, path))
        else:
            assert isinstance(value, str) and value.strip(), path
            flat[path] = value
    return flat


def placeholders(text: str) -> set[str]:
    return {field for _, field, _, _ in string.Formatter().parse(text) if field}


@pytest.mark.parametrize("language", LANGUAGES[1:])
def test_every_language_has_every_key_with_the_same_placeholders(language: str) -> None:
    english, other = flatten(translations("en")), flatten(translations(language))
    assert sorted(other.keys() - english.keys()) == []
    assert sorted(english.keys() - other.keys()) == []
    for key, text in english.items():
        assert placeholders(other[key]) == placeholders(text), key


def _string_arguments(keyword: str) -> set[str]:
    """Every literal passed as `keyword=` anywhere in the package."""
    found = set()
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if (
                isinstance(node, ast.keyword)
                and node.arg == keyword
                and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
            ):
                found.add(node.value.value)
    return found


def _error_keys() -> set[str]:
    """Values assigned to `errors[...]` and `PairingError(...)` reasons."""
    found = set()
    for path in PACKAGE.glob("*.py"):
        source = path.read_text("utf-8")
        found |= set(re.findall(r'errors\[[^\]]+\] = "(\w+)"', source))
        found |= set(re.findall(r'PairingError\("(\w+)"\)', source))
    return found


def test_every_key_the_code_uses_is_translated() -> None:
    english = translations("en")
    config, options = english["config"], english["options"]
    fix_flows = [issue["fix_flow"] for issue in english["issues"].values() if "fix_flow" in issue]
    flows = (config, options, *fix_flows)  # repairs.py
    abort_reasons = _string_arguments("reason")
    assert abort_reasons, "the scan found nothing"
    for reason in abort_reasons:
        assert any(reason in flow["abort"] for flow in flows), reason
    for step in _string_arguments("step_id"):
        assert any(step in flow["step"] for flow in flows), step
    for error in _error_keys():
        assert error in config["error"] or error in options["error"], error
    issues = {"agent_offline", "no_model", "unknown_pairing", "prefer_local_intents"}
    assert issues <= english["issues"].keys()
    for key in _string_arguments("translation_key") - issues - {"access", "confirm_class"}:
        assert key in english["exceptions"], key
    assert {"access", "confirm_class", "voice_access"} <= english["selector"].keys()


def test_every_action_and_field_is_described() -> None:
    services = load_yaml(str(PACKAGE / "services.yaml"))
    assert isinstance(services, dict)
    english = translations("en")["services"]
    icons = json.loads((PACKAGE / "icons.json").read_text())["services"]
    for service, spec in services.items():
        assert {"name", "description"} <= english[service].keys()
        assert set(spec["fields"]) == set(english[service]["fields"])
        assert service in icons


def test_the_package_stands_alone() -> None:
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                top = node.module.split(".")[0]
                assert top not in {"botpsy_agent", "tool_schemas", "devkit", "tests"}, path
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert alias.name.split(".")[0] not in {"botpsy_agent", "tool_schemas"}
    manifest = json.loads((PACKAGE / "manifest.json").read_text())
    assert manifest["dependencies"] == ["conversation", "mqtt"]
    assert manifest["after_dependencies"] == ["assist_pipeline"]  # local_handling.py
    assert manifest["requirements"] == []
    assert (manifest["iot_class"], manifest["integration_type"]) == ("local_push", "service")
    assert list(manifest)[:2] == ["domain", "name"]
    assert list(manifest)[2:] == sorted(list(manifest)[2:])  # hassfest's order
    hacs = json.loads((ROOT / "hacs.json").read_text())
    assert hacs["name"] == manifest["name"]
    for image in ("icon.png", "logo.png", "icon@2x.png", "logo@2x.png"):
        assert (PACKAGE / "brand" / image).stat().st_size > 0
