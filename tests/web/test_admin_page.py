"""The admin page (issue 30, item 7) through aiohttp's test client: each view shows what the
app holds (status, the doctor's checks, pairing, the audit log with its filters and pages,
who may do what and by which rule), every value escaped, and the page refuses whoever is not
an active HA admin coming through the Supervisor's ingress, and POSTs from anywhere but
itself. (tests/web/test_browser.py drives the same page in a real browser.)"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
import re
from typing import Any

from aiohttp.test_utils import TestClient, TestServer
import pytest

from botpsy_agent.app.doctor import Check
from botpsy_agent.app.health import Verdict
from botpsy_agent.audit.log import AuditLog
from botpsy_agent.ha.registries import HaUser
from botpsy_agent.home.model import Area, Entity, Home
from botpsy_agent.link.channel import IntegrationChannel
from botpsy_agent.link.pairing import SUPERVISOR_LABEL
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings
from botpsy_agent.policy.store import PolicyStore
from botpsy_agent.web import IngressSettings, PageSources
from botpsy_agent.web.server import AdminPage

ADMIN = HaUser("a" * 32, "Ada Admin", is_admin=True, is_owner=True)
CHILD = HaUser("c" * 32, "Sam <b>Kid</b>", is_admin=False)
FORMER = HaUser("f" * 32, "Former Admin", is_admin=True, is_active=False)
SUPERVISOR = HaUser("5" * 32, "Supervisor", is_admin=True, system_generated=True)
USERS = [ADMIN, CHILD, FORMER, SUPERVISOR]
CODE = "K7M2Q9XR"
INGRESS_PATH = "/api/hassio_ingress/Tok3n_-x"
POLICY = f"""\
version: 1
confirm: [locks]
groups:
  admin: {{ignore_exposure: true, rules: [{{id: admins-all, allow: [read, control]}}]}}
  users: {{rules: [{{id: users-read, allow: [read]}}]}}
users:
  - id: {CHILD.user_id}
    name: Sam
    rules:
      - {{id: sam-kids-room, allow: [control], areas: [kids_room]}}
      - {{id: sam-no-locks, deny: [control], domains: [lock]}}
      - {{id: sam-warmth, limit: {{temperature: {{min: 18, max: 22}}}}, areas: [kids_room]}}
mqtt:
  homeassistant:
    rules:
      - {{id: ui-allow, allow: [read]}}
      - {{id: ui-allow-own_area, allow: [control], own_area: true, domains: [light]}}
"""
HOME = Home.of(
    [
        Entity("light.kids_lamp", "Kids lamp", area_id="kids_room"),
        Entity("climate.kids_heater", "Kids heater", area_id="kids_room"),
        Entity("lock.front_door", "Front door", area_id="hall"),
        Entity("light.kitchen", "Kitchen light", area_id="kitchen", exposed=False),
        Entity("sensor.hall_temperature", "Hall temperature", area_id="hall"),
    ],
    [Area("kids_room", "Kids room"), Area("hall", "Hall"), Area("kitchen", "Kitchen")],
)
STATS: dict[str, Any] = {
    "queue_length": 2,
    "busy": True,
    "last_latency_ms": 812.4,
    "requests_per_minute": 7,
    "answered": 41,
    "refused_at_door": 3,
    "health": "degraded",
    "problems": ["model: building its prompt <prefix>"],
    "model_state": "warming_up",
    "warming_up_percent": 42,
    "warming_up_eta_s": 19,
    "model_engine": None,
}


@dataclass
class Setup:
    """The page's sources, as a test can change them."""

    folder: Path
    users: list[HaUser] = field(default_factory=lambda: list(USERS))
    stats: dict[str, Any] = field(default_factory=lambda: dict(STATS))
    channel: IntegrationChannel | None = None
    now: datetime = datetime(2026, 12, 3, 10, 0, tzinfo=UTC)

    def sources(self, policy: PolicyStore, audit: Path) -> PageSources:
        async def doctor() -> list[Check]:
            return [
                Check("options", True, "/data/options.json is valid (instance home)"),
                Check("model", False, "/config/models/x.gguf is missing", "copy the file there"),
            ]

        return PageSources(
            instance="home",
            version="0.1.0",
            users=lambda: self.users,
            stats=lambda: self.stats,
            model=lambda: "BotPsy-0.8B-Q8_0.gguf (qwen35 Q8_0)",
            health=lambda: Verdict(False, "model not loaded (warming up)"),
            audit_file=audit,
            policy=lambda: policy.policy,
            home=lambda: HOME,
            now=lambda: self.now,
            channel=lambda: self.channel,
            doctor=doctor,
        )


