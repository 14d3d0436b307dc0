"""The evaluation suite (`make eval`): our own home tasks, scored on a real Home Assistant."""
