"""BotPsy agent: the app's service that turns words into permitted Home Assistant actions."""

__version__ = "0.1.0"
