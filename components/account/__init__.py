"""What exists once per cloud account (and region): account-wide settings and service-linked roles."""
