"""The bad-input corpus (cases*.py, on the valid projects of projects.py) and its CLI test."""
