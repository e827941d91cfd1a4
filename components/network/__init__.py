"""Private networks for GPU pools, one module per cloud."""
