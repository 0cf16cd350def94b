"""Configuration, who may set each field, and the machine's own settings."""
