"""The demo's prompt: typed lines read by the event loop itself, not by a thread.

A thread blocked in `input()` keeps `asyncio.run` from returning after Ctrl-C until Enter is
pressed (it waits for its executor's threads), so the prompt reads its file descriptor only
when the loop has seen it readable, and a Ctrl-C cancels a wait that holds nothing.
"""

from __future__ import annotations

import asyncio
import os

CHUNK = 4096


class Prompt:
    """Lines from one file descriptor: a terminal, a pipe, or a file."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = b""
        self._ended = False

    async def ask(self, prompt: str) -> str:
        """The next line without its newline; EOFError when the input has ended."""
        print(prompt, end="", flush=True)
        while b"\n" not in self._buffer:
            if self._ended:
                if not self._buffer:
                    raise EOFError
                last, self._buffer = self._buffer, b""
                return last.decode(errors="replace")
            chunk = await self._read()
            self._ended = not chunk
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        # decoded a whole line at a time: a character's bytes may arrive in two reads
        return line.decode(errors="replace")

    async def _read(self) -> bytes:
        loop = asyncio.get_running_loop()
        readable: asyncio.Future[None] = loop.create_future()
        try:
            loop.add_reader(self._fd, lambda: readable.done() or readable.set_result(None))
        except PermissionError:
            # a regular file or /dev/null: epoll cannot watch it, and reading it never blocks
            return os.read(self._fd, CHUNK)
        try:
            await readable
        finally:
            loop.remove_reader(self._fd)
        return os.read(self._fd, CHUNK)
