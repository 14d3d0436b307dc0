"""llama.cpp's own log lines go to Python logging (debug), not straight to stderr."""

from __future__ import annotations

import contextlib
import ctypes
import io
import logging
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from llama_cpp import Llama

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


def open_llama(**params: Any) -> Llama:
    """A `Llama` that prints nothing and leaves the process's output alone.

    Its quiet mode (verbose=False) points file descriptors 1 and 2 at /dev/null while a model
    loads, for the whole process: other threads' log lines (the app's own, security events
    included) would be lost. So it loads verbose, with its few Python prints caught here and
    llama.cpp's own lines routed to logging, and is quiet afterwards.
    """
    from llama_cpp import Llama

    route_llama_logs()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        llm = Llama(**params, verbose=True)
    llm.verbose = False  # no timing prints after each generation
    return llm
