"""The model options' types: which published file or the user's own, where it comes from,
and how it runs; and the file name a model URL is saved under. The app's options fill them
(`app.config`); the models folder reads them (`store`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit


class ModelChoice(StrEnum):
    """The model file to run: one of the published quantizations, or the user's own."""

    Q8_0 = "Q8_0"
    Q4_K_M = "Q4_K_M"
    BF16 = "BF16"
    CUSTOM = "custom"


@dataclass(frozen=True)
class ModelSettings:
    """Which model file, where it comes from, and how it runs."""

    choice: ModelChoice
    custom_source: str | None
    """`custom` only: an http(s) URL or an absolute path of a `.gguf` file."""
    sha256: str | None
    """Expected SHA-256 (lower case) of a custom file; None = not checked."""
    mirror: str | None
    """Base URL that replaces the catalogue's Hugging Face address (a mirror or proxy)."""
    offline: bool
    """Never download: use a file already in the models folder, or stop with a clear error."""
    threads: int | None
    """None = automatic (the CPUs this container may use)."""
    context_length: int
    thinking_budget: int
    """Tokens the model may think before answering; 0 = thinking off."""
    snapshot_disk_mb: int = 256
    """Disk space for prefix snapshots kept across restarts; 0 = none kept."""


def model_file_name(url: str) -> str:
    """The file name a model URL is saved under, checked *after* URL-decoding (issue 18,
    finding 8: `..%2F..%2Fdata%2Fevil.gguf` decoded to a path outside the models folder).
    Raises ValueError when the decoded name is not one plain `.gguf` file name."""
    raw = PurePosixPath(urlsplit(url).path).name
    name = unquote(raw)
    if (
        not name
        or name in {".", ".."}
        or any(c in name for c in "/\\\0")
        or name.startswith(".")
        or not name.isprintable()
    ):
        raise ValueError(f"the file name {raw!r} decodes to {name!r}, not a plain file name")
    if not name.endswith(".gguf"):
        raise ValueError("must name a .gguf file")
    return name
