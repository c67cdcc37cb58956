"""Entry script of the frozen bundle: the same ``main`` as the installed command."""

import sys

from designer.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
