"""`python -m relreason_dagster.cli`: the `relreason` command without its console script."""

import sys

from relreason_dagster.cli.entry import main

if __name__ == "__main__":
    sys.exit(main())
