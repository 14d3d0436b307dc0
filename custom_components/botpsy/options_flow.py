"""Options flow: who may do what, edited with Home Assistant's selectors.

The rules live in the app's policy file; this flow shows what the app publishes of that file
(`policy/state`), and sends a person's `ui-` rules, Home Assistant's own (voice satellites and
automations without a user), or the confirmation classes, back to the app (signed, retained).
The flow finishes once the app has validated and written them, or shows why it refused them
(`permissions.py`, the app's `policy_sync.py`).
"""

from __future__ import annotations

from typing import Any

from homeassistant.config_entries import ConfigEntryState, ConfigFlowResult, OptionsFlow
from homeassistant.core import HomeAssistant
from homeassistant.data_entry_flow import section
from homeassistant.helpers.selector import (
    AreaSelector,
    AreaSelectorConfig,
    BooleanSelector,
    EntitySelector,
    EntitySelectorConfig,
    FloorSelector,
    FloorSelectorConfig,
    LabelSelector,
    LabelSelectorConfig,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    SelectOptionDict,
    SelectSelector,
    SelectSelectorConfig,
)
import probatio

from .contract import HA_PRINCIPAL
from .link import AgentLink
from .permissions import (
    ACCESS,
    CONFIRM_CLASSES,
    FIELD_ACCESS,
    INHERIT,
    OWN_AREA,
    SECTION_BOUNDS,
    SELECTORS,
    BoundsError,
    form_from_rules,
    other_rules,
    rules_from_form,
)

CONF_USER = "user"
CONF_CLASSES = "classes"
CONFIRM_KEY = "confirm"
APPLY_TIMEOUT_S = 10.0
NUMBER_RANGES = {  # the bounds fields (permissions.BOUNDS): (min, max, step, unit)
    "temperature_min": (5.0, 35.0, 0.5, "°C"),
    "temperature_max": (5.0, 35.0, 0.5, "°C"),
    "brightness_max": (1.0, 100.0, 1.0, "%"),
    "volume_max": (1.0, 100.0, 1.0, "%"),
}


