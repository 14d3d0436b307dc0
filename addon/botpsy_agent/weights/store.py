"""The models folder: which file the options ask for, getting it, and tidying up.

Models live in the app config folder's `models/` (the user sees it as
`addon_configs/<id>_botpsy/models/`), which backups skip. Choosing another quantization in
the options uses that file at the next start (downloaded if needed); the previous file
stays until the user asks for it to be removed (`remove_other_models`), so switching back
costs nothing.

A checked file gets a note (hash, size, modification and inode change times) in
`model_checks.json`, so a later start does not read a gigabyte again to check it.

Downloaded files are pinned (issue 18, finding 8): where the catalogue has no published
SHA-256, the hash of the first verified copy is recorded in `model_pins.json`, and a file of
that name with another hash is refused from then on, downloaded or found in the folder.
Deleting the pin accepts a new file on purpose.

Notes and pins live in the app's data folder (`/data`), never beside the models (issue 25,
finding 8): the models folder is reachable through Samba and the file editor, so whoever
could swap a file there could also write the note that vouched for it. A note is believed
only while the file's inode change time is the noted one: a client can set a file's
modification time back after swapping its bytes, but not its change time.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
import json
import logging
from pathlib import Path
from typing import Final

import aiohttp

from botpsy_agent.weights.catalog import CATALOG
from botpsy_agent.weights.download import (
    MB,
    DownloadError,
    ProgressCallback,
    download_file,
    sha256_of,
)
from botpsy_agent.weights.options import ModelChoice, ModelSettings, model_file_name

_LOGGER = logging.getLogger(__name__)

GGUF_MAGIC: Final = b"GGUF"
NOTE_SUFFIX: Final = ".sha256"
"""The note beside a model of earlier versions: never read any more, removed when seen."""
MODEL_SUFFIXES: Final = (".gguf", ".gguf.part", ".gguf.sha256")
PINS_FILE: Final = "model_pins.json"
NOTES_FILE: Final = "model_checks.json"


@dataclass(frozen=True)
class ModelPlan:
    """Where the model file is (or will be), and where it comes from."""

    path: Path
    url: str | None
    """None: a file the user provides; it is never downloaded."""
    sha256: str | None
    approx_bytes: int | None
    label: str
    records: Path
    """The app's own folder for notes and pins (`/data`): not the models folder."""

    @property
    def pins(self) -> Path | None:
        """Where the first verified hash is kept: downloaded files only (a file the user
        provides is theirs; `custom_model_sha256` checks it)."""
        return None if self.url is None else self.records / PINS_FILE

    @property
    def notes(self) -> Path:
        return self.records / NOTES_FILE


def plan_model(settings: ModelSettings, models_dir: Path, records: Path) -> ModelPlan:
    """The file the options ask for (pure: nothing is read or fetched). `records` is the
    app's data folder, where the checks of model files are kept."""
    if settings.choice is not ModelChoice.CUSTOM:
        entry = CATALOG[settings.choice]
        return ModelPlan(
            path=models_dir / entry.file_name,
            url=entry.url(settings.mirror),
            sha256=entry.sha256,
            approx_bytes=entry.approx_bytes,
            label=f"BotPsy-0.8B {entry.choice.value}",
            records=records,
        )
    source = settings.custom_source
    if source is None:
        raise ValueError("a custom model needs custom_source")
    if "://" in source:
        name = model_file_name(source)  # decoded, then checked: never a path
        label = f"custom model {name}"
        return ModelPlan(models_dir / name, source, settings.sha256, None, label, records)
    path = Path(source)
    return ModelPlan(path, None, settings.sha256, None, f"custom model {path.name}", records)


