"""What GF-ACC-002's findings call a credential, and what they expect, shared by its cloud modules."""

from __future__ import annotations

KEY = "SSH key pair"
PASSWORD = "login password"
# `passwordInherit: true` logs in with the password preset in the image: a credential all the same.
INHERITED = ("passwordInherit", "login password inherited from the image", False)
EXPECTED = "GPU instances carry no SSH key or login password: connect through a session manager"