class PermissionsFlow(OptionsFlow):
    """Edits one person's rules, or the confirmation classes everyone gets."""

    def __init__(self) -> None:
        self._user_id = ""
        self._user_name = ""
        """The person edited; empty while Home Assistant's own rules are."""

    @property
    def _link(self) -> AgentLink:
        link: AgentLink = self.config_entry.runtime_data
        return link

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        if self.config_entry.state is not ConfigEntryState.LOADED:
            return self.async_abort(reason="not_loaded")
        if self._link.policy_state is None:
            return self.async_abort(reason="policy_unknown")
        return self.async_show_menu(
            step_id="init", menu_options=["person", "home_assistant", "confirmations"]
        )

    async def async_step_person(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        users = {
            user.id: user.name or user.id
            for user in await self.hass.auth.async_get_users()
            if user.is_active and not user.system_generated
        }
        if user_input is not None:
            self._user_id = user_input[CONF_USER]
            self._user_name = users[self._user_id]
            return await self.async_step_rules()
        options = [SelectOptionDict(value=uid, label=name) for uid, name in users.items()]
        schema = probatio.Schema(
            {
                probatio.Required(CONF_USER): probatio.All(
                    SelectSelector(SelectSelectorConfig(options=options)), probatio.In(users)
                )
            }
        )
        return self.async_show_form(step_id="person", data_schema=schema)

    async def async_step_rules(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        return await self._async_edit_rules("rules", user_input)

    async def async_step_home_assistant(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        """Home Assistant's own rules: voice satellites and automations without a user.
        Only requests HA signs as itself get them, never a message on the broker."""
        self._user_id, self._user_name = "", ""
        return await self._async_edit_rules("home_assistant", user_input)

    async def _async_edit_rules(
        self, step_id: str, user_input: dict[str, Any] | None
    ) -> ConfigFlowResult:
        state = self._link.policy_state or {}
        person = bool(self._user_id)
        current = _person(state, self._user_id) if person else state.get(HA_PRINCIPAL) or {}
        rules = current.get("rules") or []
        placeholders = {"other_rules": str(other_rules(rules)), "problems": ""}
        if person:
            placeholders["person"] = self._user_name
        suggested = form_from_rules(rules, current.get(INHERIT, True) is not False)
        errors: dict[str, str] = {}
        if user_input is not None:
            suggested = user_input
            try:
                form_rules = rules_from_form(user_input)
            except BoundsError:
                errors["base"] = "invalid_bounds"
            else:
                key, body = self._update(user_input, form_rules)
                verdict = await self._link.async_publish_rules(key, body, APPLY_TIMEOUT_S)
                if (result := self._finish(verdict, placeholders)) is not None:
                    return result
                errors["base"] = "refused"
        schema = self.add_suggested_values_to_schema(
            _rules_schema(self.hass, with_inherit=person), suggested
        )
        return self.async_show_form(
            step_id=step_id,
            data_schema=schema,
            errors=errors,
            description_placeholders=placeholders,
        )

    def _update(
        self, form: dict[str, Any], rules: list[dict[str, Any]]
    ) -> tuple[str, dict[str, Any]]:
        """The key and body of the permission update for what the form says."""
        if not self._user_id:
            return HA_PRINCIPAL, {"principal": {"rules": rules}}
        user = {"name": self._user_name, "inherit": bool(form[INHERIT]), "rules": rules}
        return self._user_id, {"user": user}

    async def async_step_confirmations(
        self, user_input: dict[str, Any] | None = None
    ) -> ConfigFlowResult:
        placeholders = {"problems": ""}
        errors: dict[str, str] = {}
        if user_input is not None:
            body = {CONFIRM_KEY: list(user_input.get(CONF_CLASSES) or [])}
            verdict = await self._link.async_publish_rules(CONFIRM_KEY, body, APPLY_TIMEOUT_S)
            if (result := self._finish(verdict, placeholders)) is not None:
                return result
            errors["base"] = "refused"
        current = (self._link.policy_state or {}).get(CONFIRM_KEY) or []
        schema = probatio.Schema(
            {
                probatio.Optional(CONF_CLASSES, default=list(current)): SelectSelector(
                    SelectSelectorConfig(
                        options=list(CONFIRM_CLASSES),
                        multiple=True,
                        translation_key="confirm_class",
                    )
                )
            }
        )
        return self.async_show_form(
            step_id="confirmations",
            data_schema=schema,
            errors=errors,
            description_placeholders=placeholders,
        )

    def _finish(
        self, verdict: dict[str, Any] | None, placeholders: dict[str, str]
    ) -> ConfigFlowResult | None:
        """Done when the app applied it; an abort when it did not answer (the retained
        update waits for it); None, with the problems, when it refused."""
        if verdict is None:
            return self.async_abort(reason="not_applied_yet")
        if verdict.get("status") == "applied":
            return self.async_create_entry(data=dict(self.config_entry.options))
        placeholders["problems"] = "; ".join(str(p) for p in verdict.get("problems") or [])
        return None


def _person(state: dict[str, Any], user_id: str) -> dict[str, Any]:
    for user in state.get("users") or []:
        if isinstance(user, dict) and user.get("id") == user_id:
            return user
    return {}


def _rules_schema(hass: HomeAssistant, *, with_inherit: bool) -> probatio.Schema:
    """The rules form; `with_inherit` for a person (Home Assistant itself has no group)."""
    domains = sorted({state.domain for state in hass.states.async_all()})
    selectors: dict[str, Any] = {
        "areas": AreaSelector(AreaSelectorConfig(multiple=True)),
        "floors": FloorSelector(FloorSelectorConfig(multiple=True)),
        "labels": LabelSelector(LabelSelectorConfig(multiple=True)),
        "entities": EntitySelector(EntitySelectorConfig(multiple=True)),
        "domains": SelectSelector(
            SelectSelectorConfig(options=domains, multiple=True, custom_value=True)
        ),
    }
    access = SelectSelector(
        SelectSelectorConfig(options=list(ACCESS), multiple=True, translation_key="access")
    )

    def targets(with_access: bool) -> probatio.Schema:
        fields: dict[Any, Any] = {probatio.Optional(FIELD_ACCESS): access} if with_access else {}
        fields.update({probatio.Optional(kind): selectors[kind] for kind in SELECTORS})
        if not with_inherit:  # Home Assistant itself: a satellite's request has an area
            fields[probatio.Optional(OWN_AREA)] = BooleanSelector()
        return probatio.Schema(fields)

    bounds = probatio.Schema(
        {
            probatio.Optional(field): NumberSelector(
                NumberSelectorConfig(
                    min=low,
                    max=high,
                    step=step,
                    unit_of_measurement=unit,
                    mode=NumberSelectorMode.BOX,
                )
            )
            for field, (low, high, step, unit) in NUMBER_RANGES.items()
        }
    )
    fields: dict[Any, Any] = (
        {probatio.Required(INHERIT, default=True): BooleanSelector()} if with_inherit else {}
    )
    fields.update(
        {
            probatio.Required("allow"): section(targets(True), {"collapsed": False}),
            probatio.Required("deny"): section(targets(True), {"collapsed": False}),
            probatio.Required("confirm"): section(targets(False), {"collapsed": True}),
            probatio.Required(SECTION_BOUNDS): section(bounds, {"collapsed": True}),
        }
    )
    return probatio.Schema(fields)
