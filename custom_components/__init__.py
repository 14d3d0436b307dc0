"""Custom integrations shipped by this repository (HACS installs `botpsy/` alone)."""
