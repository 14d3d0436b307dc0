"""The app's admin page, inside Home Assistant through its ingress: status, pairing, the
audit log and who may do what (`server`), for HA admins only (`access`), from what the
running app gives it (`sources`)."""

from botpsy_agent.web.server import IngressServer, IngressSettings
from botpsy_agent.web.sources import CheckResult, PageSources

__all__ = ["CheckResult", "IngressServer", "IngressSettings", "PageSources"]
