"""The app's bridge to Home Assistant: one WebSocket connection (`client`), the live entity
index (`index`, `registries`, `listing`), name resolution (`names`), the executor
(`executor`) and the start-up self-check (`selfcheck`). Each module's docstring shows how the
rest of the app uses it."""
