"""fairvec: conformance test vectors and a spec runner for provably-fair game algorithms."""

import os
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("fairvec")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"

# In a checkout the rooms sit beside this folder (reference/, runner/, spec/, vectors/,
# adapters/), and pyproject.toml maps them under this package when installing. Map them
# the same way here, so `python -m fairvec` in an uninstalled checkout finds them instead
# of this folder alone. Installed, there is no sibling reference/ and this does nothing.
_checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.isfile(os.path.join(_checkout, "reference", "_algorithm.py")):
    __path__.append(_checkout)
