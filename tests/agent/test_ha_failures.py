"""How an answer names what went wrong in HA: the executor keeps HA's own error (`HaError`,
HA's code and words), and the agent says it in the answer's terms (docs/mqtt-api.md: HA's
code as `ha_<code>`, and whether it may have happened all the same)."""

from __future__ import annotations

from botpsy_agent.agent.pipeline import error_of, result_of
from botpsy_agent.agent.protocol import AgentCode
from botpsy_agent.ha.errors import HaCallError, HaNotConnected, HaTimeout, NotRunHere
from botpsy_agent.ha.executor import ActionOutcome, ActionStatus, Execution
from tool_schemas.actions import AssistIntent, ServiceCall


def test_has_refusal_is_named_with_its_own_code_and_words() -> None:
    error = error_of(HaCallError("service_validation_error", "Entity does not support this"))
    assert (error.code, error.message) == (
        "ha_service_validation_error",
        "Entity does not support this",
    )


def test_a_call_sent_without_an_answer_says_it_may_have_happened() -> None:
    error = error_of(HaTimeout(10))
    assert error.code == "ha_timeout"
    assert error.message.endswith("it may or may not have happened, and was not retried")


def test_a_call_never_sent_says_only_why() -> None:
    error = error_of(HaNotConnected())
    assert (error.code, error.message) == ("ha_not_connected", "not connected to Home Assistant")


def test_one_of_has_own_intents_is_handed_to_assist() -> None:
    error = error_of(NotRunHere("HassStartTimer"))
    assert (error.code, error.message) == (
        AgentCode.HANDED_TO_ASSIST,
        "HassStartTimer is Assist's to run",
    )


def test_the_result_names_each_failure_as_the_answer_does_and_no_other() -> None:
    done = ServiceCall("light", "turn_on", ("light.kitchen",))
    lost = AssistIntent("HassStartTimer")
    execution = Execution(
        "r1",
        (
            ActionOutcome(done, ActionStatus.DONE),
            ActionOutcome(lost, ActionStatus.FAILED, error=NotRunHere(lost.intent)),
        ),
    )
    first, second = result_of(execution)["actions"]
    assert "error" not in first
    assert second["error"] == {
        "code": "handed_to_assist",
        "message": "HassStartTimer is Assist's to run",
    }
    assert "error" not in execution.to_json()["actions"][1]  # HA's part leaves naming to us
