"""Issue 18, finding 8: nothing proved the model file genuine. Against `ModelHostStandIn`,
the stand-in for Hugging Face's file hosting (the internet is not reachable from tests),
served over TLS with a throw-away CA, and the app's own options parser.

Each attack below succeeded on the old code: a swapped file on the host (or in the folder)
was used, an `http://` mirror was accepted, and `..%2F` in a custom URL's file name wrote
outside the models folder.

Issue 25, finding 8: the note that spared the hashing sat beside the model, in a folder
Samba and the file editor reach: a file swapped there (its time set back, or its note
rewritten) was trusted without being read."""

from __future__ import annotations

from dataclasses import replace
import hashlib
import json
import os
from pathlib import Path
import time
from typing import Any

import aiohttp
import pytest

from botpsy_agent.app.config import DEFAULT_OPTIONS, OptionsError, parse_options
from botpsy_agent.weights import DownloadError, download_file, ensure_model, plan_model
from devkit.model_host import ModelHostStandIn
from tests.weights.model_host import NAME


def options(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(json.dumps(DEFAULT_OPTIONS))
    return raw | changes


async def test_the_first_verified_hash_is_pinned_and_a_swapped_file_is_refused(
    host: ModelHostStandIn, session: aiohttp.ClientSession, gguf_bytes: bytes, tmp_path: Path
) -> None:
    models = tmp_path / "models"
    plan = plan_model(parse_options(options(model_mirror=host.url())).model, models, tmp_path)
    assert plan.url == host.url(NAME) and plan.url.startswith("https://")
    await ensure_model(plan, session=session, offline=False, progress_interval_s=60)
    pins = json.loads((tmp_path / "model_pins.json").read_text())
    assert pins == {NAME: hashlib.sha256(gguf_bytes).hexdigest()}

    # The host now serves another file under the same name (a compromised mirror).
    evil = gguf_bytes[:-16] + b"\x01" * 16
    host.files[NAME] = evil
    (models / NAME).unlink()
    with pytest.raises(DownloadError) as caught:
        await ensure_model(plan, session=session, offline=False, progress_interval_s=60)
    assert caught.value.code == "checksum_mismatch"
    assert "first verified" in caught.value.message
    assert not (models / NAME).exists()

    # Or someone swaps the file in the folder (same size, new time): refused at start.
    (models / NAME).write_bytes(evil)
    with pytest.raises(DownloadError) as caught:
        await ensure_model(plan, session=None, offline=True)
    assert caught.value.code == "checksum_mismatch"


async def test_a_present_file_is_hashed_once_then_trusted_by_size_and_time(
    gguf_bytes: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = tmp_path / "models"
    models.mkdir()
    (models / NAME).write_bytes(gguf_bytes)
    data = tmp_path / "data"
    plan = plan_model(parse_options(options(offline=True)).model, models, data)
    hashed: list[Path] = []
    from botpsy_agent.weights import store

    real = store.sha256_of

    def counting(path: Path) -> str:
        hashed.append(path)
        return real(path)

    monkeypatch.setattr(store, "sha256_of", counting)  # counts, then hashes for real
    for _ in range(3):
        await ensure_model(plan, session=None, offline=True)
    assert hashed == [models / NAME]  # once, then the note (size + times) answers
    assert json.loads((data / "model_pins.json").read_text()) == {
        NAME: hashlib.sha256(gguf_bytes).hexdigest()
    }
    stat = (models / NAME).stat()
    os.utime(models / NAME, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    await ensure_model(plan, session=None, offline=True)
    assert len(hashed) == 2  # touched: checked again (and still the pinned hash)


def swap_keeping_size_and_time(path: Path, evil: bytes) -> None:
    """What a Samba client can do: new bytes of the same size, the old times set back.
    Later than the check, as any swap is (the kernel's clock for change times ticks in
    milliseconds: a swap within the same tick would not be told apart)."""
    time.sleep(0.05)
    stat = path.stat()
    path.write_bytes(evil)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns


@pytest.mark.parametrize("published", [False, True])
async def test_a_file_swapped_in_the_folder_with_its_note_rewritten_is_refused(
    gguf_bytes: bytes, tmp_path: Path, published: bool
) -> None:
    """Reproduced on the old code: the swapped file passed (pinned and published hash
    alike), trusted from a note beside it that matched its size and time; the attacker
    also rewrote the note and the pins in the models folder."""
    models, data = tmp_path / "models", tmp_path / "data"
    models.mkdir()
    (models / NAME).write_bytes(gguf_bytes)
    genuine = hashlib.sha256(gguf_bytes).hexdigest()
    plan = plan_model(parse_options(options(offline=True)).model, models, data)
    if published:
        plan = replace(plan, sha256=genuine)
    await ensure_model(plan, session=None, offline=True)  # checked, noted, pinned

    evil = gguf_bytes[:-16] + b"\x01" * 16
    swap_keeping_size_and_time(models / NAME, evil)
    stat = (models / NAME).stat()
    (models / f"{NAME}.sha256").write_text(f"{genuine} {stat.st_size} {stat.st_mtime_ns}\n")
    (models / "model_pins.json").write_text(json.dumps({NAME: hashlib.sha256(evil).hexdigest()}))
    with pytest.raises(DownloadError) as caught:
        await ensure_model(plan, session=None, offline=True)
    assert caught.value.code == "checksum_mismatch"
    if not published:
        assert json.loads((data / "model_pins.json").read_text()) == {NAME: genuine}


async def test_pins_of_the_old_layout_move_to_the_data_folder_once(
    gguf_bytes: bytes, tmp_path: Path
) -> None:
    models, data = tmp_path / "models", tmp_path / "data"
    models.mkdir()
    genuine = hashlib.sha256(gguf_bytes).hexdigest()
    (models / NAME).write_bytes(gguf_bytes)
    (models / "model_pins.json").write_text(json.dumps({NAME: genuine}))
    (models / f"{NAME}.sha256").write_text(f"{genuine} 1 2\n")
    plan = plan_model(parse_options(options(offline=True)).model, models, data)
    await ensure_model(plan, session=None, offline=True)
    assert json.loads((data / "model_pins.json").read_text()) == {NAME: genuine}
    assert sorted(p.name for p in models.iterdir()) == [NAME]


@pytest.mark.parametrize(
    "option",
    [
        {"model_mirror": "http://mirror.lan/models/"},
        {"model": "custom", "custom_model": "http://files.lan/mine.gguf"},
    ],
)
def test_plain_http_sources_are_refused(option: dict[str, str]) -> None:
    with pytest.raises(OptionsError, match="https://"):
        parse_options(options(**option))


async def test_downloads_refuse_plain_http(session: aiohttp.ClientSession, tmp_path: Path) -> None:
    with pytest.raises(DownloadError) as caught:
        await download_file(session, "http://127.0.0.1:9/x.gguf", tmp_path / "x.gguf")
    assert caught.value.code == "insecure_url"


@pytest.mark.parametrize(
    "name",
    [
        "..%2F..%2Fdata%2Fevil.gguf",
        "..%2fevil.gguf",
        "%2E%2E%2Fevil.gguf",
        "sub%5Cevil.gguf",
        "evil%00.gguf",
        "%2Fetc%2Fevil.gguf",
    ],
)
def test_file_names_are_checked_after_url_decoding(name: str, tmp_path: Path) -> None:
    url = f"https://files.lan/models/{name}"
    with pytest.raises(OptionsError, match="file name"):
        parse_options(options(model="custom", custom_model=url))


def test_a_plain_encoded_name_still_works(tmp_path: Path) -> None:
    settings = parse_options(
        options(model="custom", custom_model="https://files.lan/m/My%20Model.gguf")
    ).model
    assert plan_model(settings, tmp_path, tmp_path).path == tmp_path / "My Model.gguf"
