"""``python -m ponder`` runs the command line."""

import sys

from ponder.interfaces.cli import main

if __name__ == "__main__":
    sys.exit(main())