async def ensure_model(
    plan: ModelPlan,
    *,
    session: aiohttp.ClientSession | None,
    offline: bool,
    on_progress: ProgressCallback | None = None,
    progress_interval_s: float = 5.0,
    attempts: int = 5,
    retry_delay_s: float = 2.0,
) -> Path:
    """The model file, present and checked: downloaded when missing, unless offline.

    Raises `DownloadError` with a code: `offline_missing`, `custom_missing`,
    `checksum_mismatch`, `not_gguf`, `not_enough_disk`, `interrupted`, `not_found`, ...
    """
    _move_old_pins(plan)
    expected = plan.sha256 or _pinned(plan)
    if plan.path.exists():
        await _check_present(plan, expected)
        _LOGGER.info("Using %s (%s)", plan.path, plan.label)
        return plan.path
    if plan.url is None:
        raise DownloadError(
            "custom_missing",
            f"custom_model: {plan.path} does not exist; copy the file there or fix the path",
        )
    if offline:
        raise DownloadError(
            "offline_missing",
            f"offline is on and {plan.path.name} is not in {plan.path.parent}; copy the file "
            "into the models folder of the app's config folder, or turn offline off",
        )
    if session is None:
        raise ValueError("downloading needs an aiohttp session")
    try:
        result = await download_file(
            session,
            plan.url,
            plan.path,
            sha256=expected,
            size_hint=plan.approx_bytes,
            attempts=attempts,
            retry_delay_s=retry_delay_s,
            progress_interval_s=progress_interval_s,
            on_progress=on_progress,
        )
    except DownloadError as err:
        if err.code != "checksum_mismatch" or plan.sha256 is not None:
            raise
        raise DownloadError(
            "checksum_mismatch",
            f"{err.message}. The expected hash is the first verified copy's, pinned in "
            f"{plan.pins}: the source now serves another file under this name. Only if you "
            "trust the new file, run 'botpsy-agent models --unpin' in the app's terminal",
        ) from None
    try:
        _check_magic(plan.path)
    except DownloadError:
        plan.path.unlink(missing_ok=True)
        raise
    _write_note(plan, result.sha256, _file_identity(plan.path))
    _pin(plan, result.sha256)
    _LOGGER.info(
        "Downloaded %s: %.0f MB in %.0f s (SHA-256 %s)",
        plan.path.name,
        result.size / MB,
        result.seconds,
        result.sha256,
    )
    return plan.path


async def _check_present(plan: ModelPlan, expected: str | None) -> None:
    """A file already there: a GGUF, with the expected (published or pinned) SHA-256. A
    downloadable file without either is hashed once and pinned. The note (hash, size,
    times) spares the hashing at later starts."""
    _check_magic(plan.path)
    if expected is None and plan.pins is None:
        return  # the user's own file, no checksum given: its magic is all we can check
    _forget_old_note(plan)
    identity = _file_identity(plan.path)  # before reading: a change while hashing shows
    noted = _noted_digest(plan, identity)
    if noted is not None and (expected is None or noted == expected):
        digest = noted
    else:
        _LOGGER.info("Checking the SHA-256 of %s", plan.path.name)
        digest = await asyncio.to_thread(sha256_of, plan.path)
    if expected is not None and digest != expected:
        source = "expected" if plan.sha256 else "the first verified copy had"
        raise DownloadError(
            "checksum_mismatch",
            f"{plan.path} has SHA-256 {digest}, {source} {expected}; it may be damaged or "
            "another version: delete it (it is downloaded again) or correct the checksum",
        )
    if digest != noted:
        _write_note(plan, digest, identity)
    _pin(plan, digest)


def _pinned(plan: ModelPlan) -> str | None:
    """The first verified hash of this file name, if one was recorded."""
    pins = _read_pins(plan.pins)
    return pins.get(plan.path.name)


def _move_old_pins(plan: ModelPlan) -> None:
    """Earlier versions kept the pins beside the models: moved into the app's folder once
    (they are what was trusted until now), and never read there again."""
    if plan.pins is None:
        return
    old = plan.path.parent / PINS_FILE
    if old == plan.pins or not old.exists():
        return
    if not plan.pins.exists():
        _write_json(plan.pins, _read_pins(old))
        _LOGGER.info("Moved the model pins from %s to %s", old, plan.pins)
    old.unlink()


