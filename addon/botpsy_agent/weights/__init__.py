"""Model management: the catalogue of published files, downloading, the models folder."""

from botpsy_agent.weights.catalog import CATALOG, HUGGING_FACE_BASE_URL, ModelFile
from botpsy_agent.weights.download import (
    Downloaded,
    DownloadError,
    DownloadProgress,
    download_file,
)
from botpsy_agent.weights.store import (
    ModelPlan,
    ensure_model,
    other_models,
    plan_model,
    remove_other_models,
)

__all__ = [
    "CATALOG",
    "HUGGING_FACE_BASE_URL",
    "DownloadError",
    "DownloadProgress",
    "Downloaded",
    "ModelFile",
    "ModelPlan",
    "download_file",
    "ensure_model",
    "other_models",
    "plan_model",
    "remove_other_models",
]
