"""`make demo ARGS='--model /any/path.gguf'`: script/run runs commands inside the cached root
file system, so a host file outside the repo and the cache was "no such file" there. It now
binds the paths named on the command line in, and leaves the root file system as it was.

The test runs script/run's root-file-system path from inside the test's own environment: a
private mount namespace holds a tmpfs at /mnt with the model, which the root file system
(seen afresh through the cache folder) does not have.
"""

from __future__ import annotations

import os
from pathlib import Path
import shutil
import subprocess

import pytest

from devkit.tiny_gguf import TINY_QWEN35, cached_model

REPO = Path(__file__).resolve().parents[2]
CHECK = (
    "import sys; from pathlib import Path; "
    "from botpsy_agent.llm.model_info import check_gguf_file; "
    "path = Path(sys.argv[1].removeprefix('--model=')); check_gguf_file(path); "
    "print('readable', path, path.stat().st_size)"
)


def _rootfs() -> Path | None:
    printed = subprocess.run(
        [str(REPO / "script" / "env"), "--print"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "BOTPSY_FORCE_ROOTFS": "1"},
    ).stdout
    paths = dict(line.split("=", 1) for line in printed.splitlines())
    rootfs = Path(paths["ROOTFS"])
    return rootfs if (rootfs / ".botpsy-complete").exists() else None


def _can_mount() -> bool:
    return (
        os.geteuid() == 0
        and shutil.which("unshare") is not None
        and subprocess.run(
            ["unshare", "--mount", "--propagation", "unchanged", "true"], check=False
        ).returncode
        == 0
    )


@pytest.mark.parametrize("form", ["{path}", "--model={path}"])
def test_a_model_outside_the_repo_is_readable_inside_the_root_file_system(form: str) -> None:
    rootfs = _rootfs()
    if rootfs is None or not _can_mount():
        pytest.skip("needs the cached root file system and root (mount namespaces)")
    model = cached_model(TINY_QWEN35, "tiny-qwen35")
    outside = "/mnt/botpsy-outside/models/tiny.gguf"  # not in the repo, not in the cache
    script = f"""
        set -e
        mount -t tmpfs botpsy-test /mnt
        mkdir -p /mnt/botpsy-outside/models
        cp '{model}' '{outside}'
        BOTPSY_FORCE_ROOTFS=1 '{REPO}/script/run' python -c "$0" "$1"
    """
    result = subprocess.run(
        [
            "unshare",
            "--mount",
            "--propagation",
            "unchanged",
            "bash",
            "-c",
            script,
            CHECK,
            form.format(path=outside),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"readable {outside} {model.stat().st_size}" in result.stdout
    # The mount point and the folders made for it are gone from the shared root file system.
    assert not (rootfs / "mnt" / "botpsy-outside").exists()


def test_a_missing_model_path_is_still_no_such_file() -> None:
    rootfs = _rootfs()
    if rootfs is None:
        pytest.skip("needs the cached root file system")
    result = subprocess.run(
        [str(REPO / "script" / "run"), "python", "-c", CHECK, "/mnt/botpsy-nowhere/x.gguf"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "BOTPSY_FORCE_ROOTFS": "1"},
    )
    assert result.returncode != 0
    assert "model file /mnt/botpsy-nowhere/x.gguf does not exist" in result.stderr
