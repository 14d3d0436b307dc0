"""The models folder: which file the options ask for, getting it, and tidying up.

Models live in the app config folder's `models/` (the user sees it as
`addon_configs/<id>_botpsy/models/`), which backups skip. Choosing another quantization in
the options uses that file at the next start (downloaded if needed); the previous file
stays until the user asks for it to be removed (`remove_other_models`), so switching back
costs nothing.

A checked file gets a small `<file>.sha256` note (hash, size, modification time), so a
later start does not read a gigabyte again to check it.

Downloaded files are pinned (issue 18, finding 8): where the catalogue has no published
SHA-256, the hash of the first verified copy is recorded in `model_pins.json` beside the
models, and a file of that name with another hash is refused from then on, downloaded or
found in the folder. Deleting the pin accepts a new file on purpose.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
import json
import logging
from pathlib import Path
from typing import Final

import aiohttp

from botpsy_agent.app.config import ModelChoice, ModelSettings, model_file_name
from botpsy_agent.weights.catalog import CATALOG
from botpsy_agent.weights.download import (
    MB,
    DownloadError,
    ProgressCallback,
    download_file,
    sha256_of,
)

_LOGGER = logging.getLogger(__name__)

GGUF_MAGIC: Final = b"GGUF"
NOTE_SUFFIX: Final = ".sha256"
MODEL_SUFFIXES: Final = (".gguf", ".gguf.part", ".gguf.sha256")
PINS_FILE: Final = "model_pins.json"


@dataclass(frozen=True)
class ModelPlan:
    """Where the model file is (or will be), and where it comes from."""

    path: Path
    url: str | None
    """None: a file the user provides; it is never downloaded."""
    sha256: str | None
    approx_bytes: int | None
    label: str

    @property
    def pins(self) -> Path | None:
        """Where the first verified hash is kept: downloaded files only (a file the user
        provides is theirs; `custom_model_sha256` checks it)."""
        return None if self.url is None else self.path.parent / PINS_FILE


def plan_model(settings: ModelSettings, models_dir: Path) -> ModelPlan:
    """The file the options ask for (pure: nothing is read or fetched)."""
    if settings.choice is not ModelChoice.CUSTOM:
        entry = CATALOG[settings.choice]
        return ModelPlan(
            path=models_dir / entry.file_name,
            url=entry.url(settings.mirror),
            sha256=entry.sha256,
            approx_bytes=entry.approx_bytes,
            label=f"BotPsy-0.8B {entry.choice.value}",
        )
    source = settings.custom_source
    if source is None:
        raise ValueError("a custom model needs custom_source")
    if "://" in source:
        name = model_file_name(source)  # decoded, then checked: never a path
        return ModelPlan(models_dir / name, source, settings.sha256, None, f"custom model {name}")
    path = Path(source)
    return ModelPlan(path, None, settings.sha256, None, f"custom model {path.name}")


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
            f"{plan.pins}: the source now serves another file under this name. Delete its "
            "line there only if you trust the new file",
        ) from None
    try:
        _check_magic(plan.path)
    except DownloadError:
        plan.path.unlink(missing_ok=True)
        raise
    _write_note(plan.path, result.sha256)
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
    mtime) spares the hashing at later starts."""
    _check_magic(plan.path)
    if expected is None and plan.pins is None:
        return  # the user's own file, no checksum given: its magic is all we can check
    noted = _noted_digest(plan.path)
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
        _write_note(plan.path, digest)
    _pin(plan, digest)


def _pinned(plan: ModelPlan) -> str | None:
    """The first verified hash of this file name, if one was recorded."""
    pins = _read_pins(plan.pins)
    return pins.get(plan.path.name)


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
    """Record the first verified hash (written whole, then renamed into place)."""
    if plan.pins is None or plan.sha256 is not None:
        return
    pins = _read_pins(plan.pins)
    if pins.get(plan.path.name) == digest:
        return
    pins[plan.path.name] = digest
    part = plan.pins.with_name(plan.pins.name + ".tmp")
    part.write_text(json.dumps(pins, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    part.replace(plan.pins)
    _LOGGER.info("Pinned %s to SHA-256 %s (its first verified copy)", plan.path.name, digest)


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


def _write_note(path: Path, digest: str) -> None:
    stat = path.stat()
    _note_path(path).write_text(f"{digest} {stat.st_size} {stat.st_mtime_ns}\n", encoding="utf-8")


def _noted_digest(path: Path) -> str | None:
    """The hash the note records, if the file still has the noted size and mtime."""
    try:
        recorded = _note_path(path).read_text(encoding="utf-8").split()
    except OSError:
        return None
    stat = path.stat()
    if len(recorded) != 3 or recorded[1:] != [str(stat.st_size), str(stat.st_mtime_ns)]:
        return None
    return recorded[0]


def other_models(models_dir: Path, keep: Path) -> list[Path]:
    """Model files (and partial downloads) in `models_dir` other than `keep` and its note."""
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
