"""The audit log: who asked for what, what was decided by which rule, and what happened.

What the front door tells it (`door`), writing (`log`, `records`), reading back (`read`), and
text made safe to print (`printable`); `botpsy-agent audit` is `app/audit_command`. Nothing
here loads the loop or the model (the agent's vocabulary, `agent/protocol.py`, is light).
"""

from botpsy_agent.audit.door import DoorAudit, NoAudit, Refusal
from botpsy_agent.audit.log import AuditLog, audit_path
from botpsy_agent.audit.printable import (
    PrintableFormatter,
    printable,
    printable_json,
    quoted_names,
)
from botpsy_agent.audit.read import AuditFilter, AuditReader, format_record, parse_when

__all__ = [
    "AuditFilter",
    "AuditLog",
    "AuditReader",
    "DoorAudit",
    "NoAudit",
    "PrintableFormatter",
    "Refusal",
    "audit_path",
    "format_record",
    "parse_when",
    "printable",
    "printable_json",
    "quoted_names",
]
