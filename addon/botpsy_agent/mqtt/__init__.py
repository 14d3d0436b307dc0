"""The MQTT topic API (docs/mqtt-api.md): the front door through which HA, automations and
any MQTT client reach the agent."""

from botpsy_agent.mqtt.announce import AnnouncedModel
from botpsy_agent.mqtt.auth import KnownUser, UserDirectory
from botpsy_agent.mqtt.connection import MqttConnection, Received, Will
from botpsy_agent.mqtt.ratelimit import RateLimiter
from botpsy_agent.mqtt.service import MqttService
from botpsy_agent.mqtt.settings import (
    INSTANCE_RULE,
    ApiSettings,
    BrokerSettings,
    MqttVersion,
    TlsSettings,
)
from botpsy_agent.mqtt.signing import SecretFile, SecretProvider, StaticSecrets
from botpsy_agent.mqtt.topics import Topics
from botpsy_agent.mqtt.wire import json_payload

__all__ = [
    "INSTANCE_RULE",
    "AnnouncedModel",
    "ApiSettings",
    "BrokerSettings",
    "KnownUser",
    "MqttConnection",
    "MqttService",
    "MqttVersion",
    "RateLimiter",
    "Received",
    "SecretFile",
    "SecretProvider",
    "StaticSecrets",
    "TlsSettings",
    "Topics",
    "UserDirectory",
    "Will",
    "json_payload",
]
