"""What the tests against the model host stand-in share (fixtures: tests/weights/conftest.py)."""

NAME = "BotPsy-0.8B-Q8_0.gguf"
"""The catalogue file the stand-in serves."""
