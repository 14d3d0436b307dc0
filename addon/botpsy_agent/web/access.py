"""Who is asking for the admin page, and whether they may: the ingress rules.

Home Assistant's ingress puts the page behind two proxies. HA's own (`/api/hassio_ingress/
<token>/…`) checks the browser's ingress session and adds `X-Ingress-Path` (and
`X-Forwarded-Host`, `X-Forwarded-Proto`, from the browser's request); the Supervisor's
forwards the request to the app's ingress port **from 172.30.32.2**, after dropping any
`X-Remote-User-*` header the browser sent and adding the session's user as
`X-Remote-User-Id`, `X-Remote-User-Name` and `X-Remote-User-Display-Name`
(`supervisor/api/ingress.py`, `_init_header`). So:

* a connection from any other address is refused: another app on the Supervisor's network
  could send the headers itself;
* a request without `X-Remote-User-Id` did not come from a signed-in person;
* the user must be an **active admin in HA's own user list** (the app reads it with its
  Supervisor token, `config/auth/list`, and follows changes): `panel_admin` only hides the
  sidebar entry, and Home Assistant lets every signed-in user open an ingress session
  (`WS_NO_ADMIN_ENDPOINTS` in its `hassio` integration), so the app decides itself;
* a POST must come from the page itself: its `Origin` (or, without one, `Sec-Fetch-Site`)
  must be the address the browser used, and it must carry the form's token, an HMAC of the
  admin's id under a key made at start (never stored).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
import hashlib
import hmac
import re
import secrets
from typing import Final

from botpsy_agent.ha import HaUser

SUPERVISOR_INGRESS_PEER: Final = "172.30.32.2"
"""The Supervisor's address on its network: the only one ingress requests come from."""
USER_ID: Final = "X-Remote-User-Id"
USER_NAME: Final = "X-Remote-User-Name"
USER_DISPLAY_NAME: Final = "X-Remote-User-Display-Name"
INGRESS_PATH: Final = "X-Ingress-Path"
INGRESS_PATH_PATTERN: Final = re.compile(r"/api/hassio_ingress/[A-Za-z0-9_-]{1,128}")
"""What HA's proxy sends (`/api/hassio_ingress/<token>`); anything else is not used."""


@dataclass(frozen=True)
class Visitor:
    """The person HA's ingress says is asking."""

    user_id: str
    name: str
    """How to call them: the display name, else the user name, else the id."""


def visitor(headers: Mapping[str, str]) -> Visitor | None:
    """The ingress user of a request; None without one (not through HA's sidebar)."""
    user_id = headers.get(USER_ID, "").strip()
    if not user_id:
        return None
    name = headers.get(USER_DISPLAY_NAME) or headers.get(USER_NAME) or user_id
    return Visitor(user_id, name.strip() or user_id)


def admin_of(users: Iterable[HaUser], user_id: str) -> HaUser | None:
    """The HA user `user_id` if HA says it is an active admin; None otherwise (unknown,
    deactivated, or not an admin). Fails closed: no user list, no admin."""
    user = next((u for u in users if u.user_id == user_id), None)
    if user is None or not user.is_active or not user.is_admin:
        return None
    return user


def base_path(headers: Mapping[str, str]) -> str:
    """Where the page lives in the browser (`/api/hassio_ingress/<token>`), for links; ""
    when the header is missing or not HA's shape."""
    path = headers.get(INGRESS_PATH, "")
    return path if INGRESS_PATH_PATTERN.fullmatch(path) else ""


def expected_origin(headers: Mapping[str, str], scheme: str, host: str) -> str:
    """The origin the browser used: HA's proxy says it in `X-Forwarded-Proto`/`-Host`."""
    proto = headers.get("X-Forwarded-Proto", "").split(",")[0].strip() or scheme
    forwarded = headers.get("X-Forwarded-Host", "").split(",")[0].strip() or host
    return f"{proto}://{forwarded}".lower()


def same_origin(headers: Mapping[str, str], scheme: str, host: str) -> bool:
    """Whether a POST comes from a page of this origin (a cross-site form never does)."""
    origin = headers.get("Origin")
    if origin is not None:
        return origin.lower() == expected_origin(headers, scheme, host)
    return headers.get("Sec-Fetch-Site") == "same-origin"


class FormTokens:
    """The hidden token of the page's forms: tied to the admin, valid while the app runs."""

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key or secrets.token_bytes(32)

    def token(self, user_id: str) -> str:
        return hmac.new(self._key, user_id.encode(), hashlib.sha256).hexdigest()

    def valid(self, user_id: str, token: object) -> bool:
        return isinstance(token, str) and hmac.compare_digest(self.token(user_id), token)
