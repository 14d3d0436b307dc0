"""A start-up problem reaches HA before the app stops (issue 30, item 2): the real entry
point (`serve`, from an options file) fails, and a real HA shows a notification that names
what to fix: the option and why, the CPU's missing features, the model file's error code.
A download that fails on a first start (here: not enough disk for the file) says its code
the same way, and the health check then fails, so the Supervisor's watchdog can retry."""

from __future__ import annotations

import errno
import json
from pathlib import Path
from typing import Any

from homeassistant.components import persistent_notification
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
import pytest

from botpsy_agent.app import startup
from botpsy_agent.app.config import DEFAULT_OPTIONS
from botpsy_agent.app.cpu import cpu_problem
from botpsy_agent.app.startup_notice import NoticeWords, start_notice
from botpsy_agent.ha.notifications import Notice
from tests.ha_server import HomeAssistantApiServer

GEMINI_LAKE = "processor\t: 0\nflags\t\t: fpu sse4_1 sse4_2 aes rdrand\n"


def shown(hass: HomeAssistant) -> dict[str, dict[str, Any]]:
    """HA's notifications by id, as its notification panel lists them."""
    items = persistent_notification._async_get_or_create_notifications(hass)
    return {key: dict(value) for key, value in items.items()}


def write_options(folder: Path, **changes: Any) -> Path:
    options = json.loads(json.dumps(DEFAULT_OPTIONS)) | {
        "instance": "first",
        "mqtt": {"host": "127.0.0.1", "port": 1},  # the app stops before connecting
        **changes,
    }
    path = folder / "options.json"
    path.write_text(json.dumps(options))
    return path


@pytest.fixture
async def ha_notifications(hass: HomeAssistant, ha_api: HomeAssistantApiServer) -> None:
    assert await async_setup_component(hass, "api", {})
    assert await async_setup_component(hass, "persistent_notification", {})


def environment(ha_api: HomeAssistantApiServer, folder: Path) -> dict[str, str]:
    return {
        "BOTPSY_HA_URL": ha_api.url,
        "BOTPSY_HA_TOKEN": ha_api.token,
        "BOTPSY_CONFIG_DIR": str(folder / "config"),
        "BOTPSY_DATA_DIR": str(folder / "data"),
    }


async def test_a_bad_option_is_named_in_ha_before_the_app_stops(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer, ha_notifications: None, tmp_path: Path
) -> None:
    options = write_options(tmp_path, context_length=100, threads="lots")
    assert await startup.serve(options, environment(ha_api, tmp_path)) == 1
    notice = shown(hass)["botpsy_first_startup"]
    assert notice["title"] == "BotPsy did not start: an option is not valid"
    message = notice["message"]
    assert "- options.json: context_length: " in message and "512" in message
    assert "- options.json: threads: " in message
    assert "Configuration tab" in message


async def test_the_notice_is_in_has_own_language(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer, ha_notifications: None, tmp_path: Path
) -> None:
    await hass.config.async_update(language="ko")
    options = write_options(tmp_path, context_length=100)
    assert await startup.serve(options, environment(ha_api, tmp_path)) == 1
    notice = shown(hass)["botpsy_first_startup"]
    assert notice["title"] == "BotPsy가 시작되지 않았습니다: 올바르지 않은 옵션이 있습니다"
    # The log's own line, as it is; the advice in Korean.
    assert "- options.json: context_length: " in notice["message"]
    assert notice["message"].endswith("앱의 구성 탭에서 고친 다음 앱을 다시 시작하세요.")


async def test_a_cpu_without_avx2_is_said_in_ha(
    hass: HomeAssistant,
    ha_api: HomeAssistantApiServer,
    ha_notifications: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A stand-in for the CPU (this machine has AVX2): its /proc/cpuinfo, as an old Celeron's.
    monkeypatch.setattr(startup, "cpu_problem", lambda: cpu_problem("x86_64", GEMINI_LAKE))
    options = write_options(tmp_path)
    assert await startup.serve(options, environment(ha_api, tmp_path)) == 1
    notice = shown(hass)["botpsy_first_startup"]
    assert notice["title"] == "BotPsy cannot run on this processor"
    assert "lacks avx, avx2, fma, f16c, bmi2" in notice["message"]
    assert not (tmp_path / "config" / "models").exists()  # nothing downloaded


async def test_a_model_file_problem_is_said_in_ha_with_its_code(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer, ha_notifications: None, tmp_path: Path
) -> None:
    options = write_options(tmp_path, offline=True)  # offline, and no file in the folder
    assert await startup.serve(options, environment(ha_api, tmp_path)) == 1
    notice = shown(hass)["botpsy_first_startup"]
    assert notice["title"] == "BotPsy did not start: its model file (offline_missing)"
    assert "offline is on and BotPsy-0.8B-Q8_0.gguf is not in" in notice["message"]


async def test_the_next_problem_replaces_the_last_one(
    hass: HomeAssistant, ha_api: HomeAssistantApiServer, ha_notifications: None, tmp_path: Path
) -> None:
    env = environment(ha_api, tmp_path)
    assert await startup.serve(write_options(tmp_path, context_length=100), env) == 1
    assert await startup.serve(write_options(tmp_path, offline=True), env) == 1
    notices = shown(hass)
    assert list(notices) == ["botpsy_first_startup"]  # one notice per instance, the latest
    assert "offline_missing" in notices["botpsy_first_startup"]["title"]


def test_a_full_disk_at_start_is_named_as_such() -> None:
    full = OSError(errno.ENOSPC, "No space left on device")
    notice = start_notice(full, [f"Start-up failed: {full}"], NoticeWords("en"))
    assert notice == Notice(
        "startup",
        "BotPsy did not start: the disk is full",
        f"- Start-up failed: {full}\n\nFree some space (old backups, unused model files: "
        "'botpsy-agent models --remove-others'), then start the app again.",
    )
    other = start_notice(
        TimeoutError("Home Assistant did not answer"), ["Start-up failed: x"], NoticeWords("id")
    )
    assert other.title == "BotPsy tidak bisa dimulai"
