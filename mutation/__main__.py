"""``python -m mutation``: docs/mutation.md."""

import sys

from mutation.cli import main

sys.exit(main())
