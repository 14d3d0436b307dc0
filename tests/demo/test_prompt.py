"""The demo's prompt on real pipes and files: whole lines however the bytes arrive, the end
of input, and a wait that Ctrl-C (a cancellation) ends without leaving a reader behind."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
import contextlib
import os
from pathlib import Path

import pytest

from demo.prompt import Prompt


@contextlib.contextmanager
def pipe() -> Iterator[tuple[int, int]]:
    read_end, write_end = os.pipe()
    try:
        yield read_end, write_end
    finally:
        for fd in (read_end, write_end):
            with contextlib.suppress(OSError):
                os.close(fd)


def test_lines_written_at_once_are_read_one_by_one_then_the_end() -> None:
    async def read_all(fd: int) -> list[str]:
        prompt = Prompt(fd)
        lines = []
        with contextlib.suppress(EOFError):
            while True:
                lines.append(await prompt.ask("> "))
        return lines

    with pipe() as (read_end, write_end):
        os.write(write_end, b"turn on the kitchen light\n/user child\nlast without newline")
        os.close(write_end)
        assert asyncio.run(read_all(read_end)) == [
            "turn on the kitchen light",
            "/user child",
            "last without newline",
        ]


def test_a_character_split_over_two_writes_is_one_line() -> None:
    word = "Küche".encode()
    split = word.index(b"\xc3") + 1  # between the two bytes of "ü"

    async def read_one(read_end: int, write_end: int) -> str:
        prompt = Prompt(read_end)
        asking = asyncio.ensure_future(prompt.ask("> "))
        os.write(write_end, word[:split])
        await asyncio.sleep(0.05)
        os.write(write_end, word[split:] + b"\n")
        return await asking

    with pipe() as (read_end, write_end):
        assert asyncio.run(read_one(read_end, write_end)) == "Küche"


def test_a_file_as_input_is_read_too(tmp_path: Path) -> None:
    script = tmp_path / "requests.txt"
    script.write_text("is the front door locked?\n")

    async def read(fd: int) -> tuple[str, bool]:
        prompt = Prompt(fd)
        first = await prompt.ask("> ")
        try:
            await prompt.ask("> ")
        except EOFError:
            return first, True
        return first, False

    with script.open("rb") as file:
        assert asyncio.run(read(file.fileno())) == ("is the front door locked?", True)


def test_a_cancelled_wait_leaves_no_reader_and_the_input_open() -> None:
    async def cancel_then_read(read_end: int, write_end: int) -> tuple[bool, str]:
        prompt = Prompt(read_end)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(prompt.ask("> "), timeout=0.05)
        still_watched = asyncio.get_running_loop().remove_reader(read_end)
        os.write(write_end, b"/quit\n")
        return still_watched, await prompt.ask("> ")

    with pipe() as (read_end, write_end):
        assert asyncio.run(cancel_then_read(read_end, write_end)) == (False, "/quit")
