"""``python -m mutation``: docs/mutation.md."""

import sys

from mutation.cli import main, stop_on_sigterm

stop_on_sigterm()
sys.exit(main())
