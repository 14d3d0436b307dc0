"""The home as the agent sees it: entities, areas, floors and states (`model`), a tool call's
target turned into entities (`resolve`), the model's listing of them (`listing`), what groups
and scenes control (`wrappers`). Pure data, no I/O."""

from botpsy_agent.home.listing import render_listing
from botpsy_agent.home.model import Area, Entity, EntityState, Floor, Home
from botpsy_agent.home.resolve import (
    EntityFilter,
    ResolutionError,
    ResolvedCall,
    resolve_call,
    resolve_targets,
)

__all__ = [
    "Area",
    "Entity",
    "EntityFilter",
    "EntityState",
    "Floor",
    "Home",
    "ResolutionError",
    "ResolvedCall",
    "render_listing",
    "resolve_call",
    "resolve_targets",
]
