"""The app's bridge to Home Assistant: one WebSocket connection (`client`, `errors`), the live
entity index (`index`, `registries`), the executor (`executor`), HA notifications (`notices`)
and the start-up self-check (`selfcheck`). Each module's docstring shows how the rest of the
app uses it."""
