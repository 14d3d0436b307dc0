"""Download one large file safely: resumable, checked, and never half-visible.

* The bytes go to `<name>.part` next to the target; an interrupted download (a dropped
  connection, a restart of the app) continues from there with an HTTP `Range` request.
* Before any byte is written, the length the server announces is compared with the free
  space on the target's file system.
* Progress goes to the log at most every few seconds: percent, MB, MB/s, time left.
* Only https:// addresses are fetched, and no redirect may leave https.
* When the SHA-256 is known it is compared; a mismatch removes the partial file and no file
  appears under the target name. Only a complete, checked file is renamed into place
  (`os.replace`, atomic on one file system).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
import hashlib
import logging
import os
from pathlib import Path
import re
import shutil
import time
from typing import IO, Final

import aiohttp

_LOGGER = logging.getLogger(__name__)

MB: Final = 1_000_000
CHUNK_BYTES: Final = 1 << 20
RESERVE_BYTES: Final = 64 * MB
"""Space left free after a download, so the app's other files can still be written."""
CONTENT_RANGE: Final = re.compile(r"bytes (?:(\d+)-(\d+)|\*)/(\d+|\*)")


@dataclass(frozen=True)
class DownloadProgress:
    """How far a download is, as the log line says it and HA's model-state sensor shows it."""

    name: str
    done: int
    """Bytes on disk so far (a resumed download counts the earlier bytes)."""
    total: int | None
    """Bytes of the whole file; None when the server sent no length."""
    speed: float
    """Bytes per second since the last report."""
    final: bool = False

    @property
    def percent(self) -> int | None:
        return None if not self.total else int(100 * self.done / self.total)

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the current speed; None when unknown or done."""
        if self.final or not self.total or self.speed <= 0:
            return None
        return (self.total - self.done) / self.speed

    def text(self) -> str:
        speed = f"{self.speed / MB:.1f} MB/s"
        if not self.total:
            return f"{_mb(self.done)} MB at {speed}"
        eta = self.eta_s
        left = f", about {_duration(eta)} left" if eta is not None else ""
        percent = 100 * self.done / self.total
        return f"{percent:.0f} % ({_mb(self.done)} of {_mb(self.total)} MB) at {speed}{left}"


type ProgressCallback = Callable[[DownloadProgress], None]


class DownloadError(Exception):
    """The download failed; `code` is stable, the message says what happened and what to do."""

    def __init__(self, code: str, message: str) -> None:
        self.code = code
        self.message = message
        super().__init__(f"{code}: {message}")


@dataclass(frozen=True)
class Downloaded:
    """A completed download."""

    path: Path
    size: int
    sha256: str
    resumed_from: int
    """Bytes that were already there from an earlier, interrupted download."""
    seconds: float


@dataclass
class _Partial:
    """The `.part` file and the hash of what it holds so far."""

    path: Path
    hasher: hashlib._Hash
    size: int = 0

    async def reconcile(self) -> None:
        """Make the hash cover exactly the bytes on disk (after a restart or a truncation)."""
        on_disk = self.path.stat().st_size if self.path.exists() else 0
        if on_disk != self.size:
            self.hasher, self.size = await asyncio.to_thread(_hash_file, self.path)

    def discard(self) -> None:
        self.path.unlink(missing_ok=True)
        self.hasher, self.size = hashlib.sha256(), 0


class _Retry(Exception):
    """This attempt failed in a way another attempt may fix."""


@dataclass
class _Progress:
    """Logs progress at most every `interval` seconds."""

    name: str
    total: int | None
    interval: float
    on_progress: ProgressCallback | None
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self._last_time = self.clock()
        self._last_done: int | None = None

    def update(self, done: int, *, final: bool = False) -> None:
        now = self.clock()
        if self._last_done is None:
            self._last_done = done
        elapsed = now - self._last_time
        if not final and elapsed < self.interval:
            return
        speed = (done - self._last_done) / elapsed if elapsed > 0 else 0.0
        self._last_time, self._last_done = now, done
        progress = DownloadProgress(self.name, done, self.total, speed, final=final)
        _LOGGER.info("Downloading %s: %s", self.name, progress.text())
        if self.on_progress is not None:
            self.on_progress(progress)


async def download_file(
    session: aiohttp.ClientSession,
    url: str,
    target: Path,
    *,
    sha256: str | None = None,
    size_hint: int | None = None,
    attempts: int = 5,
    retry_delay_s: float = 2.0,
    progress_interval_s: float = 5.0,
    on_progress: ProgressCallback | None = None,
) -> Downloaded:
    """Download `url` to `target` (resuming a `.part` file), or raise `DownloadError`.

    `sha256` (lower-case hex), when given, must match. `size_hint` is used for the disk check
    when the server sends no length.
    """
    if not url.startswith("https://"):
        raise DownloadError(
            "insecure_url",
            f"{target.name}: {_without_query(url)} is not an https:// address; model files are "
            "fetched over https only, so nobody on the way can hand over another file",
        )
    attempts = max(1, attempts)
    started = time.monotonic()
    partial = _Partial(target.with_name(target.name + ".part"), hashlib.sha256())
    target.parent.mkdir(parents=True, exist_ok=True)
    resumed_from: int | None = None
    for attempt in range(1, attempts + 1):
        await partial.reconcile()
        if resumed_from is None:
            resumed_from = partial.size
        try:
            total = await _attempt(
                session,
                url,
                target,
                partial,
                size_hint=size_hint,
                progress_interval_s=progress_interval_s,
                on_progress=on_progress,
            )
            break
        except _Retry as err:
            if attempt == attempts:
                raise DownloadError(
                    "interrupted",
                    f"{target.name}: {err} after {attempts} attempts; "
                    f"{_mb(partial.size)} MB are kept in {partial.path.name} "
                    "and the next start continues from there",
                ) from None
            delay = retry_delay_s * 2 ** (attempt - 1)
            _LOGGER.warning(
                "Download of %s interrupted at %s MB (%s); continuing in %.0f s (attempt %d of %d)",
                target.name,
                _mb(partial.size),
                err,
                delay,
                attempt + 1,
                attempts,
            )
            await asyncio.sleep(delay)
    if total is not None and partial.size != total:
        partial.discard()
        raise DownloadError(
            "incomplete",
            f"{target.name}: got {partial.size} bytes, the server announced {total}; "
            "the partial file was removed",
        )
    digest = partial.hasher.hexdigest()
    if sha256 is not None and digest != sha256.lower():
        partial.discard()
        raise DownloadError(
            "checksum_mismatch",
            f"{target.name}: SHA-256 is {digest}, expected {sha256.lower()}; "
            "the downloaded file was removed (check the URL and the checksum in the options)",
        )
    if sha256 is None:
        _LOGGER.info("%s has no published SHA-256; its length was checked", target.name)
    await asyncio.to_thread(_publish, partial.path, target)
    return Downloaded(
        path=target,
        size=partial.size,
        sha256=digest,
        resumed_from=resumed_from or 0,
        seconds=time.monotonic() - started,
    )


async def _attempt(
    session: aiohttp.ClientSession,
    url: str,
    target: Path,
    partial: _Partial,
    *,
    size_hint: int | None,
    progress_interval_s: float,
    on_progress: ProgressCallback | None,
) -> int | None:
    """One GET from where the `.part` file ends; returns the total length (None: unknown)."""
    headers = {"Range": f"bytes={partial.size}-"} if partial.size else {}
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=60)
    try:
        async with session.get(url, headers=headers, timeout=timeout) as response:
            if response.url.scheme != "https":  # a redirect must not leave https either
                raise DownloadError(
                    "insecure_url",
                    f"{target.name}: the server redirected to {_without_query(str(response.url))}"
                    ", which is not https",
                )
            start, total = _where_to_start(response, partial, target.name)
            if start is None:  # the .part file already holds everything
                return total
            if start == 0 and partial.size:
                _LOGGER.info("%s: the server cannot resume; starting over", target.name)
                partial.discard()
            remaining = (total - start) if total is not None else size_hint
            _check_disk(target, remaining)
            if start:
                _LOGGER.info(
                    "Resuming %s at %s MB of %s",
                    target.name,
                    _mb(start),
                    f"{_mb(total)} MB" if total else "an unknown length",
                )
            else:
                _LOGGER.info(
                    "Downloading %s from %s (%s)",
                    target.name,
                    _without_query(url),
                    f"{_mb(total)} MB" if total else "length unknown",
                )
            progress = _Progress(target.name, total, progress_interval_s, on_progress)
            await _stream(response, partial, progress)
            progress.update(partial.size, final=True)
            return total
    except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError, TimeoutError) as err:
        raise _Retry(_reason(err)) from None


def _where_to_start(
    response: aiohttp.ClientResponse, partial: _Partial, name: str
) -> tuple[int | None, int | None]:
    """(first byte of this response, total length); first byte None = nothing left to get."""
    status = response.status
    if status == 206:
        match = CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", ""))
        if match is None or match.group(1) is None:
            raise DownloadError("bad_response", f"{name}: HTTP 206 without a usable Content-Range")
        start = int(match.group(1))
        total = None if match.group(3) == "*" else int(match.group(3))
        if start != partial.size:
            partial.discard()
            raise _Retry(f"the server resumed at byte {start}, not {partial.size}")
        return start, total
    if status == 200:
        return 0, response.content_length
    if status == 416 and partial.size:
        match = CONTENT_RANGE.fullmatch(response.headers.get("Content-Range", ""))
        total = int(match.group(3)) if match and match.group(3) != "*" else None
        if total == partial.size:
            return None, total
        partial.discard()
        raise _Retry("the partial file did not fit the server's file; starting over")
    if status == 404:
        raise DownloadError(
            "not_found", f"{name}: {_without_query(str(response.url))} does not exist (HTTP 404)"
        )
    if status in {408, 429} or status >= 500:
        raise _Retry(f"HTTP {status} from the server")
    raise DownloadError("http_error", f"{name}: the server answered HTTP {status}")


def _check_disk(target: Path, needed: int | None) -> None:
    """Refuse to start when the announced length does not fit, before any byte is written."""
    if needed is None:
        _LOGGER.info("%s: the server gives no length; the disk space is not checked", target.name)
        return
    free = shutil.disk_usage(target.parent).free
    if needed + RESERVE_BYTES > free:
        raise DownloadError(
            "not_enough_disk",
            f"{target.name} needs {needed / MB:.0f} MB (plus {RESERVE_BYTES / MB:.0f} MB to "
            f"spare) but {target.parent} has {free / MB:.0f} MB free; free some space or "
            "choose a smaller model",
        )


async def _stream(response: aiohttp.ClientResponse, partial: _Partial, progress: _Progress) -> None:
    file: IO[bytes] = await asyncio.to_thread(partial.path.open, "ab")
    buffer = bytearray()  # written in large blocks: fewer thread hops per MB
    try:
        async for chunk in response.content.iter_chunked(64 * 1024):
            buffer += chunk
            if len(buffer) >= CHUNK_BYTES:
                await _append(file, partial, bytes(buffer))
                buffer.clear()
            progress.update(partial.size + len(buffer))
    finally:
        # What arrived is good even when the connection then dropped: keep it for resuming.
        if buffer:
            await _append(file, partial, bytes(buffer))
        await asyncio.to_thread(_close_synced, file)


async def _append(file: IO[bytes], partial: _Partial, data: bytes) -> None:
    await asyncio.to_thread(file.write, data)
    partial.hasher.update(data)
    partial.size += len(data)


def _close_synced(file: IO[bytes]) -> None:
    file.flush()
    os.fsync(file.fileno())
    file.close()


def _hash_file(path: Path) -> tuple[hashlib._Hash, int]:
    hasher, size = hashlib.sha256(), 0
    if path.exists():
        with path.open("rb") as file:
            while block := file.read(CHUNK_BYTES):
                hasher.update(block)
                size += len(block)
    return hasher, size


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file (blocking: call it in a thread)."""
    return _hash_file(path)[0].hexdigest()


def _publish(part: Path, target: Path) -> None:
    """Rename the finished file into place and make the rename durable."""
    part.replace(target)
    directory = os.open(target.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _reason(err: BaseException) -> str:
    """A short cause for the log (aiohttp's own messages run long)."""
    if isinstance(err, aiohttp.ClientPayloadError):
        return "the connection dropped before the end of the file"
    if isinstance(err, aiohttp.ServerDisconnectedError):
        return "the server closed the connection"
    if isinstance(err, TimeoutError):
        return "the server stopped sending"
    text = str(err) or type(err).__name__
    return text.splitlines()[0][:200]


def _without_query(url: str) -> str:
    return url.split("?", 1)[0]


def _mb(size: int) -> str:
    """Megabytes, with a decimal for small files."""
    return f"{size / MB:.1f}" if size < 10 * MB else f"{size / MB:.0f}"


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"