def write_audit(path: Path, now: datetime) -> None:
    """Records as the front door writes them: 60 allowed light actions of the admin, then a
    child's refused unlock, and a refusal whose topic carries markup."""
    times = iter(now - timedelta(minutes=m) for m in range(200, 0, -1))
    log = AuditLog(path, clock=lambda: next(times))
    for n in range(60):
        log.write(
            {
                "kind": "action",
                "id": f"r{n:03d}",
                "principal": f"user:{ADMIN.user_id}",
                "tool": "control_light",
                "entity_ids": ["light.kitchen"],
                "decision": "allow",
                "rule": "admins-all",
                "outcome": "executed",
                "error": None,
            }
        )
    log.write(
        {
            "kind": "action",
            "id": "unlock1",
            "principal": f"user:{CHILD.user_id}",
            "tool": "control_lock",
            "entity_ids": ["lock.front_door"],
            "decision": "deny",
            "rule": "sam-no-locks",
            "outcome": "refused",
            "error": "denied_by_rule",
        }
    )
    log.write(
        {
            "kind": "refused",
            "id": "x1",
            "principal": None,
            "claimed_user_id": ADMIN.user_id,
            "topic": "botpsy/home/request/<script>alert(1)</script>",
            "code": "bad_signature",
            "message": "the signature does not match",
            "security": True,
        }
    )
    log.write(
        {
            "kind": "request",
            "id": "sat1",
            "principal": "mqtt:homeassistant@kitchen",
            "topic": "botpsy/home/request",
        }
    )
    log.close()


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    return Setup(tmp_path)


@pytest.fixture
async def page(setup: Setup, socket_enabled: None) -> AsyncIterator[Callable[..., TestClient]]:
    """A client of the page on loopback (which stands for the Supervisor's address here)."""
    policy_file = setup.folder / "policy.yaml"
    policy_file.write_text(POLICY)
    store = PolicyStore(policy_file)
    store.load()
    audit = setup.folder / "audit" / "audit.jsonl"
    write_audit(audit, setup.now)
    (setup.folder / "data").mkdir()
    setup.channel = IntegrationChannel.for_app(
        BrokerSettings(host="127.0.0.1", port=1),
        ApiSettings(instance="home"),
        data_dir=setup.folder / "data",
        policies=store,
        known_user_ids=lambda: None,
    )
    setup.channel.pairing.store.put("1" * 64, SUPERVISOR_LABEL)
    setup.channel.pairing.store.put("2" * 64, "paired 2026-12-01T08:00:00Z")
    clients: list[TestClient] = []

    def client(peers: frozenset[str] = frozenset({"127.0.0.1"})) -> TestClient:
        admin_page = AdminPage(IngressSettings(peers=peers), setup.sources(store, audit))
        made = TestClient(TestServer(admin_page.app, host="127.0.0.1"))
        clients.append(made)
        return made

    yield client
    for made in clients:
        await made.close()


def as_user(user: HaUser | None, **more: str) -> dict[str, str]:
    """The headers the Supervisor adds for an ingress session of `user` (and HA's own)."""
    headers = {"X-Ingress-Path": INGRESS_PATH, "X-Forwarded-Host": "ha.local:8123"}
    headers["X-Forwarded-Proto"] = "http"
    if user is not None:
        headers |= {"X-Remote-User-Id": user.user_id, "X-Remote-User-Display-Name": user.name}
    return headers | more


async def get(client: TestClient, path: str, user: HaUser | None = ADMIN) -> tuple[int, str]:
    if not client.server.started:
        await client.start_server()
    async with client.get(path, headers=as_user(user), allow_redirects=False) as response:
        return response.status, await response.text()


