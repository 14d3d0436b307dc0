"""The fast path: HA's own sentence templates (hassil) map common commands to typed calls."""
