"""`python -m gpufleet.cli`, the same as `gpufleet`."""

from gpufleet.cli import main

main()
