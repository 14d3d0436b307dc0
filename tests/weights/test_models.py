"""Model management against a stand-in file host serving a real (tiny) GGUF.

Covers: progress in the log, resume after a dropped connection (within one start and
across starts), checksum mismatch, the disk check before downloading, offline use of a
file already there, switching quantization, and removing old files only when asked.
"""

from __future__ import annotations

from dataclasses import replace
import hashlib
import json
import logging
from pathlib import Path
import shutil
from typing import Any

import aiohttp
import pytest

from botpsy_agent.app.config import DEFAULT_OPTIONS, parse_options
from botpsy_agent.weights import (
    CATALOG,
    DownloadError,
    DownloadProgress,
    download_file,
    ensure_model,
    other_models,
    plan_model,
    remove_other_models,
)
from botpsy_agent.weights.options import ModelChoice, ModelSettings
from devkit.model_host import ModelHostStandIn, ServedRequest
from tests.weights.model_host import NAME


def model_settings(**changes: Any) -> ModelSettings:
    raw = json.loads(json.dumps(DEFAULT_OPTIONS)) | changes
    return parse_options(raw).model


def log_lines(caplog: pytest.LogCaptureFixture, level: int = logging.INFO) -> list[str]:
    """The app's own lines at `level` (not asyncio's debug-mode "took 0.16 seconds", which a
    loaded machine adds: it failed a full run once)."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == level and r.name.startswith("botpsy_agent")
    ]


async def test_download_logs_progress_and_lands_whole(
    host: ModelHostStandIn,
    session: aiohttp.ClientSession,
    gguf_bytes: bytes,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    seen: list[DownloadProgress] = []
    target = tmp_path / "models" / NAME
    result = await download_file(
        session,
        host.url(NAME),
        target,
        sha256=hashlib.sha256(gguf_bytes).hexdigest(),
        progress_interval_s=0,
        on_progress=seen.append,
    )
    assert target.read_bytes() == gguf_bytes
    assert (result.size, result.resumed_from) == (len(gguf_bytes), 0)
    assert sorted(p.name for p in target.parent.iterdir()) == [NAME]  # no .part left
    size = f"{len(gguf_bytes) / 1e6:.1f}"
    lines = log_lines(caplog)
    assert lines[0] == f"Downloading {NAME} from {host.url(NAME)} ({size} MB)"
    progress = [line for line in lines if line.startswith(f"Downloading {NAME}: ")]
    assert len(progress) >= 3
    assert all(" % (" in line and " MB/s" in line for line in progress)
    assert progress[-1].startswith(f"Downloading {NAME}: 100 % ({size} of {size} MB) at ")
    assert progress[-1] == f"Downloading {NAME}: {seen[-1].text()}"
    # What HA's model-state sensor shows comes with each line: percent, size, time left.
    assert (seen[-1].percent, seen[-1].done, seen[-1].total) == (
        100,
        len(gguf_bytes),
        len(gguf_bytes),
    )
    assert seen[-1].final and seen[-1].eta_s is None
    assert [p.done for p in seen] == sorted(p.done for p in seen)


async def test_a_dropped_connection_is_resumed_with_a_range_request(
    host: ModelHostStandIn,
    session: aiohttp.ClientSession,
    gguf_bytes: bytes,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    half = len(gguf_bytes) // 2
    host.cut_once[NAME] = half
    target = tmp_path / NAME
    result = await download_file(
        session,
        host.url(NAME),
        target,
        sha256=hashlib.sha256(gguf_bytes).hexdigest(),
        retry_delay_s=0.01,
    )
    assert target.read_bytes() == gguf_bytes
    first, second = host.requests
    assert first == ServedRequest(NAME, None)
    assert second.range is not None
    kept = int(second.range.removeprefix("bytes=").removesuffix("-"))
    assert 0 < kept <= half  # the bytes that arrived were kept, and only those were asked again
    [warning] = log_lines(caplog, logging.WARNING)
    assert warning == (
        f"Download of {NAME} interrupted at {kept / 1e6:.1f} MB (the connection dropped before "
        "the end of the file); continuing in 0 s (attempt 2 of 5)"
    )
    assert result.resumed_from == 0  # this call started from nothing


async def test_an_interrupted_download_continues_at_the_next_start(
    host: ModelHostStandIn,
    session: aiohttp.ClientSession,
    gguf_bytes: bytes,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    cut = 300_000
    host.cut_once[NAME] = cut
    target = tmp_path / NAME
    with pytest.raises(DownloadError) as caught:
        await download_file(session, host.url(NAME), target, attempts=1)
    kept = (tmp_path / f"{NAME}.part").stat().st_size
    assert 0 < kept <= cut
    assert caught.value.code == "interrupted"
    assert caught.value.message == (
        f"{NAME}: the connection dropped before the end of the file after 1 attempts; "
        f"{kept / 1e6:.1f} MB are kept in {NAME}.part and the next start continues from there"
    )
    assert not target.exists()

    result = await download_file(  # the app starts again
        session, host.url(NAME), target, sha256=hashlib.sha256(gguf_bytes).hexdigest()
    )
    assert result.resumed_from == kept
    assert target.read_bytes() == gguf_bytes
    assert host.requests[-1] == ServedRequest(NAME, f"bytes={kept}-")
    resumed = f"Resuming {NAME} at {kept / 1e6:.1f} MB of {len(gguf_bytes) / 1e6:.1f} MB"
    assert resumed in log_lines(caplog)


async def test_a_checksum_mismatch_leaves_no_file(
    host: ModelHostStandIn, session: aiohttp.ClientSession, tmp_path: Path
) -> None:
    target = tmp_path / NAME
    with pytest.raises(DownloadError) as caught:
        await download_file(session, host.url(NAME), target, sha256="0" * 64)
    assert caught.value.code == "checksum_mismatch"
    assert caught.value.message.startswith(f"{NAME}: SHA-256 is ")
    assert caught.value.message.endswith(
        f"expected {'0' * 64}; the downloaded file was removed "
        "(check the URL and the checksum in the options)"
    )
    assert not [*tmp_path.iterdir()]  # noqa: ASYNC240


async def test_not_enough_disk_is_refused_before_downloading(
    host: ModelHostStandIn, session: aiohttp.ClientSession, tmp_path: Path
) -> None:
    free = shutil.disk_usage(tmp_path).free
    host.announce["huge.gguf"] = free + 10**9  # announced, never sent
    with pytest.raises(DownloadError) as caught:
        await download_file(session, host.url("huge.gguf"), tmp_path / "huge.gguf")
    assert caught.value.code == "not_enough_disk"
    assert caught.value.message.startswith(
        f"huge.gguf needs {(free + 10**9) / 1e6:.0f} MB (plus 64 MB to spare) but {tmp_path} has "
    )
    assert caught.value.message.endswith("MB free; free some space or choose a smaller model")
    assert not [*tmp_path.iterdir()]  # noqa: ASYNC240  (not even a .part file)


async def test_a_missing_file_is_a_clear_error(
    host: ModelHostStandIn, session: aiohttp.ClientSession, tmp_path: Path
) -> None:
    with pytest.raises(DownloadError) as caught:
        await download_file(session, host.url("nope.gguf"), tmp_path / "nope.gguf")
    assert caught.value.code == "not_found"
    assert caught.value.message == f"nope.gguf: {host.url('nope.gguf')} does not exist (HTTP 404)"


async def test_the_chosen_quantization_comes_from_the_catalogue_via_a_mirror(
    host: ModelHostStandIn, session: aiohttp.ClientSession, gguf_bytes: bytes, tmp_path: Path
) -> None:
    plan = plan_model(
        model_settings(model_mirror=host.url()), tmp_path / "models", tmp_path / "data"
    )
    assert plan.url == host.url(NAME)  # the mirror replaces the Hugging Face base address
    path = await ensure_model(plan, session=session, offline=False, progress_interval_s=60)
    assert path == tmp_path / "models" / NAME
    assert path.read_bytes() == gguf_bytes


def test_the_catalogue_points_at_hugging_face_by_default(tmp_path: Path) -> None:
    plans = {
        choice: plan_model(model_settings(model=choice), tmp_path, tmp_path)
        for choice in ("Q8_0", "Q4_K_M", "BF16")
    }
    assert {c: p.path.name for c, p in plans.items()} == {
        "Q8_0": "BotPsy-0.8B-Q8_0.gguf",
        "Q4_K_M": "BotPsy-0.8B-Q4_K_M.gguf",
        "BF16": "BotPsy-0.8B-BF16.gguf",
    }
    assert all(p.url and p.url.startswith("https://huggingface.co/") for p in plans.values())
    assert [p.approx_bytes for p in plans.values()] == [810_000_000, 530_000_000, 1_520_000_000]


async def test_offline_uses_a_file_already_there_and_never_asks_the_network(
    host: ModelHostStandIn, gguf_bytes: bytes, tmp_path: Path
) -> None:
    models = tmp_path / "models"
    models.mkdir()
    (models / NAME).write_bytes(gguf_bytes)
    plan = plan_model(model_settings(offline=True, model_mirror=host.url()), models, tmp_path)
    assert await ensure_model(plan, session=None, offline=True) == models / NAME
    assert host.requests == []


async def test_offline_without_the_file_says_what_to_do(tmp_path: Path) -> None:
    plan = plan_model(model_settings(offline=True), tmp_path / "models", tmp_path)
    with pytest.raises(DownloadError) as caught:
        await ensure_model(plan, session=None, offline=True)
    assert caught.value.code == "offline_missing"
    assert caught.value.message == (
        f"offline is on and {NAME} is not in {tmp_path / 'models'}; copy the file into the "
        "models folder of the app's config folder, or turn offline off"
    )


async def test_switching_quantization_keeps_old_files_until_asked(
    gguf_bytes: bytes, tmp_path: Path
) -> None:
    models = tmp_path / "models"
    models.mkdir()
    for choice in (ModelChoice.Q8_0, ModelChoice.Q4_K_M):
        (models / CATALOG[choice].file_name).write_bytes(gguf_bytes)
    (models / "BotPsy-0.8B-BF16.gguf.part").write_bytes(b"GGUF")
    (models / "notes.txt").write_text("mine")

    plan = plan_model(model_settings(model="Q4_K_M"), models, tmp_path / "data")
    path = await ensure_model(plan, session=None, offline=True)
    assert path.name == "BotPsy-0.8B-Q4_K_M.gguf"
    assert (models / NAME).exists()  # the previous choice is still there

    assert [p.name for p in other_models(models, path)] == [
        "BotPsy-0.8B-BF16.gguf.part",
        "BotPsy-0.8B-Q8_0.gguf",
    ]
    removed = remove_other_models(models, path)
    assert [p.name for p in removed] == ["BotPsy-0.8B-BF16.gguf.part", "BotPsy-0.8B-Q8_0.gguf"]
    assert sorted(p.name for p in models.iterdir()) == [
        "BotPsy-0.8B-Q4_K_M.gguf",  # its check and pin are in the data folder (issue 25)
        "notes.txt",
    ]


async def test_a_custom_file_with_a_checksum_is_checked_once(
    gguf_bytes: bytes, tmp_path: Path
) -> None:
    custom = tmp_path / "share" / "mine.gguf"
    custom.parent.mkdir()
    custom.write_bytes(gguf_bytes)
    digest = hashlib.sha256(gguf_bytes).hexdigest()
    settings = model_settings(
        model="custom", custom_model="/share/mine.gguf", custom_model_sha256=digest
    )
    plan = plan_model(settings, tmp_path / "models", tmp_path / "data")
    plan = replace(plan, path=custom)  # the test's /share is a temporary folder
    assert await ensure_model(plan, session=None, offline=False) == custom
    notes = json.loads((tmp_path / "data" / "model_checks.json").read_text())
    assert notes[str(custom)]["sha256"] == digest
    assert not custom.with_name("mine.gguf.sha256").exists()  # nothing beside the user's file

    custom.write_bytes(gguf_bytes[:-1] + b"\0")  # damaged later: the note no longer fits
    with pytest.raises(DownloadError) as caught:
        await ensure_model(plan, session=None, offline=False)
    assert caught.value.code == "checksum_mismatch"
    assert caught.value.message.startswith(f"{custom} has SHA-256 ")


async def test_a_missing_custom_file_and_a_non_gguf_download_are_clear_errors(
    host: ModelHostStandIn, session: aiohttp.ClientSession, tmp_path: Path
) -> None:
    plan = plan_model(
        model_settings(model="custom", custom_model="/share/absent.gguf"), tmp_path, tmp_path
    )
    with pytest.raises(DownloadError) as caught:
        await ensure_model(plan, session=None, offline=False)
    assert caught.value.code == "custom_missing"
    assert caught.value.message == (
        "custom_model: /share/absent.gguf does not exist; copy the file there or fix the path"
    )

    host.files["page.gguf"] = b"<!doctype html><title>Sign in</title>"
    plan = plan_model(
        model_settings(model="custom", custom_model=host.url("page.gguf")),
        tmp_path / "models",
        tmp_path / "data",
    )
    with pytest.raises(DownloadError) as caught:
        await ensure_model(plan, session=session, offline=False)
    assert caught.value.code == "not_gguf"
    assert "a wrong URL often gives an HTML page instead" in caught.value.message
    assert list((tmp_path / "models").iterdir()) == []


def test_models_command_lists_and_removes_only_when_asked(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    config = tmp_path / "config"
    models = config / "models"
    models.mkdir(parents=True)
    for name in ("BotPsy-0.8B-Q8_0.gguf", "BotPsy-0.8B-Q4_K_M.gguf"):
        (models / name).write_bytes(b"GGUF" + b"\0" * 16)
    options = tmp_path / "options.json"
    options.write_text(json.dumps({"model": "Q4_K_M"}))
    env = {**os.environ, "BOTPSY_CONFIG_DIR": str(config), "BOTPSY_DATA_DIR": str(tmp_path)}

    def models_command(*extra: str) -> str:
        result = subprocess.run(
            [sys.executable, "-m", "botpsy_agent", "models", "--options", str(options), *extra],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
            check=True,
        )
        return result.stdout

    listed = models_command()
    assert "chosen:" in listed and "BotPsy-0.8B-Q4_K_M.gguf (present)" in listed
    assert "other:" in listed and "Q8_0" in listed
    assert (models / "BotPsy-0.8B-Q8_0.gguf").exists()  # listing deletes nothing
    removed = models_command("--remove-others")
    assert "removed:" in removed
    assert not (models / "BotPsy-0.8B-Q8_0.gguf").exists()
    assert (models / "BotPsy-0.8B-Q4_K_M.gguf").exists()

    # The pins are in the data folder, out of Samba's reach: an admin unpins in the terminal.
    pins = tmp_path / "model_pins.json"
    pins.write_text(json.dumps({"BotPsy-0.8B-Q4_K_M.gguf": "ab" * 32, "other.gguf": "cd" * 32}))
    assert "unpinned: BotPsy-0.8B-Q4_K_M.gguf" in models_command("--unpin")
    assert json.loads(pins.read_text()) == {"other.gguf": "cd" * 32}
    assert "not pinned: BotPsy-0.8B-Q4_K_M.gguf" in models_command("--unpin")
