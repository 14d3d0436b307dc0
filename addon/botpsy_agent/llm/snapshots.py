"""Prefix snapshots: evaluated prompt prefixes kept in memory and, across restarts, on disk.

A snapshot is llama.cpp's saved sequence state after a prefix plus the prefix's tokens. It is
only valid for the exact model file, llama.cpp build and context settings it was made with,
and restoring a foreign or damaged one into llama.cpp would at best fail and at worst serve
answers from another model's state. So a file on disk carries its identity (model file
hash, llama.cpp build, context settings) and a SHA-256 of its payload; it is loaded only when
both match, and otherwise ignored, removed and rebuilt. The folder is bounded: least
recently used files go first once it holds more than its cap.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
import hashlib
import json
import logging
import os
from pathlib import Path

import numpy as np

_LOGGER = logging.getLogger(__name__)

MAGIC = b"BOTPSY-PREFIX-SNAPSHOT 1\n"
SUFFIX = ".snapshot"
MAX_HEADER = 4096
_CHUNK = 1 << 20


class UnusableSnapshot(Exception):
    """A snapshot file that must not be loaded; the message says why."""


@dataclass(frozen=True)
class Snapshot:
    state: bytes
    tokens: np.ndarray

    @property
    def size(self) -> int:
        return len(self.state) + self.tokens.nbytes


def tokens_key(tokens: list[int] | np.ndarray) -> str:
    return hashlib.sha256(np.asarray(tokens, dtype=np.int32).tobytes()).hexdigest()


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


class SnapshotStore:
    """Snapshot files in one folder, for one identity, at most `cap_bytes` in all."""

    def __init__(self, folder: Path, identity: str, cap_bytes: int) -> None:
        self.folder = folder
        self.identity = identity
        self.cap_bytes = cap_bytes
        folder.mkdir(parents=True, exist_ok=True)

    def path(self, key: str) -> Path:
        # The identity is part of the name, so another model's files are never even opened.
        name = hashlib.sha256(f"{self.identity}\n{key}".encode()).hexdigest()[:32]
        return self.folder / f"{name}{SUFFIX}"

    def load(self, key: str) -> Snapshot | None:
        """The snapshot of `key`, or None if there is none or the file is not one of ours."""
        path = self.path(key)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as err:
            _LOGGER.warning("Prefix snapshot %s cannot be read (%s); rebuilding it", path, err)
            return None
        try:
            snapshot = self._parse(data, key)
        except UnusableSnapshot as problem:
            _LOGGER.warning("Prefix snapshot %s ignored and removed: %s", path.name, problem)
            path.unlink(missing_ok=True)
            return None
        os.utime(path)  # most recently used: last to be evicted
        return snapshot

    def _parse(self, data: bytes, key: str) -> Snapshot:
        if not data.startswith(MAGIC):
            raise UnusableSnapshot("not a snapshot file")
        end = data.find(b"\n", len(MAGIC), len(MAGIC) + MAX_HEADER)
        try:
            header = json.loads(data[len(MAGIC) : end]) if end > 0 else None
            identity, file_key = header["identity"], header["key"]  # type: ignore[index]
            count, digest = int(header["tokens"]), str(header["sha256"])  # type: ignore[index]
        except ValueError, KeyError, TypeError:
            raise UnusableSnapshot("unreadable header") from None
        if identity != self.identity:
            raise UnusableSnapshot("made by another model, llama.cpp build or context setting")
        if file_key != key:
            raise UnusableSnapshot("made for another prompt")
        payload = memoryview(data)[end + 1 :]
        if hashlib.sha256(payload).hexdigest() != digest or not 0 < count * 4 < len(payload):
            raise UnusableSnapshot("damaged (checksum)")
        tokens = np.frombuffer(payload[: count * 4], dtype="<i4").astype(np.intc)
        if tokens_key(tokens) != key:
            raise UnusableSnapshot("its tokens are not the prompt's")
        return Snapshot(bytes(payload[count * 4 :]), tokens)

    def save(self, key: str, snapshot: Snapshot) -> None:
        """Write atomically (a crash leaves the old file or none), then keep within the cap."""
        if snapshot.size > self.cap_bytes:
            _LOGGER.info("Prefix snapshot of %.1f MB exceeds the disk cap", snapshot.size / 1e6)
            return
        payload = snapshot.tokens.astype("<i4").tobytes() + snapshot.state
        header = {
            "identity": self.identity,
            "key": key,
            "tokens": len(snapshot.tokens),
            "sha256": hashlib.sha256(payload).hexdigest(),
        }
        path = self.path(key)
        part = path.with_suffix(".part")
        try:
            with part.open("wb") as file:
                file.write(MAGIC + json.dumps(header).encode() + b"\n" + payload)
            part.replace(path)
        except OSError as err:
            part.unlink(missing_ok=True)
            _LOGGER.warning("Prefix snapshot not written to %s: %s", self.folder, err)
            return
        self.trim(keep=path)

    def trim(self, keep: Path | None = None) -> None:
        """Remove least recently used files until the folder is within its cap."""
        files = []
        for path in self.folder.glob(f"*{SUFFIX}"):
            try:
                stat = path.stat()
            except FileNotFoundError:
                continue
            files.append((stat.st_mtime_ns, stat.st_size, path))
        total = sum(size for _, size, _ in files)
        for _, size, path in sorted(files):
            if total <= self.cap_bytes:
                break
            if path == keep:
                continue
            path.unlink(missing_ok=True)
            total -= size
            _LOGGER.debug("Prefix snapshot %s removed (disk cap)", path.name)

    def files(self) -> list[tuple[str, int]]:
        """(file name, bytes) of every snapshot file, for the bench and diagnostics."""
        return sorted((p.name, p.stat().st_size) for p in self.folder.glob(f"*{SUFFIX}"))


class PrefixCache:
    """Saved sequence states of evaluated prefixes, least recently used first out; backed by
    a `SnapshotStore` when one is given (a miss in memory then looks on disk)."""

    def __init__(self, budget_bytes: int, store: SnapshotStore | None = None) -> None:
        self.budget = budget_bytes
        self.store = store
        self._items: OrderedDict[str, Snapshot] = OrderedDict()
        self.loaded_from_disk = 0

    key = staticmethod(tokens_key)

    def get(self, key: str) -> Snapshot | None:
        snapshot = self._items.get(key)
        if snapshot is not None:
            self._items.move_to_end(key)
            return snapshot
        if self.store is not None and (snapshot := self.store.load(key)) is not None:
            self.loaded_from_disk += 1
            self._keep(key, snapshot)
        return snapshot

    def put(self, key: str, snapshot: Snapshot) -> None:
        self._keep(key, snapshot)
        if self.store is not None:
            self.store.save(key, snapshot)

    def forget(self, key: str) -> None:
        """Drop a snapshot llama.cpp refused to restore (memory and disk)."""
        self._items.pop(key, None)
        if self.store is not None:
            self.store.path(key).unlink(missing_ok=True)

    def _keep(self, key: str, snapshot: Snapshot) -> None:
        self._items[key] = snapshot
        self._items.move_to_end(key)
        while self.used > self.budget and len(self._items) > 1:
            evicted, _ = self._items.popitem(last=False)
            _LOGGER.debug("Prefix snapshot %s evicted (budget)", evicted[:8])

    def __contains__(self, key: str) -> bool:
        """In memory (`get` also looks on disk)."""
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    @property
    def used(self) -> int:
        return sum(s.size for s in self._items.values())