def text_of(html: str) -> str:
    """The page's words, tags taken out and spaces folded (as a person reads it)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


# --- the views ------------------------------------------------------------------------------


async def test_the_status_shows_what_the_stats_topic_and_the_health_check_say(
    page: Callable[..., TestClient],
) -> None:
    status, html = await get(page(), "/")
    assert status == 200
    words = text_of(html)
    assert "Not healthy: model not loaded (warming up)" in words
    assert "building its prompt &lt;prefix&gt;" in html  # escaped
    assert "Model BotPsy-0.8B-Q8_0.gguf (qwen35 Q8_0)" in words
    assert "Model state building its prompt prefix: 42 %, about 19 s left" in words
    assert "Requests in the queue 2 (busy)" in words
    assert "Last answer took 812.4 ms" in words
    assert "Refused at the door 3" in words
    assert f'href="{INGRESS_PATH}/doctor"' in html  # links live under the ingress path
    assert "Ada Admin" in words


async def test_the_doctors_checks_are_listed_with_what_to_fix(
    page: Callable[..., TestClient],
) -> None:
    status, html = await get(page(), "/doctor")
    assert status == 200
    words = text_of(html)
    assert "1 problem(s) to fix" in words
    assert "options ok /data/options.json is valid (instance home)" in words
    assert "model FAIL /config/models/x.gguf is missing copy the file there" in words


async def test_the_audit_log_newest_first_in_pages_of_fifty(
    page: Callable[..., TestClient],
) -> None:
    client = page()
    status, html = await get(client, "/audit")
    assert status == 200
    words = text_of(html)
    assert "63 record(s), newest first; page 1 of 2" in words
    assert "Voice satellites and automations in kitchen" in words  # a satellite's request
    rows = re.findall(r"<code>([^<]+)</code></td><td>", html)
    assert rows[:4] == ["sat1", "x1", "unlock1", "r059"]
    assert len(rows) == 50
    # Markup a request put in a topic is shown as text, never as markup.
    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Anonymous" not in words.split("x1")[1].split("unlock1")[0]
    assert "(claimed Ada Admin)" in words
    older = re.search(r'href="([^"]+)" id="older"', html)
    assert older is not None and "page=1" in older.group(1)
    status, html = await get(client, "/audit?page=1")
    rows = re.findall(r"<code>([^<]+)</code></td><td>", html)
    assert rows == [f"r{n:03d}" for n in range(12, -1, -1)]
    assert "page 2 of 2" in text_of(html)


@pytest.mark.parametrize(
    ("query", "ids"),
    [
        (f"user=user:{CHILD.user_id}", ["unlock1"]),
        ("entity=lock.", ["unlock1"]),
        ("decision=deny", ["unlock1"]),
        ("outcome=refused", ["unlock1"]),
        ("outcome=refused&decision=allow", []),
        # One record a minute from 06:40 (UTC): these are the ones from 06:45 to 06:47.
        (
            f"user=user:{ADMIN.user_id}&since=2026-12-03T06:45&until=2026-12-03T06:47",
            ["r007", "r006", "r005"],
        ),
        ("since=2026-12-03T07:40", ["sat1", "x1", "unlock1"]),
        ("user=mqtt:homeassistant", ["sat1"]),
    ],
)
async def test_the_audit_filters(
    page: Callable[..., TestClient], query: str, ids: list[str]
) -> None:
    status, html = await get(page(), f"/audit?{query}")
    assert status == 200
    rows = re.findall(r"<code>([^<]+)</code></td><td>", html)
    assert rows == ids


async def test_a_time_the_filter_cannot_read_is_said(page: Callable[..., TestClient]) -> None:
    status, html = await get(page(), "/audit?since=yesterday")
    assert status == 200
    assert "is not a time: use e.g. 30m, 2h, 7d" in text_of(html)


async def test_the_matrix_says_who_may_do_what_and_which_rule_decided(
    page: Callable[..., TestClient],
) -> None:
    status, html = await get(page(), "/permissions")
    assert status == 200
    header = re.findall(r'<th title="([^"]+)">', html)
    # Admins first, then people, then Home Assistant itself; no system user, no inactive one.
    assert header == [f"user:{ADMIN.user_id}", f"user:{CHILD.user_id}", "mqtt:homeassistant"]
    cells = matrix_cells(html)
    assert cells["light.kids_lamp"][1] == ("read ✓ users-read", "control ✓ sam-kids-room")
    assert cells["lock.front_door"][1] == ("read ✓ users-read", "control ✗ sam-no-locks")
    assert cells["lock.front_door"][0] == (
        "read ✓ admins-all",
        "control ? confirm.locks · asks first",
    )
    assert cells["climate.kids_heater"][1] == (
        "read ✓ users-read",
        "control ✓ sam-kids-room · limited: temperature",
    )
    assert cells["light.kitchen"][1] == ("read ✗ not_exposed", "control ✗ not_exposed")
    assert cells["light.kitchen"][0][1] == "control ✓ admins-all"  # admins ignore exposure
    # A satellite in the lamp's room may switch it (the rule of its own area); the heater,
    # in the same room, is not a light.
    assert cells["light.kids_lamp"][2] == ("read ✓ ui-allow", "control ✓ ui-allow-own_area")
    assert cells["climate.kids_heater"][2] == ("read ✓ ui-allow", "control ✗ not_allowed")
    assert "Voice satellites in that room" in html
    assert cells["sensor.hall_temperature"][1][1] == "control -"
    assert "Sam &lt;b&gt;Kid&lt;/b&gt;" in html  # a name is text


async def test_the_matrix_filters_by_area_and_name(page: Callable[..., TestClient]) -> None:
    _, html = await get(page(), "/permissions?area=kids_room")
    assert sorted(matrix_cells(html)) == ["climate.kids_heater", "light.kids_lamp"]
    _, html = await get(page(), "/permissions?q=door")
    assert sorted(matrix_cells(html)) == ["lock.front_door"]


def matrix_cells(html: str) -> dict[str, list[tuple[str, str]]]:
    """Entity id -> per principal (read, control) as the cells read."""
    table: dict[str, list[tuple[str, str]]] = {}
    body = html.split('id="matrix"')[1].split("<tbody>")[1]
    for row in re.findall(r"<tr>\s*<th>(.*?)</tr>", body, re.S):
        entity = re.search(r"<code>([^<]+)</code>", row)
        assert entity is not None
        cells = []
        for cell in re.findall(r"<td>(.*?)</td>", row, re.S):
            read, control = text_of(cell.replace("<br>", "\n")).split(" control ")
            cells.append((read, "control " + control))
        table[entity.group(1)] = cells
    return table


async def test_the_pairing_view_shows_the_window_but_never_its_code(
    page: Callable[..., TestClient], setup: Setup
) -> None:
    client = page()
    _, html = await get(client, "/pairing")
    assert "Pairing window closed" in text_of(html)
    assert setup.channel is not None
    setup.channel.pairing.open_window(CODE)
    _status, html = await get(client, "/pairing")
    words = text_of(html)
    assert re.search(r"Pairing window open, closes in (299|300) s; 0 of 3 sessions used", words)
    assert CODE not in html
    assert "Paired secrets (2 of at most 8)" in words
    assert "supervisor discovery Home Assistant's own link" in words
    assert html.count(">Revoke</button>") == 1  # the paired one; not the Supervisor's


async def post(
    client: TestClient, path: str, form: dict[str, str], **headers: str
) -> tuple[int, str]:
    if not client.server.started:
        await client.start_server()
    async with client.post(
        path, data=form, headers=as_user(ADMIN, **headers), allow_redirects=False
    ) as response:
        return response.status, response.headers.get("Location", "") + await response.text()


async def form_token(client: TestClient) -> str:
    _status, html = await get(client, "/pairing")
    found = re.search(r'name="token" value="([0-9a-f]{64})"', html)
    assert found is not None
    return found.group(1)


async def test_closing_the_window_and_revoking_a_secret_from_the_page(
    page: Callable[..., TestClient], setup: Setup
) -> None:
    assert setup.channel is not None
    client = page()
    setup.channel.pairing.open_window(CODE)
    token = await form_token(client)
    origin = "http://ha.local:8123"
    status, location = await post(client, "/pairing/close", {"token": token}, Origin=origin)
    assert status == 303
    assert location.startswith(f"{INGRESS_PATH}/pairing?done=")
    assert not setup.channel.pairing.is_open
    paired = next(e["id"] for e in setup.channel.pairing.store.listing() if "paired" in e["label"])
    status, _ = await post(client, "/pairing/revoke", {"token": token, "id": paired}, Origin=origin)
    assert status == 303
    assert [e["label"] for e in setup.channel.pairing.store.listing()] == [SUPERVISOR_LABEL]
    supervisors = setup.channel.pairing.store.listing()[0]["id"]
    status, location = await post(
        client, "/pairing/revoke", {"token": token, "id": supervisors}, Origin=origin
    )
    assert status == 303 and "not+revoked+here" in location
    assert len(setup.channel.pairing.store.listing()) == 1


@pytest.mark.parametrize(
    ("headers", "token_ok"),
    [
        ({"Origin": "http://evil.example"}, True),  # another site's form
        ({}, True),  # no Origin, no Sec-Fetch-Site: not shown to come from the page
        ({"Sec-Fetch-Site": "cross-site"}, True),
        ({"Origin": "http://ha.local:8123"}, False),  # the page's origin, a stale token
    ],
)
async def test_a_post_not_from_the_page_changes_nothing(
    page: Callable[..., TestClient], setup: Setup, headers: dict[str, str], token_ok: bool
) -> None:
    assert setup.channel is not None
    client = page()
    setup.channel.pairing.open_window(CODE)
    token = await form_token(client) if token_ok else "0" * 64
    status, _ = await post(client, "/pairing/close", {"token": token}, **headers)
    assert status == 403
    assert setup.channel.pairing.is_open


async def test_a_post_without_origin_but_from_the_same_origin_is_accepted(
    page: Callable[..., TestClient], setup: Setup
) -> None:
    assert setup.channel is not None
    client = page()
    setup.channel.pairing.open_window(CODE)
    token = await form_token(client)
    status, _ = await post(
        client, "/pairing/close", {"token": token}, **{"Sec-Fetch-Site": "same-origin"}
    )
    assert status == 303
    assert not setup.channel.pairing.is_open


# --- who may open it ----------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/doctor", "/pairing", "/audit", "/permissions"])
async def test_a_non_admin_is_refused_every_view(
    page: Callable[..., TestClient], path: str
) -> None:
    status, html = await get(page(), path, CHILD)
    assert status == 403
    assert "only Home Assistant administrators may open it" in text_of(html)
    assert "Sam &lt;b&gt;Kid&lt;/b&gt;" in html
    for secret in ("r059", "unlock1", "admins-all", "supervisor discovery", "Ada Admin"):
        assert secret not in html


@pytest.mark.parametrize(
    "user",
    [FORMER, HaUser("9" * 32, "Not in HA", is_admin=True)],
    ids=["deactivated admin", "unknown to HA"],
)
async def test_only_an_active_admin_ha_knows_may_open_it(
    page: Callable[..., TestClient], user: HaUser
) -> None:
    status, _ = await get(page(), "/", user)
    assert status == 403


async def test_a_demoted_admin_is_refused_from_then_on(
    page: Callable[..., TestClient], setup: Setup
) -> None:
    client = page()
    assert (await get(client, "/"))[0] == 200
    setup.users = [HaUser(ADMIN.user_id, ADMIN.name, is_admin=False), CHILD]  # HA says so now
    assert (await get(client, "/"))[0] == 403
    setup.users = []  # HA's user list unknown (disconnected): nobody is an admin
    assert (await get(client, "/"))[0] == 403


async def test_a_request_without_ingress_headers_is_refused(
    page: Callable[..., TestClient],
) -> None:
    status, html = await get(page(), "/audit", None)
    assert status == 401
    assert "open it from the sidebar" in text_of(html)
    assert "r059" not in html


async def test_connections_from_anywhere_but_the_supervisor_are_refused(
    page: Callable[..., TestClient],
) -> None:
    client = page(peers=frozenset({"172.30.32.2"}))  # the real rule: loopback is not it
    status, html = await get(client, "/audit")  # with an admin's headers, forged
    assert (status, html) == (403, "Forbidden")


async def test_every_answer_forbids_scripts_framing_by_others_and_caching(
    page: Callable[..., TestClient],
) -> None:
    client = page()
    await client.start_server()
    for path, user in (("/", ADMIN), ("/", CHILD), ("/nowhere", ADMIN), ("/static/page.css", None)):
        async with client.get(path, headers=as_user(user)) as response:
            policy = response.headers["Content-Security-Policy"]
            assert "default-src 'none'" in policy and "frame-ancestors 'self'" in policy
            assert "script-src" not in policy
            assert response.headers["X-Content-Type-Options"] == "nosniff"
            assert response.headers["Cache-Control"] == "no-store"


async def test_a_strange_ingress_path_is_not_used_for_links(
    page: Callable[..., TestClient],
) -> None:
    client = page()
    await client.start_server()
    headers = as_user(ADMIN) | {"X-Ingress-Path": '"><script>x</script>'}
    async with client.get("/", headers=headers) as response:
        html = await response.text()
    assert "<script>" not in html
    assert 'href="/pairing"' in html
