"""What the app announces about itself: the retained info and tools topics, and HA's
device-based MQTT discovery of the "BotPsy agent" device."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from botpsy_agent import __version__
from botpsy_agent.mqtt.settings import ApiSettings
from botpsy_agent.mqtt.topics import Topics
from tool_schemas.catalog import catalog, catalog_version

API_VERSION = 1
PROJECT_URL = "https://github.com/botpsy/botpsy-ha"  # as in repository.yaml
CAPABILITIES = (
    "signed_user_requests",
    "named_principals",
    "dry_run",
    "retry_by_id",
    "mqtt5_response_topic",
    "events",
)


@dataclass(frozen=True)
class AnnouncedModel:
    """The model the agent runs, as the info topic and HA's model sensor show it."""

    file: str
    quant: str | None = None
    architecture: str | None = None


def info_payload(
    settings: ApiSettings, model: AnnouncedModel | None, broker_acl: str = "unknown"
) -> dict[str, Any]:
    """`info` before signing. `broker_acl` (`on`, `off`, `unknown`) is what the app found
    about the broker's ACL (`app/broker_acl.py`); the integration raises a repair issue
    for `off`."""
    topics = Topics.of(settings)
    return {
        "api_version": API_VERSION,
        "version": __version__,
        "instance": settings.instance,
        "model": None
        if model is None
        else {"file": model.file, "quant": model.quant, "architecture": model.architecture},
        "languages": list(settings.languages),
        "tools_version": catalog_version(),
        "capabilities": list(CAPABILITIES),
        "broker_acl": broker_acl,
        "limits": {
            "max_payload_bytes": settings.max_payload_bytes,
            "max_text_chars": settings.max_text_chars,
            "queue_capacity": settings.queue_capacity,
            "replay_window_s": settings.replay_window_s,
        },
        "topics": {
            "request": topics.request,
            "named_request": f"{topics.request}/<principal>",
            "response": topics.response,
            "events": topics.events,
            "tools": topics.tools,
            "stats": topics.stats,
        },
    }


def status_payload(state: str, session: str) -> dict[str, Any]:
    """`status` before signing: `online` or `offline`, and the connection (`session`) it is
    about. Signed (`sigs`, `ts`) so that HA believes no other login's `offline`."""
    return {"state": state, "session": session}


def tools_payload() -> dict[str, Any]:
    return {"version": catalog_version(), "tools": catalog()}


def discovery_payload(settings: ApiSettings) -> dict[str, Any]:
    """`homeassistant/device/botpsy_<instance>/config`: one device, its sensors and button.

    Every entity but `status` is unavailable while the app is offline; `status` itself shows
    online/offline. Values come from the retained status, info and stats topics.
    """
    topics = Topics.of(settings)
    device = topics.device_id
    state = "{{ value_json.state }}"
    available = {"availability": [{"topic": topics.status, "value_template": state}]}

    def entity(platform: str, key: str, name: str, **config: Any) -> dict[str, Any]:
        return {
            "platform": platform,
            "unique_id": f"{device}_{key}",
            "default_entity_id": f"{platform}.{device}_{key}",
            "name": name,
            **config,
        }

    stats = {"state_topic": topics.stats}
    return {
        "device": {
            "identifiers": [device],
            # One per instance: two apps on one broker must not show as two "BotPsy agent".
            "name": f"BotPsy agent ({settings.instance})",
            "manufacturer": "BotPsy",
            "model": "BotPsy local assistant",
            "sw_version": __version__,
        },
        "origin": {"name": "botpsy", "sw_version": __version__, "support_url": PROJECT_URL},
        "qos": 1,
        "components": {
            "status": entity(
                "sensor",
                "status",
                "Status",
                state_topic=topics.status,
                value_template=state,
                device_class="enum",
                options=["online", "offline"],
                icon="mdi:robot",
            ),
            "model": entity(
                "sensor",
                "model",
                "Model",
                state_topic=topics.info,
                value_template="{{ value_json.model.file if value_json.model else 'none' }}",
                icon="mdi:brain",
                entity_category="diagnostic",
                **available,
            ),
            "last_latency": entity(
                "sensor",
                "last_latency",
                "Last latency",
                value_template="{{ value_json.last_latency_ms }}",
                unit_of_measurement="ms",
                device_class="duration",
                state_class="measurement",
                **stats,
                **available,
            ),
            "requests_per_minute": entity(
                "sensor",
                "requests_per_minute",
                "Requests per minute",
                value_template="{{ value_json.requests_per_minute }}",
                unit_of_measurement="req/min",
                state_class="measurement",
                icon="mdi:speedometer",
                **stats,
                **available,
            ),
            "queue_length": entity(
                "sensor",
                "queue_length",
                "Queue length",
                value_template="{{ value_json.queue_length }}",
                state_class="measurement",
                icon="mdi:tray-full",
                **stats,
                **available,
            ),
            "health": entity(
                "sensor",
                "health",
                "Health",
                value_template="{{ value_json.health | default('ok') }}",
                json_attributes_topic=topics.stats,
                json_attributes_template="{{ {'problems': value_json.problems | default([])}"
                " | tojson }}",
                device_class="enum",
                options=["ok", "degraded"],
                icon="mdi:heart-pulse",
                entity_category="diagnostic",
                **stats,
                **available,
            ),
            "model_state": entity(
                "sensor",
                "model_state",
                "Model state",
                # "downloading 42 %" while the model file is fetched (a first start), "model
                # warming up, 40 %" while the prompt prefix is built, else the state.
                value_template="{% if value_json.model_state == 'warming_up' %}"
                "model warming up, {{ value_json.warming_up_percent }} %"
                "{% elif value_json.model_state == 'downloading' %}"
                "downloading {{ value_json.download_percent }} %"
                "{% else %}{{ value_json.model_state | default('none') }}{% endif %}",
                json_attributes_topic=topics.stats,
                json_attributes_template="{% if value_json.model_state == 'downloading' %}"
                "{{ {'percent': value_json.download_percent,"
                " 'eta_s': value_json.download_eta_s,"
                " 'downloaded_mb': ((value_json.download_bytes or 0) / 1000000) | round(1),"
                " 'size_mb': ((value_json.download_total_bytes or 0) / 1000000) | round(1)}"
                " | tojson }}"
                "{% else %}{{ {'percent': value_json.warming_up_percent,"
                " 'eta_s': value_json.warming_up_eta_s} | tojson }}{% endif %}",
                icon="mdi:brain",
                **stats,
                **available,
            ),
            "busy": entity(
                "binary_sensor",
                "busy",
                "Busy",
                value_template="{{ 'ON' if value_json.busy else 'OFF' }}",
                device_class="running",
                **stats,
                **available,
            ),
            "reload_model": entity(
                "button",
                "reload_model",
                "Reload model",
                command_topic=topics.reload_model,
                payload_press="PRESS",
                icon="mdi:reload",
                entity_category="config",
                **available,
            ),
            # Removed (a platform and nothing else removes it from HA): every HA user may
            # press a button, and only an admin may open the door (config flow).
            "open_pairing": {"platform": "button"},
        },
    }
