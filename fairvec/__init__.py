"""fairvec: conformance test vectors and a spec runner for provably-fair game algorithms."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("fairvec")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"
