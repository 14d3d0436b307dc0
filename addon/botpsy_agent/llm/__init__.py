"""The model runtime: llama.cpp in-process or llama.cpp's own server, behind one `Engine`
protocol (DESIGN.md #9). Nothing about llama-cpp-python leaks past this package.

This face is the app's, and lazy (`botpsy_agent.lazy_face`), so that llama.cpp loads only
where the app runs a model. The agent reads of the model only `llm/planning.py` (the offer,
the plan request, the planner's turn, the `Planner` protocol, `PlanError`), from that
module."""

from typing import TYPE_CHECKING

from botpsy_agent import lazy_face

if TYPE_CHECKING:
    from botpsy_agent.llm.context import (
        AUTOMATIC,
        ContextSize,
        PromptMeasure,
        available_memory,
        choose_context,
        log_choice,
        measure_prompt,
        prefix_of,
        request_room,
    )
    from botpsy_agent.llm.engine import Engine, EngineError
    from botpsy_agent.llm.llama_cpp import EngineSettings, LlamaEngine
    from botpsy_agent.llm.llama_server import ServerSettings, key_safe_over
    from botpsy_agent.llm.llm_planner import LlmPlanner
    from botpsy_agent.llm.model_info import ModelFileError, read_model_info
    from botpsy_agent.llm.routing import SERVER_PROBE_INTERVAL_S
    from botpsy_agent.llm.watchdog import HANG_GRACE_S, WATCHDOG_INTERVAL_S, WorkerWatchdog
    from botpsy_agent.llm.worker import (
        ModelBusy,
        ModelTimeout,
        ModelUnavailable,
        ModelWarmingUp,
        ModelWorker,
        ModelWorkerError,
        model_stats,
    )
__all__ = [
    "AUTOMATIC",
    "HANG_GRACE_S",
    "SERVER_PROBE_INTERVAL_S",
    "WATCHDOG_INTERVAL_S",
    "ContextSize",
    "Engine",
    "EngineError",
    "EngineSettings",
    "LlamaEngine",
    "LlmPlanner",
    "ModelBusy",
    "ModelFileError",
    "ModelTimeout",
    "ModelUnavailable",
    "ModelWarmingUp",
    "ModelWorker",
    "ModelWorkerError",
    "PromptMeasure",
    "ServerSettings",
    "WorkerWatchdog",
    "available_memory",
    "choose_context",
    "key_safe_over",
    "log_choice",
    "measure_prompt",
    "model_stats",
    "prefix_of",
    "read_model_info",
    "request_room",
]

__getattr__ = lazy_face(
    __name__,
    {
        "AUTOMATIC": "context",
        "ContextSize": "context",
        "PromptMeasure": "context",
        "available_memory": "context",
        "choose_context": "context",
        "log_choice": "context",
        "measure_prompt": "context",
        "prefix_of": "context",
        "request_room": "context",
        "Engine": "engine",
        "EngineError": "engine",
        "EngineSettings": "llama_cpp",
        "LlamaEngine": "llama_cpp",
        "ServerSettings": "llama_server",
        "key_safe_over": "llama_server",
        "LlmPlanner": "llm_planner",
        "ModelFileError": "model_info",
        "read_model_info": "model_info",
        "SERVER_PROBE_INTERVAL_S": "routing",
        "HANG_GRACE_S": "watchdog",
        "WATCHDOG_INTERVAL_S": "watchdog",
        "WorkerWatchdog": "watchdog",
        "ModelBusy": "worker",
        "ModelTimeout": "worker",
        "ModelUnavailable": "worker",
        "ModelWarmingUp": "worker",
        "ModelWorker": "worker",
        "ModelWorkerError": "worker",
        "model_stats": "worker",
    },
)
