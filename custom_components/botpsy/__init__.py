"""The BotPsy integration: a local assistant for Assist, automations and MQTT."""
