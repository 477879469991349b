"""`python -m replaygen ...`: the same command line as the `replaygen` script."""
import sys

from .cli import main

if __name__ == "__main__":   # not when a spawned worker (tune/bench precompile) imports it
    sys.exit(main())
