"""The user's words, read: the fast path (HA's own sentence templates through hassil, and a
strict fuzzy fallback) turning common commands into typed calls, grounding (was an action
asked for?) and its vocabulary, negation, spoken times in en/ko/id, and the checks on a
model-proposed call. Pure: imports only `home`, no I/O beyond reading its sentence files."""
