"""Fleet encryption keys (customer-managed or BYOK), one module per cloud."""
