"""The gpufleet CrossGuard policy pack.

Importing this package never starts a policy server: only `policies/__main__.py` builds the
`PolicyPack`. The registry (`policies.registry.default_registry()`) holds every rule of the catalogue.
"""
