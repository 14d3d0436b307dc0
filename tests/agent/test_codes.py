"""One enum of the agent's error codes (`AgentCode`), each said and documented: the phrasebooks
(translations/) word every code the answer is said from, in every language they have, and
docs/mqtt-api.md tables exactly these codes."""

from __future__ import annotations

import ast
from pathlib import Path
import re

import yaml

from botpsy_agent.agent.protocol import SAID_CODES, AgentCode
from botpsy_agent.llm.planning import PlanFailure

ROOT = Path(__file__).resolve().parents[2]
PHRASEBOOKS = sorted((ROOT / "translations").glob("*.yaml"))
DOCS = ROOT / "docs" / "mqtt-api.md"


def documented() -> list[str]:
    """The codes of the docs' "Error codes of the agent" tables, in order."""
    section = DOCS.read_text().split("### Error codes of the agent", 1)[1].split("\n#", 1)[0]
    return re.findall(r"^\| `([a-z_]+)` \|", section, re.M)


def test_every_code_the_answer_is_said_from_has_a_phrase_in_every_language() -> None:
    assert {p.stem for p in PHRASEBOOKS} >= {"en", "ko", "id"}
    for book in PHRASEBOOKS:
        phrases = yaml.safe_load(book.read_text())["errors"]
        assert set(phrases) == {code.value for code in SAID_CODES}, book.name
        assert all(isinstance(text, str) and text.strip() for text in phrases.values())


def test_the_docs_table_the_agents_codes_and_no_others() -> None:
    codes = documented()
    assert len(codes) == len(set(codes))
    assert set(codes) == {code.value for code in AgentCode}


def test_the_planners_failures_are_codes_the_answer_is_said_from() -> None:
    """`llm` cannot import the agent: its failures carry the agent's codes by value."""
    assert {failure.value for failure in PlanFailure} <= {code.value for code in SAID_CODES}


def test_the_app_writes_no_error_code_as_a_bare_string() -> None:
    """Every `ErrorInfo` the app builds takes its code from an enum or from the refusing
    part's own error, never a string typed at the call."""
    bare = []
    for path in sorted((ROOT / "addon" / "botpsy_agent").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "ErrorInfo"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                bare.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert bare == []
