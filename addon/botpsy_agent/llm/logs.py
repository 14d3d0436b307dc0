"""llama.cpp's own log lines go to Python logging (debug), not straight to stderr."""

from __future__ import annotations

import ctypes
import logging
from typing import Any

_log_callback: Any = None


def route_llama_logs() -> None:
    """Send llama.cpp's own log lines to Python logging (debug), not straight to stderr."""
    global _log_callback  # noqa: PLW0603 - one C callback for the process, kept alive here
    if _log_callback is not None:
        return
    import llama_cpp

    @llama_cpp.llama_log_callback  # type: ignore[untyped-decorator]
    def _callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        message = text.decode("utf-8", errors="replace").rstrip()
        if message:
            logging.getLogger("llama_cpp").debug("%s", message)

    _log_callback = _callback
    llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))
