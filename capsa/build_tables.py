"""``python -m capsa.build_tables``: rebuild the solver's row tables, any or all of them.

The same program as ``python -m capsa.solver.build_tables`` (where it lives, beside the
model it learns); this is the short name the README gives. ``--list`` names the tables,
``--table NAME`` rebuilds one.
"""

from __future__ import annotations

import sys

from capsa.solver.build_tables import main

if __name__ == "__main__":
    sys.exit(main())
