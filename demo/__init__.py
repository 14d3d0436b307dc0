"""`make demo`: the whole thing on this machine — Mosquitto, a real Home Assistant with a demo
home, the BotPsy app with a model — and a prompt that talks to it over the real path."""
