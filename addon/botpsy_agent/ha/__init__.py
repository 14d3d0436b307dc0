"""The app's bridge to Home Assistant: one WebSocket connection (`client`, `errors`), the live
entity index (`index`, `registries`), the executor (`executor`), notifications
(`notifications`), the code of a pairing an admin started (`pairing_codes`), the start-up
self-check (`selfcheck`) and the Supervisor's HTTP API (`supervisor`). Each module's
docstring shows how the rest of the app uses it."""

from botpsy_agent.ha.client import ConnectionState, HaClient, HaEndpoint
from botpsy_agent.ha.errors import HaError, NotRunHere
from botpsy_agent.ha.executor import ActionStatus, Execution, ExecutionKey, Executor, call_digest
from botpsy_agent.ha.index import EntityIndex
from botpsy_agent.ha.notifications import Notice, Notifications
from botpsy_agent.ha.pairing_codes import HomeAssistantCodes
from botpsy_agent.ha.registries import HaUser
from botpsy_agent.ha.selfcheck import self_check
from botpsy_agent.ha.supervisor import SupervisorAccess, SupervisorClient, SupervisorError

__all__ = [
    "ActionStatus",
    "ConnectionState",
    "EntityIndex",
    "Execution",
    "ExecutionKey",
    "Executor",
    "HaClient",
    "HaEndpoint",
    "HaError",
    "HaUser",
    "HomeAssistantCodes",
    "NotRunHere",
    "Notice",
    "Notifications",
    "SupervisorAccess",
    "SupervisorClient",
    "SupervisorError",
    "call_digest",
    "self_check",
]
