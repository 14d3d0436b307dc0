"""The published BotPsy-0.8B model files, and where to get them.

The vendor publishes the model as GGUF files on Hugging Face in three quantizations.
Sizes are the vendor's approximate figures; they are used for the disk check when a server
gives no length, and for memory estimates. No SHA-256 sums were published where we could
read them, so `sha256` is None for every file: the download then checks the length only
(and says so in the log). When sums are published, put them here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from botpsy_agent.weights.options import ModelChoice

HUGGING_FACE_REVISION: Final = "main"
HUGGING_FACE_BASE_URL: Final = (
    f"https://huggingface.co/qvac/BotPsy-0.8B-GGUF/resolve/{HUGGING_FACE_REVISION}/"
)
"""Where the files are fetched from; the `model_mirror` option replaces it."""


@dataclass(frozen=True)
class ModelFile:
    """One published model file."""

    choice: ModelChoice
    file_name: str
    approx_bytes: int
    sha256: str | None
    """Lower-case hex SHA-256, or None when not published (then the first verified copy's
    hash is pinned)."""
    note: str

    def url(self, base_url: str | None = None) -> str:
        """The file's address under `base_url` (default: the vendor's Hugging Face repo)."""
        return (base_url or HUGGING_FACE_BASE_URL).rstrip("/") + "/" + self.file_name


CATALOG: Final[dict[ModelChoice, ModelFile]] = {
    ModelChoice.Q8_0: ModelFile(
        ModelChoice.Q8_0,
        "BotPsy-0.8B-Q8_0.gguf",
        810_000_000,
        None,
        "recommended: close to the full model's quality",
    ),
    ModelChoice.Q4_K_M: ModelFile(
        ModelChoice.Q4_K_M,
        "BotPsy-0.8B-Q4_K_M.gguf",
        530_000_000,
        None,
        "smaller and faster, slightly less accurate",
    ),
    ModelChoice.BF16: ModelFile(
        ModelChoice.BF16,
        "BotPsy-0.8B-BF16.gguf",
        1_520_000_000,
        None,
        "full precision; slow on CPUs without BF16 instructions",
    ),
}
