"""Implementations of the CLI's commands (kept out of cli.py so it stays a thin argument layer)."""
