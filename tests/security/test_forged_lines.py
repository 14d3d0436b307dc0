"""Issue 25, finding 10: a field name the sender chose was echoed raw into the refusal, the
app log and `botpsy-agent audit`: a newline began a fake "executed unlock" record, then an
escape code hid the rest of the terminal. The whole app on the real HA test home and a real
Mosquitto broker; the audit command and the app's log formatter as the app runs them."""

from __future__ import annotations

from collections.abc import Iterator
import io
import json
import logging
from pathlib import Path
import re

from homeassistant.core import HomeAssistant
import pytest

from botpsy_agent.__main__ import main
from botpsy_agent.audit.printable import PrintableFormatter, printable
from botpsy_agent.audit.read import AuditReader, format_record
from devkit.mosquitto import MosquittoBroker
from tests.ha_home import HaHome
from tests.ha_server import HomeAssistantApiServer
from tests.mqtt.client import subscribed_client
from tests.reliability.harness import REQUEST, RESPONSE, app_config, running_app

FAKE_RECORD = (
    "2026-11-30T09:12:03.530+00:00 action   f0 user:daniel control_lock lock.back_door "
    "decision=allow rule=- outcome=executed"
)
HIDE = "\x1b[8m"  # a terminal prints nothing after this
FORGED_NAME = f"x\n{FAKE_RECORD}\r\u2028\u202e{HIDE}"
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e]")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \w+ |    ")


@pytest.fixture
def app_log() -> Iterator[io.StringIO]:
    """The app's log as `botpsy-agent serve` writes it (its formatter, its format)."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(PrintableFormatter(LOG_FORMAT, "%Y-%m-%d %H:%M:%S"))
    logger = logging.getLogger("botpsy_agent")
    logger.addHandler(handler)
    yield out
    logger.removeHandler(handler)


async def test_a_field_name_cannot_forge_refusal_log_or_audit_lines(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    tmp_path: Path,
    app_log: io.StringIO,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Reproduced on the old code: the refusal said "unknown field(s): x" and, on a line
    of its own, the fake record with the escape code; so did the log and the audit
    command."""
    async with (
        running_app(app_config(ha_api, mosquitto, tmp_path)) as app,
        subscribed_client(mosquitto, f"{RESPONSE}/#") as client,
    ):
        client.publish(REQUEST, {"id": "f1", "text": "hi", FORGED_NAME: 1})
        answer = await client.response(RESPONSE, "f1")
        audit_file = app.audit.path
    assert answer["error"]["code"] == "unknown_field"
    message = answer["error"]["message"]
    assert not UNSAFE.search(message), message
    assert message.startswith("unknown field(s): x\\n2026-11-30T09:12:03")

    records = list(AuditReader(audit_file).records())
    assert [r["code"] for r in records if r["kind"] == "refused"] == ["unknown_field"]

    capsys.readouterr()
    assert main(["audit", "--file", str(audit_file)]) == 0
    printed = capsys.readouterr().out
    assert not UNSAFE.search(printed.replace("\n", "")), printed
    assert len(printed.splitlines()) == len(records)  # one line per record, none forged
    assert not any(line.startswith(FAKE_RECORD[:20]) for line in printed.splitlines())

    assert main(["audit", "--file", str(audit_file), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [json.loads(line) for line in lines] == records  # the same JSON, escaped
    assert not any(UNSAFE.search(line) for line in lines)

    logged = app_log.getvalue()
    assert "unknown_field" in logged
    assert not UNSAFE.search(logged.replace("\n", ""))
    assert all(LOG_LINE.match(line) for line in logged.splitlines()), logged


def test_every_field_of_a_record_prints_on_its_one_line() -> None:
    """Whatever reaches a record (a topic, a claimed user id) is printed escaped too."""
    record = {
        "time": "2026-11-30T09:12:04+00:00",
        "kind": "refused",
        "id": "b1",
        "claimed_user_id": f"u{HIDE}",
        "topic": f"botpsy/home/request/p\n{FAKE_RECORD}",
        "code": "unknown_principal",
        "message": "no such principal",
    }
    line = format_record(record)
    assert "\n" not in line and not UNSAFE.search(line), line


def test_the_formatter_keeps_its_own_line_breaks_as_indented_continuations() -> None:
    formatter = PrintableFormatter("%(levelname)s %(message)s")
    record = logging.LogRecord("t", logging.INFO, __file__, 1, "one\ntwo %s", (HIDE,), None)
    assert formatter.format(record) == "INFO one\n    two \\x1b[8m"
    assert printable("a\u202eb\x9bc\\n") == "a\\u202eb\\x9bc\\n"
