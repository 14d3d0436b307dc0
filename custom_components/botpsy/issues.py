"""Repair issues that follow what the app reports: offline, running without a model, on a
broker without an ACL, holding a secret no admin has acknowledged, or unable to start.

A restart of the app (an update) is offline for seconds and a first start loads its model
for minutes, so an issue appears only when the state lasts (`OFFLINE_ISSUE_DELAY_S`,
`NO_MODEL_ISSUE_DELAY_S`), and goes as soon as the app is back or has its model.

A broker without an ACL (`BROKER_WITHOUT_ACL`) is an issue as soon as the app's signed
`info` says `broker_acl: off`, and goes when it says `on`; `unknown` (the app cannot tell:
another broker than the Mosquitto app) leaves it as it is. Unsigned `info` is never read.

Every secret the app lists (its signed `pairing/state`) other than this entry's own, the
Supervisor's and those an admin acknowledged is an issue at once (`UNKNOWN_PAIRING`): its
holder can act as any HA user. Repairs are for admins only; the issue's fix flow
acknowledges it (`repairs.py`), `botpsy.revoke_pairing` removes the secret.

An app that cannot start (a bad option, a full disk, its CPU, its model file) says why in a
notification every user sees, and fires `STARTUP_PROBLEM_EVENT` with the same words (only
an admin token may fire events). The entry of that instance raises it as a repair issue,
which only admins see, and takes the notification away; the issue stays until the app is
back online, and stands for the "offline" one meanwhile (D85).
"""

from __future__ import annotations

from collections.abc import Callable
import logging

from homeassistant.components import persistent_notification
from homeassistant.config_entries import ConfigEntry
from homeassistant.core import CALLBACK_TYPE, Event, HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.event import async_call_later

from .const import CONF_ACKNOWLEDGED, DOMAIN, SUPERVISOR_LABEL
from .contract import BrokerAcl, ContractError, Pairing, StartupReport
from .link import AgentLink

_LOGGER = logging.getLogger(__name__)

OFFLINE = "agent_offline"
NO_MODEL = "no_model"
UNKNOWN_PAIRING = "unknown_pairing"
BROKER_WITHOUT_ACL = "broker_without_acl"
STARTUP_PROBLEM = "startup_problem"
OFFLINE_ISSUE_DELAY_S = 60.0
"""An app restart (an update) takes seconds: only a longer silence is a repair issue."""
NO_MODEL_ISSUE_DELAY_S = 900.0
"""A first start downloads and loads the model; only a long wait without one is an issue."""


