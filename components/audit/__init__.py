"""Audit trails, log retention and session logging, one module per cloud."""
