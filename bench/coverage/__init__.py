"""The fast-path coverage bench: a home of its own, sentences per language, HA's agent beside."""
