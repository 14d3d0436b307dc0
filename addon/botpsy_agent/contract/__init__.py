"""The contract between the app and the Home Assistant integration: the topics, the
signatures and seals, the pairing arithmetic (SPAKE2), the wire's codes, and the typed
reading of the app's messages (docs/mqtt-api.md).

This folder is the one source. The integration is installed on its own (HACS), so `make
contract` copies it byte for byte into `custom_components/botpsy/contract/`, and a test
fails when the copy differs. Hence: relative imports only, and nothing beyond the standard
library (decision D67).
"""

from . import spake2
from .codes import (
    CONNECTION_TEST_USER,
    QUESTIONS,
    SECURITY_CODES,
    ErrorCode,
    Outcome,
    Status,
)
from .payloads import (
    DEFAULT_LANGUAGES,
    STARTUP_PROBLEM_EVENT,
    ActionSummary,
    AppInfo,
    AppResponse,
    AppStatus,
    BrokerAcl,
    ContractError,
    Pairing,
    PolicyVerdict,
    Presence,
    ResponseError,
    StartupReport,
    pairings_from_json,
)
from .signing import (
    APP_MESSAGE_DOMAIN,
    SEALED_FIELDS,
    app_message_valid,
    canonical_bytes,
    fingerprint,
    matching_secret,
    open_answer,
    seal_answer,
    sign,
    sign_app_message,
    signature,
    signature_matches,
)
from .topics import (
    BASE_TOPIC,
    HA_PRINCIPAL,
    INSTANCE_PATTERN,
    PRINCIPAL_PATTERN,
    STATUS_WILDCARD,
    InstanceTopics,
)

__all__ = [
    "APP_MESSAGE_DOMAIN",
    "BASE_TOPIC",
    "CONNECTION_TEST_USER",
    "DEFAULT_LANGUAGES",
    "HA_PRINCIPAL",
    "INSTANCE_PATTERN",
    "PRINCIPAL_PATTERN",
    "QUESTIONS",
    "SEALED_FIELDS",
    "SECURITY_CODES",
    "STARTUP_PROBLEM_EVENT",
    "STATUS_WILDCARD",
    "ActionSummary",
    "AppInfo",
    "AppResponse",
    "AppStatus",
    "BrokerAcl",
    "ContractError",
    "ErrorCode",
    "InstanceTopics",
    "Outcome",
    "Pairing",
    "PolicyVerdict",
    "Presence",
    "ResponseError",
    "StartupReport",
    "Status",
    "app_message_valid",
    "canonical_bytes",
    "fingerprint",
    "matching_secret",
    "open_answer",
    "pairings_from_json",
    "seal_answer",
    "sign",
    "sign_app_message",
    "signature",
    "signature_matches",
    "spake2",
]
