"""``python -m fairvec`` is the ``fairvec`` command."""

from fairvec.cli import entry

entry()
