"""The integration reads what the app writes: each of the app's messages, as the app builds
it, through the contract's typed reading; and anything else is a clear `ContractError`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from botpsy_agent.agent.protocol import ActionReport, AgentResponse, ErrorInfo, Outcome, Status
from botpsy_agent.contract import (
    DEFAULT_LANGUAGES,
    AppInfo,
    AppResponse,
    AppStatus,
    BrokerAcl,
    ContractError,
    Pairing,
    PolicyVerdict,
    fingerprint,
    pairings_from_json,
)
from botpsy_agent.link.pairing import SecretStore
from botpsy_agent.link.policy_sync import UpdateResult
from botpsy_agent.mqtt import AnnouncedModel, ApiSettings
from botpsy_agent.mqtt.announce import info_payload, status_payload


def test_an_answer_reads_as_the_app_wrote_it() -> None:
    wire = AgentResponse(
        "r1",
        Status.DONE,
        speech="Done.",
        conversation_id="c1",
        actions=[
            ActionReport("turn_on", {"name": "a"}, ["light.a", "light.b"]),
            ActionReport("turn_off", {}, ["switch.fan"], outcome=Outcome.FAILED),
            ActionReport("get_state", {}, ["light.a"]),
        ],
        error=ErrorInfo("ha_error", "The fan did not answer."),
    ).to_json()
    answer = AppResponse.from_json(wire | {"sigs": {"ab": "cd"}})
    assert (answer.id, answer.status, answer.speech, answer.conversation_id) == (
        "r1",
        Status.DONE,
        "Done.",
        "c1",
    )
    assert answer.error_code == "ha_error"
    assert answer.entities(Outcome.EXECUTED) == ("light.a", "light.b")
    assert answer.entities(Outcome.FAILED) == ("switch.fan",)
    assert answer.tools(Outcome.EXECUTED) == ("turn_on", "get_state")
    assert not answer.asks
    assert dict(answer.document) == wire  # what the `ask` action returns, without `sigs`
    question = AppResponse.from_json(AgentResponse("r2", Status.NEEDS_CONFIRMATION).to_json())
    assert question.asks and question.error is None and question.actions == ()


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"status": "fine"}, "answer.status"),
        ({"status": None}, "answer.status"),
        ({"speech": 3}, "answer.speech"),
        ({"id": 7}, "answer.id"),
        ({"actions": {"tool": "x"}}, "answer.actions"),
        ({"actions": ["turn_on"]}, r"answer.actions\[0\]"),
        ({"actions": [{"tool": "turn_on", "outcome": "done"}]}, r"answer.actions\[0\].outcome"),
        ({"actions": [{"tool": "x", "outcome": "executed", "entity_ids": "light.a"}]}, "entity"),
        ({"error": "boom"}, "answer.error"),
        ({"error": {"message": "no code"}}, "answer.error.code"),
    ],
)
def test_an_answer_that_breaks_the_contract_says_where(change: dict[str, Any], field: str) -> None:
    wire = AgentResponse("r1", Status.DONE, speech="Done.").to_json() | change
    with pytest.raises(ContractError, match=field):
        AppResponse.from_json(wire)


def test_the_info_reads_as_the_app_announces_it() -> None:
    settings = ApiSettings(instance="home", languages=("en", "ko"))
    wire = info_payload(settings, AnnouncedModel("BotPsy-0.8B-Q4_K_M.gguf", "Q4_K_M"), "off")
    info = AppInfo.from_json(wire)
    assert info.model_file == "BotPsy-0.8B-Q4_K_M.gguf"
    assert info.languages == ("en", "ko")
    assert info.broker_acl is BrokerAcl.OFF
    assert info.version == wire["version"]
    no_model = AppInfo.from_json(info_payload(settings, None))
    assert (no_model.model_file, no_model.broker_acl) == (None, BrokerAcl.UNKNOWN)
    older = AppInfo.from_json({"version": "0.1.0"})  # an app before `broker_acl`, `languages`
    assert (older.broker_acl, older.languages) == (None, DEFAULT_LANGUAGES)
    for broken, field in (
        ({"broker_acl": "maybe"}, "info.broker_acl"),
        ({"languages": "en"}, "info.languages"),
        ({"model": {"quant": "Q4"}}, "info.model.file"),
        ({"model": "x.gguf"}, "info.model"),
    ):
        with pytest.raises(ContractError, match=field):
            AppInfo.from_json(wire | broken)


def test_a_status_reads_as_the_app_announces_it() -> None:
    status = AppStatus.from_json(status_payload("online", "s1") | {"ts": 1_700_000_000})
    assert (status.online, status.session, status.ts) == (True, "s1", 1_700_000_000)
    assert not AppStatus.from_json(status_payload("offline", "s1") | {"ts": 1}).online
    with pytest.raises(ContractError, match=r"status\.ts"):
        AppStatus.from_json(status_payload("online", "s1"))
    with pytest.raises(ContractError, match=r"status\.state"):
        AppStatus.from_json({"state": "up", "session": "s1", "ts": 1})


def test_the_pairings_read_as_the_app_lists_them(tmp_path: Path) -> None:
    store = SecretStore(tmp_path / "integration_secrets")
    store.put("a" * 32, "kitchen tablet")
    store.put("b" * 32, "")
    state = {"open": False, "pairings": store.listing()}
    assert pairings_from_json(state) == (
        Pairing(fingerprint("a" * 32), "kitchen tablet"),
        Pairing(fingerprint("b" * 32), ""),
    )
    with pytest.raises(ContractError, match=r"pairings\[0\].id"):
        pairings_from_json({"pairings": [{"label": "x"}]})
    with pytest.raises(ContractError, match=r"pairing/state\.pairings"):
        pairings_from_json({"open": True})


def test_a_verdict_reads_as_the_app_publishes_it() -> None:
    result = UpdateResult("ui-anna", 17, "refused", ("unknown entity light.x",))
    verdict = PolicyVerdict.of_state({"valid": True, "last_update": result.to_json()})
    assert verdict == PolicyVerdict("ui-anna", 17, "refused", ("unknown entity light.x",))
    assert verdict.to_json() == result.to_json()
    assert PolicyVerdict.of_state({"valid": True, "last_update": None}) is None
    with pytest.raises(ContractError, match=r"last_update\.revision"):
        PolicyVerdict.of_state({"last_update": {"key": "k", "revision": "17", "status": "x"}})
