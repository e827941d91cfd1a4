"""`python -m gpufleet`: the same command line as the `gpufleet` script."""

from gpufleet.cli import main

if __name__ == "__main__":
    main()
