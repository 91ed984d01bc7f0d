"""python3 -m hsacc (from bench/): the same as bench/accuracy."""

import sys

from .cli import main

sys.exit(main(sys.argv[1:]))
