"""``python -m rmqlab`` — see :mod:`rmqlab.lab.cli`."""

from __future__ import annotations

import sys

from .lab.cli import console_main

if __name__ == "__main__":
    sys.exit(console_main())
