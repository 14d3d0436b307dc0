# BotPsy for Home Assistant. Every target bootstraps what it needs first (script/env):
# Python 3.14 (a cached Debian root file system when the host has none), the pinned venv,
# the llama-cpp-python wheel and Mosquitto — all cached under ~/.cache/botpsy/.
SHELL := /bin/bash
RUN := script/run

.PHONY: env test lint contract demo demo-session eval bench soak lock clean-env

# The tests and the bench run llama.cpp's own server too: script/env builds it for them.
test bench: export BOTPSY_NEED_SERVER := 1

env:
	@script/env

test: env
	@$(RUN) script/test

lint: env
	@$(RUN) script/lint

# The integration's copy of the contract (D67): addon/botpsy_agent/contract/ byte for byte.
contract:
	@script/copy-contract

demo: env
	@$(RUN) script/demo $(ARGS)

demo-session: env
	@$(RUN) script/demo-session $(ARGS)

eval: env
	@$(RUN) script/eval $(ARGS)

bench: env
	@$(RUN) script/bench $(ARGS)

soak: env
	@$(RUN) script/soak $(ARGS)

# Re-resolve requirements/*.in into the lock files (needs the package registry).
lock:
	@script/lock

# Remove every cached toolchain of this project (root file system, venvs, wheels).
clean-env:
	@script/clean-env
