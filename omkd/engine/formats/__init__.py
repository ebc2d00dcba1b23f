"""Adapters that turn one transcript format's records into omkd's typed events."""
