"""Encrypted checkpoint storage, one module per cloud."""
