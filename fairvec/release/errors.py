"""The refusal every verification failure becomes: one line, exit status 2."""

from __future__ import annotations

from fairvec.errors import FairvecError


class ReleaseRefused(FairvecError):
    """The archive, its manifest or its signature is not what the trusted key vouches for."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: release refused: {reason}")
        self.reason = reason


def require_cryptography() -> None:
    """Keys and signatures need the ``cryptography`` package; plain runs never do, so it is
    the optional ``fairvec[release]`` extra and is imported only here, on first use."""
    try:
        import cryptography  # noqa: F401
    except ImportError:
        raise FairvecError(
            "signing or verifying a release needs the cryptography package: "
            "pip install 'fairvec[release]'"
        ) from None
