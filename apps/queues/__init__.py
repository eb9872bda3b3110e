"""Shared assignment engine: pools of items, each handed to K distinct workers (see services.py)."""
