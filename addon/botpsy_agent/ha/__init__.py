"""The app's bridge to Home Assistant: one WebSocket connection (`client`, `errors`), the live
entity index (`index`, `registries`), the executor (`executor`), the code of a pairing an
admin started (`pairing_codes`) and the start-up self-check (`selfcheck`). Each module's
docstring shows how the rest of the app uses it."""
