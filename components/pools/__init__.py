"""GPU burst pools, one module per cloud; scaling rules compile in :mod:`components.pools.scaling`."""
