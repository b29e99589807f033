"""``python -m sqsmock``: the ``sqsmock`` command."""

import sys

from .cli import main

sys.exit(main())
