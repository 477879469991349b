"""`python -m replaygen ...`: the same command line as the `replaygen` script."""
import sys

from .cli import main

sys.exit(main())
