"""The `botpsy.ask` action: a request from an automation or script, answered with data.

(And `botpsy.revoke_pairing`, admins only: the app forgets one paired secret, by the id its
`pairing/state` and the integration's repair issue list. The app checks the admin too: the
request is signed for the calling user, so a call without one, an automation's, is refused.)

It returns the app's whole response (status, speech, actions, path, timings). The agent's
decisions (done, a question, a refusal) are data an automation can act on; when no answer
can be had (the app offline or busy, a request it could not read) the action fails with a
translated error instead.
"""

from __future__ import annotations

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant, ServiceCall, ServiceResponse, SupportsResponse
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError
from homeassistant.helpers import config_validation as cv
from homeassistant.helpers.service import async_register_admin_service
import probatio

from .answers import answer_for
from .const import DOMAIN
from .contract import AppResponse, Status
from .link import AgentLink, Ask

SERVICE_ASK = "ask"
VIA_ACTION = "action"
ATTR_CONFIG_ENTRY_ID = "config_entry_id"
ATTR_TEXT = "text"
ATTR_USER = "user"
ATTR_CONVERSATION_ID = "conversation_id"
ATTR_LANGUAGE = "language"
ATTR_DRY_RUN = "dry_run"
SERVICE_REVOKE_PAIRING = "revoke_pairing"
ATTR_PAIRING_ID = "pairing_id"

ASK_SCHEMA = probatio.Schema(
    {
        probatio.Required(ATTR_TEXT): probatio.All(cv.string, probatio.Length(min=1, max=2000)),
        probatio.Optional(ATTR_CONFIG_ENTRY_ID): cv.string,
        probatio.Optional(ATTR_USER): cv.string,
        probatio.Optional(ATTR_CONVERSATION_ID): cv.string,
        probatio.Optional(ATTR_LANGUAGE): cv.string,
        probatio.Optional(ATTR_DRY_RUN, default=False): cv.boolean,
    }
)


REVOKE_SCHEMA = probatio.Schema(
    {
        probatio.Required(ATTR_PAIRING_ID): probatio.All(
            cv.string, probatio.Match(r"^[0-9a-f]{12}$")
        ),
        probatio.Optional(ATTR_CONFIG_ENTRY_ID): cv.string,
    }
)


def async_setup_services(hass: HomeAssistant) -> None:
    """Register the integration's actions (once, when the integration loads)."""

    async def ask(call: ServiceCall) -> ServiceResponse:
        link = _link(hass, call.data.get(ATTR_CONFIG_ENTRY_ID))
        user_id = await _acting_user(hass, call)
        response = await link.async_request(
            Ask(
                text=call.data[ATTR_TEXT],
                language=call.data.get(ATTR_LANGUAGE) or hass.config.language,
                user_id=user_id,
                conversation_id=call.data.get(ATTR_CONVERSATION_ID),
                dry_run=call.data[ATTR_DRY_RUN],
            ),
            via=VIA_ACTION,
            context=call.context,
        )
        _raise_for_failure(response)
        return dict(response.document)

    hass.services.async_register(
        DOMAIN, SERVICE_ASK, ask, schema=ASK_SCHEMA, supports_response=SupportsResponse.ONLY
    )

    async def revoke_pairing(call: ServiceCall) -> None:
        link = _link(hass, call.data.get(ATTR_CONFIG_ENTRY_ID))
        if call.context.user_id is None:  # HA let it through as the system's: no admin named
            raise ServiceValidationError(
                translation_domain=DOMAIN, translation_key="revoke_needs_admin"
            )
        await link.async_revoke_pairing(call.data[ATTR_PAIRING_ID], call.context.user_id)

    async_register_admin_service(
        hass, DOMAIN, SERVICE_REVOKE_PAIRING, revoke_pairing, schema=REVOKE_SCHEMA
    )


def _link(hass: HomeAssistant, entry_id: str | None) -> AgentLink:
    """The link of the entry named, or of the only loaded one."""
    entries = hass.config_entries.async_entries(DOMAIN)
    if entry_id is not None:
        entries = [entry for entry in entries if entry.entry_id == entry_id]
        if not entries:
            raise ServiceValidationError(
                translation_domain=DOMAIN,
                translation_key="unknown_entry",
                translation_placeholders={"entry_id": entry_id},
            )
    loaded = [entry for entry in entries if entry.state is ConfigEntryState.LOADED]
    if not loaded:
        raise ServiceValidationError(translation_domain=DOMAIN, translation_key="not_loaded")
    if len(loaded) > 1:
        raise ServiceValidationError(translation_domain=DOMAIN, translation_key="choose_entry")
    link: AgentLink = loaded[0].runtime_data
    return link


async def _acting_user(hass: HomeAssistant, call: ServiceCall) -> str | None:
    """Whom the request acts for: `user` (admins and automations may name anyone), else the
    caller; None when there is no user at all (the app's `homeassistant` principal)."""
    caller = call.context.user_id
    named = call.data.get(ATTR_USER)
    if named is None or named == caller:
        return caller
    if caller is not None:
        caller_user = await hass.auth.async_get_user(caller)
        if caller_user is None or not caller_user.is_admin:
            raise ServiceValidationError(translation_domain=DOMAIN, translation_key="not_admin")
    user = await hass.auth.async_get_user(named)
    if user is None or not user.is_active or user.system_generated:
        raise ServiceValidationError(
            translation_domain=DOMAIN,
            translation_key="unknown_user",
            translation_placeholders={"user": named},
        )
    return str(user.id)


def _raise_for_failure(response: AppResponse) -> None:
    """What Assist says from this integration's translations (the answer is no decision of
    the agent's) is an error of the action; so is an error the agent phrased itself, which
    Assist says as it is."""
    answer = answer_for(response)
    if answer.translation_key is not None:
        raise HomeAssistantError(
            translation_domain=DOMAIN,
            translation_key=answer.translation_key,
            translation_placeholders=answer.placeholders,
        )
    if response.status is Status.ERROR:
        raise HomeAssistantError(
            translation_domain=DOMAIN,
            translation_key="agent_error",
            translation_placeholders={
                "code": response.error_code or "error",
                "message": answer.speech,
            },
        )
