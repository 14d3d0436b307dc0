"""The signatures and seals both sides use (`contract/signing.py`)."""

from __future__ import annotations

from botpsy_agent.contract import (
    app_message_valid,
    fingerprint,
    open_answer,
    seal_answer,
    sign,
    sign_app_message,
    signature_matches,
)

SECRET = "s3cret-shared-at-integration-setup"


def test_the_integration_believes_only_what_the_app_signed_with_its_secret() -> None:
    message = {"type": "action", "data": {"tool": "turn_on", "name": "Küche"}}
    signed = sign_app_message(message, [SECRET, "another-paired-secret-0123456789"])
    assert fingerprint(SECRET) in signed["sigs"]
    assert app_message_valid(signed, SECRET, max_age_s=60)
    assert not app_message_valid(signed, "not-ours-0123456789abcdef")
    assert not app_message_valid({**signed, "data": {}}, SECRET)
    assert not app_message_valid(message, SECRET)
    old = sign_app_message(message, [SECRET], now=1_000_000)
    assert app_message_valid(old, SECRET)
    assert not app_message_valid(old, SECRET, max_age_s=300)
    # An app message never passes as a request signed with the same secret, nor one way round.
    request = sign(message, SECRET)
    assert request["sig"] not in signed["sigs"].values()
    assert signature_matches(request, request["sig"], ["other-secret-0123456789", SECRET])
    assert not signature_matches({**request, "ts": request["ts"] + 1}, request["sig"], [SECRET])


def test_a_sealed_answer_opens_with_its_secret_only() -> None:
    answer = {"id": "a1", "status": "done", "speech": "Schicke „Küche“", "actions": [{"x": 1}]}
    sealed = seal_answer(answer, SECRET)
    assert set(sealed) == {"id", "status", "sealed"}
    assert open_answer(sealed, SECRET) == answer
    assert open_answer(sealed, "not-our-secret-0123456789abcdef") != answer
    assert open_answer({**sealed, "sealed": "!!"}, SECRET) is None
    assert open_answer(answer, SECRET) == answer  # nothing sealed
