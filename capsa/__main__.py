"""``python -m capsa``: the engine's command line (see capsa/cli.py)."""

import sys

from capsa.cli import main

sys.exit(main())
