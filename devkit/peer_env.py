"""The packages HA's own `llama_cpp` integration needs (requirements/peer.txt), installed
once into the cache for the peer stack only, never into the project's venv.

`ensure()` installs the hashed lock with `pip install --target` into
`~/.cache/botpsy/peer-<hash of the lock>/` (a changed lock gets a new folder) and returns it;
bench/peer.py puts that folder on the demo HA process's PYTHONPATH when HA's stack runs.
"""

from __future__ import annotations

from collections.abc import Callable
import hashlib
import os
from pathlib import Path
import shutil
import subprocess
import sys

LOCK = Path(__file__).resolve().parents[1] / "requirements" / "peer.txt"
DONE = ".botpsy-complete"


def cache_root() -> Path:
    base = os.environ.get("BOTPSY_CACHE")
    if base:
        return Path(base)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"), "botpsy")


def target(lock: Path = LOCK) -> Path:
    key = hashlib.sha256(lock.read_bytes()).hexdigest()[:16]
    return cache_root() / f"peer-{key}"


def ensure(progress: Callable[[str], None], lock: Path = LOCK) -> Path:
    """The installed folder, installing it first when it is missing or half done."""
    folder = target(lock)
    if (folder / DONE).exists():
        return folder
    progress(f"installing HA's llama_cpp requirements ({lock.name}) into {folder}")
    partial = folder.with_name(folder.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    subprocess.run(  # noqa: S603 - our own lock file, hashes required
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--require-hashes",
            "--only-binary=:all:",
            "--target",
            str(partial),
            "-r",
            str(lock),
        ],
        check=True,
    )
    (partial / DONE).write_text(lock.read_text())
    shutil.rmtree(folder, ignore_errors=True)
    partial.rename(folder)
    return folder
