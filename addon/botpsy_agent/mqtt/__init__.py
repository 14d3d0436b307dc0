"""The MQTT topic API (docs/mqtt-api.md): the front door through which HA, automations and
any MQTT client reach the agent."""

from botpsy_agent.contract import ErrorCode, sign
from botpsy_agent.mqtt.announce import AnnouncedModel
from botpsy_agent.mqtt.auth import KnownUser, UserDirectory
from botpsy_agent.mqtt.service import MqttService
from botpsy_agent.mqtt.settings import ApiSettings, BrokerSettings, MqttVersion, TlsSettings
from botpsy_agent.mqtt.signing import SecretFile, SecretProvider, StaticSecrets
from botpsy_agent.mqtt.topics import Topics

__all__ = [
    "AnnouncedModel",
    "ApiSettings",
    "BrokerSettings",
    "ErrorCode",
    "KnownUser",
    "MqttService",
    "MqttVersion",
    "SecretFile",
    "SecretProvider",
    "StaticSecrets",
    "TlsSettings",
    "Topics",
    "UserDirectory",
    "sign",
]
