"""Typed tool schemas: the contract between the model's words and Home Assistant actions."""
