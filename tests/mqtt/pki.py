"""The tests' throw-away certificate authority (it lives in devkit/pki.py, which the demo
uses too)."""

from devkit.pki import ThrowawayPki

__all__ = ["ThrowawayPki"]
