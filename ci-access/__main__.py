"""Pulumi program: GitHub Actions' OIDC provider and the pull-request preview role (see ci_access)."""

from ci_access import build

build()
