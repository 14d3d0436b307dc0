"""Signing requests for the app: HMAC-SHA256 over the canonical JSON (docs/mqtt-api.md).

The canonical form is the object without `sig`, keys sorted, no whitespace, characters
beyond ASCII as themselves, UTF-8; `sig` is its lowercase hex HMAC-SHA256 keyed with the
shared secret.
"""

from __future__ import annotations

from collections.abc import Mapping
import hashlib
import hmac
import json
import time
from typing import Any


def canonical_bytes(document: Mapping[str, Any]) -> bytes:
    unsigned = {key: value for key, value in document.items() if key != "sig"}
    text = json.dumps(unsigned, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def sign(document: Mapping[str, Any], secret: str) -> dict[str, Any]:
    """A copy of `document` with `ts` (now) and `sig`."""
    signed = dict(document)
    signed["ts"] = int(time.time())
    signed["sig"] = hmac.new(
        secret.encode("utf-8"), canonical_bytes(signed), hashlib.sha256
    ).hexdigest()
    return signed
