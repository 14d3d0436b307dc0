"""The admin page in a real browser (issue 30, item 7): Playwright drives Debian's Chromium
(headless; `script/env` installs it, never a browser build of Playwright's own) through a
stand-in for Home Assistant's ingress (`devkit/ingress.py`) to the real app, running on a
real HA (the test home, its users) and a real Mosquitto, with an audit log written by real
requests. An admin clicks through every view; a child is refused; so is a browser that
reaches the app's port without HA's ingress.

Each view is also a screenshot: into the test's folder, and into `docs/ingress/` when
`BOTPSY_SCREENSHOTS=docs` (how the committed ones were made; a plain `make test` leaves the
tree as it is)."""

from __future__ import annotations

from collections.abc import AsyncIterator
import json
import os
from pathlib import Path
import shutil

from homeassistant.auth.models import User
from homeassistant.core import HomeAssistant
from homeassistant.setup import async_setup_component
from playwright.async_api import Browser, Locator, Page, async_playwright, expect
import pytest

from botpsy_agent.app.config import DEFAULT_OPTIONS
from botpsy_agent.app.runtime import App
from botpsy_agent.mqtt.settings import ApiSettings
from botpsy_agent.web import IngressSettings
from devkit.ingress import IngressStandIn, IngressUser
from devkit.mosquitto import MosquittoBroker, free_port
from tests.app_runtime import runtime_config, write_app_files
from tests.ha_home import HaHome
from tests.ha_server import HomeAssistantApiServer
from tests.mqtt.client import subscribed_client

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
INSTANCE = "home"
TOPICS = f"botpsy/{INSTANCE}"
CODE = "K7M2Q9XR"


def policy(child: User) -> str:
    return f"""\
version: 1
confirm: [locks]
groups:
  admin: {{ignore_exposure: true, rules: [{{id: admins-all, allow: [read, control]}}]}}
  users: {{rules: [{{id: users-read, allow: [read]}}]}}
users:
  - id: {child.id}
    name: {child.name}
    rules:
      - {{id: kids-bedroom, allow: [control], areas: [bedroom]}}
      - {{id: no-locks, deny: [control], domains: [lock]}}
mqtt:
  kitchen-panel: {{rules: [{{id: panel-kitchen, allow: [read, control], areas: [kitchen]}}]}}
  homeassistant: {{rules: [{{id: ui-allow, allow: [read]}}]}}
"""


@pytest.fixture
async def browser(socket_enabled: None) -> AsyncIterator[Browser]:
    if not CHROMIUM.exists():  # noqa: ASYNC240  one stat, before anything runs
        pytest.fail("Debian's Chromium is missing: run `make env` (script/env installs it)")
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS
        )
        yield browser
        await browser.close()


