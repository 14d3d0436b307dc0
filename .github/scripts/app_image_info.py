"""Turn the outputs of `home-assistant/actions/helpers/info` into plain values for the build.

That action writes each value of the app's config.yaml as `yq -o=json -I=0` prints it: a JSON
string with its quotes (`"ghcr.io/botpsy/botpsy-app"`, `"0.1.0"`), or `null` for a key that is
absent. Splitting those texts as they come gave image tags like
`"ghcr.io/botpsy/aarch64-botpsy-app":"0.1.0"`, which no registry takes. This step decodes them,
checks that they can name an image, and appends the plain values to `$GITHUB_OUTPUT`:

  image_name, registry_prefix   `ghcr.io/botpsy/botpsy-app` split at its last '/'
  version, name, description    the config's values
  url                           empty when config.yaml has none

Input: the environment variables INFO_IMAGE, INFO_VERSION, INFO_NAME, INFO_DESCRIPTION and
INFO_URL. A value that is not in that shape stops the build with a GitHub error annotation.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
import re
import secrets
import sys

# The Docker reference grammar (distribution/reference), as far as a name and a tag go.
IMAGE = re.compile(r"[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)+")
TAG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")


class InfoError(ValueError):
    """An output of helpers/info that cannot feed the build."""


def decode(name: str, text: str, *, required: bool = True) -> str:
    """One output as helpers/info writes it (JSON text) -> the plain value."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        raise InfoError(f"{name}: {text!r} is not JSON as helpers/info writes it") from None
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value:
        raise InfoError(f"{name}: expected a non-empty string in config.yaml, got {text!r}")
    return value


def image_outputs(env: dict[str, str]) -> dict[str, str]:
    """The values the builder actions take, from the helpers/info outputs in `env`."""
    image = decode("image", env.get("INFO_IMAGE", ""))
    if not IMAGE.fullmatch(image):
        raise InfoError(f"image: {image!r} is not registry/owner/name without a tag")
    version = decode("version", env.get("INFO_VERSION", ""))
    if not TAG.fullmatch(version):
        raise InfoError(f"version: {version!r} cannot be an image tag")
    registry_prefix, _, image_name = image.rpartition("/")
    return {
        "image_name": image_name,
        "registry_prefix": registry_prefix,
        "version": version,
        "name": decode("name", env.get("INFO_NAME", "")),
        "description": decode("description", env.get("INFO_DESCRIPTION", "")),
        "url": decode("url", env.get("INFO_URL", "null"), required=False),
    }


def github_output_lines(values: dict[str, str]) -> str:
    """`$GITHUB_OUTPUT` text; a value with a line break goes in a delimited block."""
    lines = []
    for key, value in values.items():
        if "\n" in value or "\r" in value:
            delimiter = f"EOF_{secrets.token_hex(8)}"
            lines += [f"{key}<<{delimiter}", value, delimiter]
        else:
            lines.append(f"{key}={value}")
    return "\n".join(lines) + "\n"


def main() -> int:
    try:
        values = image_outputs(dict(os.environ))
    except InfoError as err:
        print(f"::error title=app_image_info::{err}", file=sys.stderr)
        return 2
    with Path(os.environ["GITHUB_OUTPUT"]).open("a", encoding="utf-8") as output:
        output.write(github_output_lines(values))
    for key, value in values.items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
