"""Budgets and spend alerts, one module per cloud."""