class Shots:
    """Where screenshots go: the test's folder, and docs/ingress when asked."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.docs = ROOT / "docs" / "ingress" if os.environ.get("BOTPSY_SCREENSHOTS") else None

    async def take(self, page: Page, name: str) -> Path:
        path = self.folder / f"{name}.png"
        await page.screenshot(path=path, full_page=True)
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        if self.docs is not None:
            self.docs.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, self.docs / path.name)
        return path


@pytest.fixture
async def running(
    hass: HomeAssistant,
    ha_home: HaHome,
    ha_api: HomeAssistantApiServer,
    mosquitto: MosquittoBroker,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[tuple[App, IngressStandIn, User, User]]:
    """The app with its admin page, HA's two users (an admin and a child) and the ingress
    stand-in in front; the audit log holds the answers to three real requests."""
    assert await async_setup_component(hass, "api", {})  # the doctor checks HA's REST API
    admin = await hass.auth.async_create_user("Ada Admin", group_ids=["system-admin"])
    child = await hass.auth.async_create_user("Sam", group_ids=["system-users"])
    write_app_files(tmp_path, policy=policy(child), secret="5" * 64, label="paired 2026-12-01")
    options = tmp_path / "options.json"
    options.write_text(
        json.dumps(DEFAULT_OPTIONS | {"mqtt": {"host": mosquitto.host, "port": mosquitto.port}})
    )
    for name, value in {
        "BOTPSY_HA_URL": ha_api.url,
        "BOTPSY_HA_TOKEN": ha_api.token,
        "BOTPSY_CONFIG_DIR": str(tmp_path),
        "BOTPSY_DATA_DIR": str(tmp_path / "data"),
    }.items():
        monkeypatch.setenv(name, value)
    config = runtime_config(
        ha_api,
        mosquitto,
        tmp_path,
        api=ApiSettings(instance=INSTANCE),
        model=None,
        # Loopback stands for the Supervisor's 172.30.32.2: the stand-in's address.
        ingress=IngressSettings(host="127.0.0.1", port=free_port(), peers=frozenset({"127.0.0.1"})),
        options_file=options,
    )
    app = App(config)
    await app.start()
    assert app.web is not None and app.web.port is not None
    web_port = app.web.port

    async def user(user_id: str) -> IngressUser | None:  # the Supervisor asks HA
        found = await hass.auth.async_get_user(user_id) if user_id else None
        return None if found is None else IngressUser(found.id, found.name or "", found.name or "")

    stand_in = IngressStandIn(lambda: web_port, user)
    await stand_in.start()
    async with subscribed_client(mosquitto, f"{TOPICS}/response/#") as client:
        for request_id, text in (
            ("k1", "turn on the kitchen lights"),
            ("k2", "unlock the back door"),
        ):
            client.publish(f"{TOPICS}/request/kitchen-panel", {"id": request_id, "text": text})
            await client.response(f"{TOPICS}/response/kitchen-panel", request_id)
        client.publish(f"{TOPICS}/request", {"id": "a1", "text": "open the garage"})
        await client.response(f"{TOPICS}/response", "a1")
    try:
        yield app, stand_in, admin, child
    finally:
        await stand_in.stop()
        await app.stop()


async def test_an_admin_clicks_through_every_view(
    running: tuple[App, IngressStandIn, User, User], browser: Browser, tmp_path: Path
) -> None:
    app, ingress, admin, child = running
    shots = Shots(tmp_path)
    page = await browser.new_page(viewport={"width": 1280, "height": 800})

    # Status: opened from HA's sidebar (the ingress path), the app's state as HA's sensors say.
    await page.goto(ingress.login_url(admin.id))
    assert page.url == ingress.url(f"{ingress.ingress_path}/")
    await expect(page.locator("h1")).to_have_text("Status")
    await expect(page.locator("header .who")).to_have_text("Ada Admin")
    await expect(page.locator("#model")).to_have_text("none loaded")
    await expect(page.locator("#health")).to_contain_text("no model: fast path only")
    await shots.take(page, "status")

    # The doctor's checks, run on the app's options.
    await page.get_by_role("link", name="Run the doctor's checks").click()
    await expect(page.locator("h1")).to_have_text("The doctor's checks")
    rows = page.locator("table.checks tbody tr")
    await expect(rows).to_have_count(7)
    await expect(rows.filter(has_text="MQTT")).to_contain_text(f"connected to {ingress.host}")
    await expect(rows.filter(has_text="Home Assistant")).to_contain_text("ok")
    await expect(rows.filter(has_text="model")).to_contain_text("FAIL")  # no model file here
    await shots.take(page, "doctor")

    # Pairing: an admin's flow opened a window; the page shows it (never its code), closes it.
    assert app.integration is not None
    app.integration.pairing.open_window(CODE)
    await page.get_by_role("link", name="Pairing").click()
    await expect(page.locator("#window")).to_contain_text("open, closes in")
    await expect(page.locator("#secrets tbody tr")).to_have_count(1)
    assert CODE not in await page.content()
    await shots.take(page, "pairing")
    await page.get_by_role("button", name="Close the window now").click()
    await expect(page.locator("#notice")).to_have_text("The pairing window is closed.")
    await expect(page.locator("#window")).to_have_text("closed")
    assert not app.integration.pairing.is_open

    # The audit log: the three requests (the panel's unlock refused: HA exposes no lock to
    # Assist by default; the anonymous one refused at the door), then filtered.
    await page.get_by_role("link", name="Audit log").click()
    await expect(page.locator("#audit-count")).to_contain_text("record(s), newest first")
    table = page.locator("#audit")
    await expect(table).to_contain_text("control_lock lock.back_door")
    await expect(table).to_contain_text("refused: not_exposed")
    await expect(table).to_contain_text("unknown_principal")
    await page.locator("select[name=user]").select_option(label="MQTT client kitchen-panel")
    await page.locator("select[name=outcome]").select_option("executed")
    await page.get_by_role("button", name="Show").click()
    rows = page.locator("#audit tbody tr")
    await expect(rows).to_have_count(1)
    await expect(rows).to_contain_text("light.kitchen_lights")
    await expect(rows).to_contain_text("allow (panel-kitchen)")
    await page.locator("select[name=outcome]").select_option("")
    await page.get_by_role("button", name="Show").click()
    await expect(rows).to_have_count(6)  # the panel's two requests, actions and answers
    assert "unknown_principal" not in await table.inner_text()
    await shots.take(page, "audit")

    # Who may do what, and which rule decided.
    await page.get_by_role("link", name="Permissions").click()
    await page.locator("select[name=area]").select_option(label="Kitchen")
    await page.get_by_role("button", name="Show").click()
    columns = await page.locator("#matrix thead th[title]").evaluate_all(
        "cells => cells.map(cell => cell.title)"
    )
    column = {key: n for n, key in enumerate(columns)}

    def cell(entity_id: str, key: str) -> Locator:
        row = page.locator("#matrix tbody tr", has_text=entity_id)
        return row.locator("td").nth(column[key])

    ada, sam = f"user:{admin.id}", f"user:{child.id}"
    panel, satellites = "mqtt:kitchen-panel", "mqtt:homeassistant"
    lights = "light.kitchen_lights"
    await expect(cell(lights, ada)).to_contain_text("control ✓ admins-all")
    await expect(cell(lights, sam)).to_contain_text("read ✓ users-read")
    await expect(cell(lights, sam)).to_contain_text("control ✗ not_allowed")
    await expect(cell(lights, satellites)).to_contain_text("read ✓ ui-allow")
    await expect(cell(lights, panel)).to_contain_text("control ✓ panel-kitchen")
    await expect(cell("lock.back_door", ada)).to_contain_text("control ? confirm.locks")
    await expect(cell("lock.back_door", panel)).to_contain_text("control ✗ not_exposed")
    await page.set_viewport_size({"width": 1920, "height": 800})  # every column in the shot
    await shots.take(page, "permissions")
    await page.locator("select[name=area]").select_option(label="Bedroom")
    await page.get_by_role("button", name="Show").click()
    await expect(cell("light.bed_light", sam)).to_contain_text("control ✓ kids-bedroom")


async def test_a_child_and_a_browser_without_ingress_are_refused(
    running: tuple[App, IngressStandIn, User, User], browser: Browser, tmp_path: Path
) -> None:
    app, ingress, _, child = running
    page = await browser.new_page()
    response = await page.goto(ingress.login_url(child.id))
    assert response is not None and response.status == 403
    await expect(page.locator("h1")).to_have_text("Only administrators")
    await expect(page.locator("main")).to_contain_text("Sam, BotPsy's page shows")
    for path in ("audit", "permissions", "pairing"):
        response = await page.goto(ingress.url(f"{ingress.ingress_path}/{path}"))
        assert response is not None and response.status == 403
        assert "kitchen" not in await page.content()
    await Shots(tmp_path).take(page, "refused")

    # The app's port itself, without HA's ingress in front: no user, nothing shown.
    assert app.web is not None
    response = await page.goto(f"http://127.0.0.1:{app.web.port}/audit")
    assert response is not None and response.status == 401
    await expect(page.locator("h1")).to_have_text("Open BotPsy from Home Assistant")
    assert "kitchen" not in await page.content()
