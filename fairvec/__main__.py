"""``python -m fairvec`` is the ``fairvec`` command."""

import sys

from fairvec.cli import main

sys.exit(main())
