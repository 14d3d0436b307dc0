"""The conversation loop: request -> fast path or model -> typed calls -> authorize -> execute.

Its face is lazy (`botpsy_agent.lazy_face`): the parts below the agent import its shared
vocabulary, `agent/protocol.py` (the request, the response, `ErrorInfo`), from that module,
and importing it must not load the loop."""

from typing import TYPE_CHECKING

from botpsy_agent import lazy_face

if TYPE_CHECKING:
    from botpsy_agent.agent.core import AgentSettings, BotPsyAgent
    from botpsy_agent.agent.offer import exposed_ids, whole_listing
    from botpsy_agent.agent.speech import Phrasebook

__all__ = ["AgentSettings", "BotPsyAgent", "Phrasebook", "exposed_ids", "whole_listing"]

__getattr__ = lazy_face(
    __name__,
    {
        "AgentSettings": "core",
        "BotPsyAgent": "core",
        "Phrasebook": "speech",
        "exposed_ids": "offer",
        "whole_listing": "offer",
    },
)
