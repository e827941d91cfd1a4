"""gpufleet: hybrid GPU fleets on Pulumi, with guardrails and cost before deploy."""

__version__ = "0.1.0"
