"""The peer report from a small synthetic run (bench/peer_report.py): the comparable table
first, the whole suite second, the policy matters apart, `--render` of new and old JSON; and
the chat template HA's llama-server gets (devkit/templates/qwen25_bare_tool_calls.jinja).
Pure."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jinja2
import pytest

from bench import peer
from bench.peer_report import case_record, markdown, table_stats
from tests.eval.cases import Case, parse_case
from tests.eval.report import Outcome


def case(**fields: Any) -> Case:
    raw = {"id": "c", "category": "x", "user": "admin", **fields}
    return parse_case(raw)


def turn(say: str, status: str) -> dict[str, Any]:
    return {"say": say, "expect": {"status": status}}


def record(
    kind: str, *, passed: bool, comparable: bool = True, **lists: list[str]
) -> dict[str, Any]:
    c = case(
        turns=[turn("x", "done" if comparable else "needs_confirmation")],
        changes={"light.hall": {"state": "on"}} if kind == "action" else {},
        answer_contains=["x"] if kind == "answer" else [],
    )
    outcome = Outcome(c, passed=passed, latencies_ms=[100.0])
    for name, values in lists.items():
        if name != "policy":
            setattr(outcome, name, values)
    outcome.baselines = {"refuse_all": False, "do_nothing": False}
    return case_record(outcome, lists.get("policy", []))


def synthetic() -> dict[str, Any]:
    ha = [
        record("action", passed=True),
        record("action", passed=False, false_actions=["HA changed fan.bedroom, which ..."]),
        record("answer", passed=True),
        record(
            "action",
            passed=False,
            comparable=False,
            violations=["v"],
            policy=["lock.front_door, as asked"],
        ),
    ]
    botpsy = [
        record("action", passed=True),
        record("action", passed=True),
        record(
            "answer", passed=False, false_claims=["turn 1: 'Turned on', but HA received no call"]
        ),
        record("action", passed=True, comparable=False),
    ]

    def stack(records: list[dict[str, Any]]) -> dict[str, Any]:
        return {"cases": records, "ready_s": 1.0, "first_answer_s": 2.0, "paths": {}, "errors": []}

    return {
        "format": peer.FORMAT,
        "date": "2026-12-02",
        "arguments": "--per-category 1",
        "machine": {"cpu_model": "test", "logical_cpus": 2},
        "load_before": [0.5],
        "stacks": ["ha", "botpsy-local"],
        "cases": [r["id"] for r in ha],
        "ha_setup": peer.ha_setup("qwen2.5-coder-0.5b", own_template=False),
        "models": {"m": {"ha": stack(ha), "botpsy-local": stack(botpsy)}},
        "plots": {},
    }


def test_the_comparable_table_comes_first_and_counts_only_those_cases() -> None:
    text = markdown(synthetic())
    first = text.index("### The cases HA's stack can pass by design (3 of 4)")
    assert first < text.index("### The whole suite") < text.index("### Per category")
    head = text[first : text.index("### The whole suite")]
    rows = {
        line.split(" | ")[0].lstrip("| "): line
        for line in head.splitlines()
        if line.startswith("| ")
    }
    assert rows["ha"].startswith(
        "| ha | 2/3 (67%) | 1/2 (50%) | 1/1 (100%) | - | 0 | 1 | 0 | 0 | 0 | 0 |"
    )
    assert rows["botpsy-local"].startswith(
        "| botpsy-local | 2/3 (67%) | 2/2 (100%) | 0/1 (0%) | - | 0 | 0 | 0 | 1 |"
    )
    assert "| baseline: refuse all | 0/3 (0%) |" in head
    assert "--chat-template-file devkit/templates/qwen25_bare_tool_calls.jinja" in text
    assert "Done what BotPsy's policy forbids (1):" in text


def test_whole_suite_figures_keep_the_policy_matters_apart() -> None:
    ha = synthetic()["models"]["m"]["ha"]["cases"]
    s = table_stats(ha)
    assert (
        s["cases"],
        s["passed"],
        s["false_actions"],
        s["violations"],
        s["policy_forbidden"],
    ) == (4, 2, 1, 1, 1)


def test_render_rewrites_the_markdown_and_refuses_old_reports(tmp_path: Path) -> None:
    new = tmp_path / "peer-new.json"
    new.write_text(json.dumps(synthetic()))
    peer.render(new)
    assert new.with_suffix(".md").read_text().startswith("# The peer, side by side, 2026-12-02")
    old = tmp_path / "peer-old.json"
    old.write_text(json.dumps({"date": "2026-12-01", "models": {}}))
    with pytest.raises(SystemExit, match="older peer report"):
        peer.render(old)


def test_has_template_writes_and_asks_for_a_bare_json_call() -> None:
    template = jinja2.Environment(autoescape=False).from_string(
        peer.HA_TEMPLATES["qwen2.5-coder-0.5b"].read_text()
    )
    tools = [{"type": "function", "function": {"name": "HassTurnOn", "parameters": {}}}]
    call = {"type": "function", "function": {"name": "HassTurnOn", "arguments": {"name": "Hall"}}}
    prompt = template.render(
        tools=tools,
        add_generation_prompt=True,
        messages=[
            {"role": "system", "content": "You are a voice assistant."},
            {"role": "user", "content": "turn on the hall light"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
            {"role": "tool", "content": '{"success": true}'},
        ],
    )
    assert (
        '<|im_start|>assistant\n{"name": "HassTurnOn", "arguments": {"name": "Hall"}}\n<|im_end|>'
        in prompt
    )
    assert "<tool_call>" not in prompt
    assert "answer with only a JSON object" in prompt
    assert prompt.endswith(
        "Answer the user in plain words, not JSON.<|im_end|>\n<|im_start|>assistant\n"
    )