class AgentIssues:
    """Creates and clears the repair issues of one config entry."""

    def __init__(self, hass: HomeAssistant, entry_id: str, link: AgentLink) -> None:
        self.hass = hass
        self._entry_id = entry_id
        self._link = link
        self._timers: dict[str, CALLBACK_TYPE] = {}

    def issue_id(self, kind: str) -> str:
        return f"{kind}_{self._entry_id}"

    @callback
    def update(self) -> None:
        """Follow the app's current status and info."""
        link = self._link
        if link.online is True:
            ir.async_delete_issue(self.hass, DOMAIN, self.issue_id(STARTUP_PROBLEM))
        # Said why it is down: that issue stands for "offline".
        down = link.online is False and not self._exists(STARTUP_PROBLEM)
        self._follow(OFFLINE, down, OFFLINE_ISSUE_DELAY_S)
        self._follow(NO_MODEL, link.online is True and link.model is None, NO_MODEL_ISSUE_DELAY_S)
        acl = link.broker_acl
        if acl is BrokerAcl.OFF and not self._exists(BROKER_WITHOUT_ACL):
            self._create(BROKER_WITHOUT_ACL, ir.IssueSeverity.WARNING)
        elif acl is BrokerAcl.ON:
            ir.async_delete_issue(self.hass, DOMAIN, self.issue_id(BROKER_WITHOUT_ACL))

    @callback
    def startup_problem(self, event: Event) -> None:
        """The app fired why it did not start (`STARTUP_PROBLEM_EVENT`): if it is this
        entry's app, an issue for admins in place of the notification every user sees."""
        try:
            report = StartupReport.from_json(event.data)
        except ContractError as err:
            _LOGGER.warning("Ignored a BotPsy start-up problem that is not valid: %s", err)
            return
        if report.instance != self._link.instance:
            return
        ir.async_create_issue(
            self.hass,
            DOMAIN,
            self.issue_id(STARTUP_PROBLEM),
            is_fixable=False,
            is_persistent=True,  # HA restarting does not start the app
            severity=ir.IssueSeverity.ERROR,
            translation_key=STARTUP_PROBLEM,
            translation_placeholders={
                "instance": report.instance,
                "title": report.title,
                "message": report.message,
            },
        )
        self._follow(OFFLINE, False, 0)
        persistent_notification.async_dismiss(self.hass, report.notification_id)

    @callback
    def close(self) -> None:
        """The entry unloads: no timers left, no issues about an entry that is gone."""
        for kind in (OFFLINE, NO_MODEL):
            self._follow(kind, False, 0)
        for kind in (BROKER_WITHOUT_ACL, STARTUP_PROBLEM):
            ir.async_delete_issue(self.hass, DOMAIN, self.issue_id(kind))

    def _follow(self, kind: str, present: bool, delay_s: float) -> None:
        if not present:
            if (cancel := self._timers.pop(kind, None)) is not None:
                cancel()
            ir.async_delete_issue(self.hass, DOMAIN, self.issue_id(kind))
            return
        if kind not in self._timers and not self._exists(kind):
            self._timers[kind] = async_call_later(self.hass, delay_s, self._creator(kind))

    def _creator(self, kind: str) -> Callable[[object], None]:
        @callback
        def create(_now: object) -> None:
            self._timers.pop(kind, None)
            self._create(
                kind, ir.IssueSeverity.ERROR if kind == OFFLINE else ir.IssueSeverity.WARNING
            )

        return create

    def _create(self, kind: str, severity: ir.IssueSeverity) -> None:
        ir.async_create_issue(
            self.hass,
            DOMAIN,
            self.issue_id(kind),
            is_fixable=False,
            severity=severity,
            translation_key=kind,
            translation_placeholders={"instance": self._link.instance},
        )

    def _exists(self, kind: str) -> bool:
        return ir.async_get(self.hass).async_get_issue(DOMAIN, self.issue_id(kind)) is not None


class PairingIssues:
    """One fixable repair issue per secret of the app that no admin has acknowledged."""

    def __init__(self, hass: HomeAssistant, entry: ConfigEntry, link: AgentLink) -> None:
        self.hass = hass
        self._entry = entry
        self._link = link
        self._raised: set[str] = set()

    def issue_id(self, pairing_id: str) -> str:
        return f"{UNKNOWN_PAIRING}_{self._entry.entry_id}_{pairing_id}"

    @callback
    def update(self) -> None:
        """Follow the app's list of secrets (ignored until a signed one arrived)."""
        if self._link.pairings is None:
            return
        unknown = {p.id: p.label for p in self._link.pairings if not self._known(p)}
        for gone in self._raised - set(unknown):
            ir.async_delete_issue(self.hass, DOMAIN, self.issue_id(gone))
        for pairing_id, label in unknown.items():
            ir.async_create_issue(
                self.hass,
                DOMAIN,
                self.issue_id(pairing_id),
                is_fixable=True,
                is_persistent=False,
                severity=ir.IssueSeverity.CRITICAL,
                translation_key=UNKNOWN_PAIRING,
                translation_placeholders={
                    "instance": self._link.instance,
                    "pairing_id": pairing_id,
                    "label": label or "no label",
                },
                data={"entry_id": self._entry.entry_id, "pairing_id": pairing_id},
            )
        self._raised = set(unknown)

    @callback
    def close(self) -> None:
        for pairing_id in self._raised:
            ir.async_delete_issue(self.hass, DOMAIN, self.issue_id(pairing_id))
        self._raised.clear()

    def _known(self, pairing: Pairing) -> bool:
        return (
            pairing.id == self._link.pairing_id
            or pairing.label == SUPERVISOR_LABEL
            or pairing.id in self._entry.data.get(CONF_ACKNOWLEDGED, [])
        )


@callback
def async_acknowledge_pairing(hass: HomeAssistant, entry: ConfigEntry, pairing_id: str) -> None:
    """An admin says the secret `pairing_id` is theirs: no issue for it any more."""
    known = [*entry.data.get(CONF_ACKNOWLEDGED, []), pairing_id]
    hass.config_entries.async_update_entry(entry, data={**entry.data, CONF_ACKNOWLEDGED: known})
    ir.async_delete_issue(hass, DOMAIN, f"{UNKNOWN_PAIRING}_{entry.entry_id}_{pairing_id}")
