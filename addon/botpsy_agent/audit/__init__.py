"""The audit log: who asked for what, what was decided by which rule, and what happened.

`log.AuditLog` writes it, `read.AuditReader` reads it back, `cli` is `botpsy-agent audit`.
Nothing is imported here, so the command line stays light (see `botpsy_agent.__main__`).
"""
