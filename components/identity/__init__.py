"""Least-privilege instance identities, one module per cloud."""
