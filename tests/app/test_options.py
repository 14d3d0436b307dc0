"""The app options: every invalid kind is one clear line naming the option; secrets stay hidden."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from botpsy_agent.app.config import (
    DEFAULT_OPTIONS,
    LogLevel,
    ModelChoice,
    OptionsError,
    Secret,
    load_settings,
    parse_options,
)
from botpsy_agent.app.startup import model_server_settings, pairing_by_code


def options(**changes: Any) -> dict[str, Any]:
    """The defaults (as the Supervisor writes them), with some options changed."""
    merged = json.loads(json.dumps(DEFAULT_OPTIONS))
    merged.update(changes)
    return merged


def problems_of(raw: object) -> list[str]:
    with pytest.raises(OptionsError) as caught:
        parse_options(raw)
    return caught.value.problems


def test_the_defaults_are_valid_and_mean_what_the_docs_say() -> None:
    settings = parse_options(options())
    assert settings.model.choice is ModelChoice.Q8_0
    assert settings.model.threads is None  # auto
    assert settings.model.context_length == 0  # automatic: sized from the prompt (D79)
    assert settings.languages == ("en", "ko", "id")
    assert settings.policy_file == Path("/config/policy.yaml")
    assert settings.models_dir == Path("/config/models")
    assert settings.log_level is LogLevel.INFO
    assert settings.audit_message_bodies is False
    assert settings.mqtt.replaces_service is False
    assert settings.rate_limits.per_principal == 20
    assert settings.rate_limits.global_ == 60
    assert settings.notes == ()


@pytest.mark.parametrize(
    ("option", "under_supervisor", "allowed"),
    [
        (None, True, False),  # the default under the Supervisor: its discovery pairs
        (None, False, True),  # elsewhere pairing by code is the only way
        (True, True, True),  # an admin turned it on
        (False, False, False),
    ],
)
def test_pairing_by_code_is_off_under_the_supervisor_unless_turned_on(
    option: bool | None, under_supervisor: bool, allowed: bool
) -> None:
    """Issue 25, finding 1: under the Supervisor any HA user could pair by code."""
    raw = options() if option is None else options(pairing_by_code=option)
    settings = parse_options(raw)
    assert settings.pairing_by_code is option
    assert pairing_by_code(settings, under_supervisor=under_supervisor) is allowed
    assert problems_of(options(pairing_by_code="yes")) == [
        "options.json: pairing_by_code: must be true or false, got 'yes'"
    ]


def test_a_handwritten_file_may_leave_options_out(tmp_path: Path) -> None:
    path = tmp_path / "options.json"
    path.write_text(json.dumps({"model": "Q4_K_M", "threads": "4"}))
    settings = load_settings(path, config_dir=tmp_path)
    assert settings.model.choice is ModelChoice.Q4_K_M
    assert settings.model.threads == 4
    assert settings.policy_file == tmp_path / "policy.yaml"


def test_custom_model_by_url_with_checksum() -> None:
    settings = parse_options(
        options(
            model="custom",
            custom_model="https://example.org/models/my-model.gguf?download=true",
            custom_model_sha256="AB" * 32,
        )
    )
    assert settings.model.custom_source == "https://example.org/models/my-model.gguf?download=true"
    assert settings.model.sha256 == "ab" * 32


def test_unused_custom_fields_are_reported_not_dropped_silently() -> None:
    settings = parse_options(options(custom_model="/share/old.gguf"))
    assert settings.model.custom_source is None
    assert settings.notes == ("custom_model is set but not used: model is Q8_0",)


def test_an_own_login_on_the_provided_broker() -> None:
    settings = parse_options(options(mqtt={"username": "botpsy", "password": "s3cret"}))
    assert settings.mqtt.username == "botpsy"
    assert settings.mqtt.password == Secret("s3cret")
    assert not settings.mqtt.replaces_service


@pytest.mark.parametrize(
    ("raw", "line"),
    [
        (
            options(context_length=100),
            "options.json: context_length: must be 0 (automatic) or between 512 and 131072, "
            "got 100",
        ),
        (
            options(context_length="4096"),
            "options.json: context_length: must be a whole number: 0 (automatic) or between "
            "512 and 131072, got '4096'",
        ),
        (
            options(model="Q5_K_S"),
            "options.json: model: must be one of Q8_0, Q4_K_M, BF16, custom, got 'Q5_K_S'",
        ),
        (
            options(model="custom"),
            "options.json: custom_model: required when model is custom (a URL or a path)",
        ),
        (
            options(model="custom", custom_model="ftp://example.org/m.gguf"),
            "options.json: custom_model: must be an https:// address, "
            "got 'ftp://example.org/m.gguf'",
        ),
        (
            options(model="custom", custom_model="/etc/shadow.gguf"),
            "options.json: custom_model: must be inside /config, /share, /data, /media, "
            "got '/etc/shadow.gguf'",
        ),
        (
            options(model="custom", custom_model="https://example.org/model.bin"),
            "options.json: custom_model: must name a .gguf file, got 'https://example.org/model.bin'",
        ),
        (
            options(model="custom", custom_model="/share/m.gguf", custom_model_sha256="abc123"),
            "options.json: custom_model_sha256: must be 64 hexadecimal characters, "
            "got 6 characters",
        ),
        (
            options(threads="0"),
            "options.json: threads: must be auto or a number of threads from 1 to 64, got 0",
        ),
        (
            options(thinking_budget=-1),
            "options.json: thinking_budget: must be between 0 and 8192, got -1",
        ),
        (
            options(languages=[]),
            "options.json: languages: must be a list of at least one language code, "
            "got an empty list",
        ),
        (
            options(languages=["en", "English"]),
            "options.json: languages: 'English' is not a language code like en, ko or pt-BR",
        ),
        (options(languages=["en", "en"]), "options.json: languages: en is listed twice"),
        (
            options(policy_file="../../etc/policy.yaml"),
            "options.json: policy_file: must stay inside the app config folder, "
            "got '../../etc/policy.yaml'",
        ),
        (
            options(policy_file="policy.json"),
            "options.json: policy_file: must be a .yaml file, got 'policy.json'",
        ),
        (
            options(instance="Home/Upstairs"),
            "options.json: instance: must be 1-32 of a-z, 0-9, '_' or '-', starting with a "
            "letter or digit, got 'Home/Upstairs'",
        ),
        (
            options(log_level="verbose"),
            "options.json: log_level: must be one of debug, info, warning, error, got 'verbose'",
        ),
        (
            options(audit_message_bodies="yes"),
            "options.json: audit_message_bodies: must be true or false, got 'yes'",
        ),
        (
            options(offline=1),
            "options.json: offline: must be true or false, got 1",
        ),
        (
            options(model_mirror="mirror.local"),
            "options.json: model_mirror: must be an https:// address, got 'mirror.local'",
        ),
        (
            options(rate_limits={"per_principal": 100, "global": 50}),
            "options.json: rate_limits.per_principal: must not exceed rate_limits.global (50), "
            "got 100",
        ),
        (
            options(rate_limits={"per_principal": 0, "global": 50}),
            "options.json: rate_limits.per_principal: must be between 1 and 600, got 0",
        ),
        (
            options(mqtt={"host": "core-mosquitto:1883"}),
            "options.json: mqtt.host: must be a host name or IP address (no scheme or port), "
            "got 'core-mosquitto:1883'",
        ),
        (
            options(mqtt={"host": "broker.lan", "port": 70000}),
            "options.json: mqtt.port: must be between 1 and 65535, got 70000",
        ),
        (
            options(mqtt={"port": 8883}),
            "options.json: mqtt.port: only used with mqtt.host (another broker); set the host too",
        ),
        (
            options(mqtt={"password": "hunter2"}),
            "options.json: mqtt.password: needs mqtt.username too",
        ),
        (
            options(mqtt={"host": "broker.lan", "ca_file": "/share/ca.pem"}),
            "options.json: mqtt.ca_file: only used with TLS: set mqtt.tls to true",
        ),
        (
            options(mqtt={"hostname": "broker.lan"}),
            "options.json: mqtt.hostname: unknown option (check the spelling)",
        ),
        (
            options(contextlength=4096),
            "options.json: contextlength: unknown option (check the spelling)",
        ),
        (
            options(mqtt="broker.lan"),
            "options.json: mqtt: must be a group of options, got 'broker.lan'",
        ),
        ([1, 2], "options.json: must be a JSON object, got a list"),
    ],
)
def test_each_invalid_option_is_one_clear_line(raw: object, line: str) -> None:
    assert problems_of(raw) == [line]


def test_every_problem_is_reported_at_once() -> None:
    found = problems_of(options(context_length=1, log_level="loud", instance=""))
    assert [line.split(":")[1].strip() for line in found] == [
        "context_length",
        "instance",
        "log_level",
    ]


def test_a_wrong_password_type_never_repeats_the_value() -> None:
    [line] = problems_of(options(mqtt={"username": "u", "password": 987654321}))
    assert line == "options.json: mqtt.password: must be text"


def test_secrets_never_appear_in_reprs_or_logs(caplog: pytest.LogCaptureFixture) -> None:
    settings = parse_options(
        options(mqtt={"host": "broker.lan", "username": "botpsy", "password": "pa55-w0rd"})
    )
    caplog.set_level(logging.DEBUG)
    logging.getLogger("test").info("settings: %s / %r", settings, settings.mqtt)
    assert "pa55-w0rd" not in repr(settings)
    assert "pa55-w0rd" not in str(settings.mqtt.password)
    assert "pa55-w0rd" not in caplog.text
    assert settings.mqtt.password is not None
    assert settings.mqtt.password.reveal() == "pa55-w0rd"


@pytest.mark.parametrize(
    ("content", "line"),
    [
        (None, "options.json: cannot read {path}: No such file or directory"),
        (
            '{"model": "Q8_0",}',
            "options.json: not valid JSON (line 1, column 17: "
            "Illegal trailing comma before end of object)",
        ),
    ],
)
def test_an_unreadable_file_is_one_clear_line(
    tmp_path: Path, content: str | None, line: str
) -> None:
    path = tmp_path / "options.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(OptionsError) as caught:
        load_settings(path)
    assert caught.value.problems == [line.format(path=path)]


def test_a_model_server_with_its_key_and_ca_file() -> None:
    settings = parse_options(
        options(
            model_server={
                "url": "https://pc.lan:8080",
                "api_key": "sk-house-key",
                "timeout_s": 45,
                "ca_file": "/share/house-ca.pem",
            }
        )
    )
    server = model_server_settings(settings)
    assert server is not None
    assert (server.url, server.api_key, server.timeout_s) == (
        "https://pc.lan:8080",
        "sk-house-key",
        45,
    )
    assert server.ca_file == Path("/share/house-ca.pem")
    assert "sk-house-key" not in repr(settings) and "sk-house-key" not in repr(server)
    assert parse_options(options()).model_server is None  # off by default
    default = parse_options(options(model_server={"url": "http://pc.lan:8080"})).model_server
    assert default is not None and default.timeout_s == 20 and default.api_key is None
    # A server on this machine may take its key over plain http: it never leaves the host.
    local = {"url": "http://127.0.0.1:8080", "api_key": "sk-house-key"}
    assert parse_options(options(model_server=local)).model_server is not None


@pytest.mark.parametrize(
    ("model_server", "line"),
    [
        ({"url": "pc.lan:8080"}, "model_server.url: must be an http:// or https:// address"),
        ({"api_key": "k"}, "model_server.api_key: only used with model_server.url"),
        (
            {"url": "http://pc.lan:8080", "ca_file": "/share/ca.pem"},
            "model_server.ca_file: only used with an https:// url",
        ),
        ({"url": "http://pc.lan", "timeout_s": 0}, "model_server.timeout_s: must be between"),
        ({"url": "http://pc.lan", "key": "k"}, "model_server.key: unknown option"),
        # issue 25, finding 2: a key in clear lets anyone on the network pose as the server
        (
            {"url": "http://192.168.1.20:8080", "api_key": "k"},
            "model_server.api_key: would be sent in clear over http://",
        ),
    ],
)
def test_model_server_mistakes_are_one_clear_line(model_server: dict[str, Any], line: str) -> None:
    [problem] = problems_of(options(model_server=model_server))
    assert problem.startswith(f"options.json: {line}"), problem
