"""Model management: the model options' types (`options`), the catalogue of published files,
downloading, the models folder."""

from botpsy_agent.weights.catalog import CATALOG, HUGGING_FACE_BASE_URL, ModelFile
from botpsy_agent.weights.download import (
    MB,
    Downloaded,
    DownloadError,
    DownloadProgress,
    download_file,
)
from botpsy_agent.weights.options import ModelChoice, ModelSettings, model_file_name
from botpsy_agent.weights.store import (
    ModelPlan,
    ensure_model,
    other_models,
    plan_model,
    remove_other_models,
    unpin,
)

__all__ = [
    "CATALOG",
    "HUGGING_FACE_BASE_URL",
    "MB",
    "DownloadError",
    "DownloadProgress",
    "Downloaded",
    "ModelChoice",
    "ModelFile",
    "ModelPlan",
    "ModelSettings",
    "download_file",
    "ensure_model",
    "model_file_name",
    "other_models",
    "plan_model",
    "remove_other_models",
    "unpin",
]