def _read_pins(path: Path | None) -> dict[str, str]:
    if path is None:
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:  # never start with the pins unreadable
        raise DownloadError(
            "bad_pins",
            f"{path} cannot be read ({err}); fix or delete it (deleting accepts the next file)",
        ) from None
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise DownloadError("bad_pins", f"{path} is not a JSON object of file names to hashes")
    return data


def _pin(plan: ModelPlan, digest: str) -> None:
    """Record the first verified hash."""
    if plan.pins is None or plan.sha256 is not None:
        return
    pins = _read_pins(plan.pins)
    if pins.get(plan.path.name) == digest:
        return
    pins[plan.path.name] = digest
    _write_json(plan.pins, pins)
    _LOGGER.info("Pinned %s to SHA-256 %s (its first verified copy)", plan.path.name, digest)


def unpin(plan: ModelPlan) -> bool:
    """Forget the file's pinned hash (an admin, in the app's terminal, who trusts a new
    file); whether there was one."""
    pins = _read_pins(plan.pins)
    if plan.pins is None or pins.pop(plan.path.name, None) is None:
        return False
    _write_json(plan.pins, pins)
    _LOGGER.info("Unpinned %s", plan.path.name)
    return True


def _write_json(path: Path, data: object) -> None:
    """Written whole, then renamed into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".tmp")
    part.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    part.replace(path)


def _check_magic(path: Path) -> None:
    with path.open("rb") as file:
        head = file.read(len(GGUF_MAGIC))
    if head != GGUF_MAGIC:
        raise DownloadError(
            "not_gguf",
            f"{path} is not a GGUF model file (it starts with {head!r}); "
            "a wrong URL often gives an HTML page instead",
        )


def _note_path(path: Path) -> Path:
    return path.with_name(path.name + NOTE_SUFFIX)


def _forget_old_note(plan: ModelPlan) -> None:
    """Earlier versions kept the note beside a downloaded model, where anyone who can
    write the models folder can write it too. It is never read; it is removed."""
    if plan.url is not None:
        _note_path(plan.path).unlink(missing_ok=True)


def _file_identity(path: Path) -> list[int]:
    """What changes when the file's bytes do: size, modification and inode change times,
    inode. The change time cannot be set back by a client (only the clock sets it)."""
    stat = path.stat()
    return [stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino]


def _read_notes(plan: ModelPlan) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(plan.notes.read_text(encoding="utf-8"))
    except OSError, ValueError:
        return {}  # a note only spares work: without one, the file is hashed again
    return data if isinstance(data, dict) else {}


def _write_note(plan: ModelPlan, digest: str, identity: list[int]) -> None:
    """`identity` is the file's as it was before it was hashed: if it changed while being
    read, the note never matches and the next start reads it again."""
    notes = _read_notes(plan)
    notes[str(plan.path)] = {"sha256": digest, "file": identity}
    _write_json(plan.notes, notes)


def _noted_digest(plan: ModelPlan, identity: list[int]) -> str | None:
    """The hash the note records, if the file is still the one noted."""
    note = _read_notes(plan).get(str(plan.path))
    if not isinstance(note, dict) or note.get("file") != identity:
        return None
    digest = note.get("sha256")
    return digest if isinstance(digest, str) else None


def other_models(models_dir: Path, keep: Path) -> list[Path]:
    """Model files (and partial downloads, notes of earlier versions) in `models_dir` other
    than `keep` and its note."""
    if not models_dir.is_dir():
        return []
    kept = {keep.name, _note_path(keep).name}
    return sorted(
        path
        for path in models_dir.iterdir()
        if path.is_file() and path.name.endswith(MODEL_SUFFIXES) and path.name not in kept
    )


def remove_other_models(models_dir: Path, keep: Path) -> list[Path]:
    """Delete the other model files (only when the user asks); returns what was removed."""
    removed = other_models(models_dir, keep)
    for path in removed:
        path.unlink(missing_ok=True)
        _LOGGER.info("Removed %s", path)
    return removed
