"""The image build names its images right: `.github/workflows/builder.yaml` and its script.

`home-assistant/actions/helpers/info` (master, June 2026) writes every value of config.yaml as
`yq -o=json -I=0` prints it: `"0.1.0"` with its quotes, `null` for an absent key. The tests feed
`.github/scripts/app_image_info.py` that shape, built from our own config.yaml, and compute the
per-arch tag as `home-assistant/builder/actions/prepare-multi-arch-matrix` (2026.06.0) does:
`<registry prefix>/<arch>-<image name>`, tagged with the version.
"""

from __future__ import annotations

import json
from pathlib import Path
import re
import subprocess
import sys
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".github" / "scripts" / "app_image_info.py"
WORKFLOW = ROOT / ".github" / "workflows" / "builder.yaml"
# A full image reference: registry/owner/name:tag, lower-case name, no quotes.
REFERENCE = re.compile(r"[a-z0-9.-]+(:\d+)?(/[a-z0-9._-]+)+:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")


def config() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "addon" / "config.yaml").read_text("utf-8"))
    return data


def info_outputs(app: dict[str, Any]) -> dict[str, str]:
    """What helpers/info hands on: `yq -o=json -I=0` of each key (null when absent)."""
    return {
        f"INFO_{key.upper()}": json.dumps(app.get(key), ensure_ascii=False)
        for key in ("image", "version", "name", "description", "url")
    }


def read_github_output(text: str) -> dict[str, str]:
    """Parse `$GITHUB_OUTPUT` as the runner does: `key=value` lines and `key<<DELIM` blocks."""
    values: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            key, delimiter = line.split("<<", 1)
            block = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            values[key] = "\n".join(block)
        else:
            key, value = line.split("=", 1)
            values[key] = value
    return values


def run_script(env: dict[str, str], tmp_path: Path) -> tuple[int, dict[str, str], str]:
    output = tmp_path / "github_output"
    output.write_text("", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, str(SCRIPT)],
        env={**env, "GITHUB_OUTPUT": str(output)},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    return result.returncode, read_github_output(output.read_text("utf-8")), result.stderr


def matrix_tags(values: dict[str, str], arches: list[str]) -> list[str]:
    """prepare-multi-arch-matrix's image per arch, with build-image's version tag."""
    return [
        f"{values['registry_prefix']}/{arch}-{values['image_name']}:{values['version']}"
        for arch in arches
    ]


def test_the_image_tags_come_out_plain_from_the_helpers_json_outputs(tmp_path: Path) -> None:
    app = config()
    env = info_outputs(app)
    assert env["INFO_IMAGE"] == '"ghcr.io/botpsy/botpsy-app"'  # the real outputs' shape

    returncode, values, stderr = run_script(env, tmp_path)

    assert returncode == 0, stderr
    assert values["image_name"] == "botpsy-app"
    assert values["registry_prefix"] == "ghcr.io/botpsy"
    assert values["version"] == app["version"]
    assert values["name"] == app["name"]
    assert values["description"] == app["description"].strip()
    assert values["url"] == app["url"]
    tags = matrix_tags(values, app["arch"])
    assert tags == [
        f"ghcr.io/botpsy/aarch64-botpsy-app:{app['version']}",
        f"ghcr.io/botpsy/amd64-botpsy-app:{app['version']}",
    ]
    assert all(REFERENCE.fullmatch(tag) for tag in tags)
    # The multi-arch manifest is what config.yaml's `image` names.
    assert f"{values['registry_prefix']}/{values['image_name']}" == app["image"]


def test_the_old_shell_split_is_what_broke_the_tags(tmp_path: Path) -> None:
    """The former step (`${IMAGE##*/}`, `${IMAGE%/*}` on the raw output) on the same input."""
    env = info_outputs(config())
    split = subprocess.run(
        ["bash", "-c", 'printf "%s\\n%s\\n" "${IMAGE%/*}" "${IMAGE##*/}"'],
        env={"IMAGE": env["INFO_IMAGE"]},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    old = {"registry_prefix": split[0], "image_name": split[1], "version": env["INFO_VERSION"]}
    assert matrix_tags(old, ["aarch64"]) == ['"ghcr.io/botpsy/aarch64-botpsy-app":"0.1.0"']
    assert not REFERENCE.fullmatch(matrix_tags(old, ["aarch64"])[0])


def test_a_multi_line_description_stays_one_output(tmp_path: Path) -> None:
    env = info_outputs({**config(), "description": "First line.\nSecond line.\n"})

    returncode, values, stderr = run_script(env, tmp_path)

    assert returncode == 0, stderr
    assert values["description"] == "First line.\nSecond line.\n"
    assert values["image_name"] == "botpsy-app"


def test_an_app_without_url_gets_an_empty_url(tmp_path: Path) -> None:
    app = {key: value for key, value in config().items() if key != "url"}

    returncode, values, stderr = run_script(info_outputs(app), tmp_path)

    assert returncode == 0, stderr
    assert values["url"] == ""


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"INFO_IMAGE": "ghcr.io/botpsy/botpsy-app"}, "image: 'ghcr.io/botpsy/botpsy-app' is not"),
        ({"INFO_IMAGE": "null"}, "image: expected a non-empty string"),
        ({"INFO_IMAGE": '"ghcr.io/botpsy/botpsy-app:1.0"'}, "without a tag"),
        ({"INFO_VERSION": '"1.0 beta"'}, "cannot be an image tag"),
        ({"INFO_NAME": '""'}, "name: expected a non-empty string"),
    ],
)
def test_outputs_that_cannot_name_an_image_stop_the_build(
    tmp_path: Path, change: dict[str, str], message: str
) -> None:
    returncode, values, stderr = run_script({**info_outputs(config()), **change}, tmp_path)

    assert returncode == 2
    assert values == {}
    assert "::error title=app_image_info::" in stderr
    assert message in stderr


def test_the_workflow_feeds_the_builder_only_decoded_values() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text("utf-8"))
    prepare = workflow["jobs"]["prepare"]
    normalize = next(step for step in prepare["steps"] if step.get("id") == "normalize")
    assert normalize["run"].strip() == "python3 .github/scripts/app_image_info.py"
    assert normalize["env"] == {
        f"INFO_{key.upper()}": f"${{{{ steps.info.outputs.{key} }}}}"
        for key in ("image", "version", "name", "description", "url")
    }
    for key in ("image_name", "registry_prefix", "version", "name", "description", "url"):
        assert prepare["outputs"][key] == f"${{{{ steps.normalize.outputs.{key} }}}}"
    # Only the architectures pass through raw: the matrix action takes that JSON array.
    assert prepare["outputs"]["architectures"] == "${{ steps.info.outputs.architectures }}"
    # Nothing else reads the raw (quoted) image or version.
    text = WORKFLOW.read_text("utf-8")
    assert text.count("steps.info.outputs.image") == 1
    assert text.count("steps.info.outputs.version") == 1
