"""The refusal every verification failure becomes (one line, exit status 2), and the check
for the ``release`` extra that every command needing it makes before doing anything."""

from __future__ import annotations

import importlib

from fairvec.errors import FairvecError

INSTALL_EXTRA = "pip install 'fairvec[release]'"
# What fairvec uses of cryptography, imported one by one: a partial or broken install
# (the package there, its Rust binding or ed25519 not) fails here too, not half-way through.
CRYPTOGRAPHY_MODULES = (
    "cryptography.exceptions",
    "cryptography.hazmat.primitives.asymmetric.ed25519",
    "cryptography.hazmat.primitives.serialization",
)


class ReleaseRefused(FairvecError):
    """The archive, its manifest or its signature is not what the trusted key vouches for."""

    def __init__(self, where: str, reason: str) -> None:
        super().__init__(f"{where}: release refused: {reason}")
        self.reason = reason


def require_release_extra(what: str) -> None:
    """Refuse ``what`` (a command or an option: "fairvec release verify") in one line when
    the ``release`` extra cannot be imported. Keys and signatures need the ``cryptography``
    package; plain runs never do, so it is optional and imported only on first use. Called
    first thing, so a command never does half its work (writes an archive, starts to
    extract) before finding the extra missing."""
    for module in CRYPTOGRAPHY_MODULES:
        try:
            importlib.import_module(module)
        except ImportError as error:
            missing = error.name or module
            raise FairvecError(
                f"{what} needs the release extra (the cryptography package; {missing} cannot "
                f"be imported here): {INSTALL_EXTRA}"
            ) from None


def require_cryptography() -> None:
    """The same check, for the library functions that read keys or check signatures (a
    caller of the API that skipped the command's own check still gets one line)."""
    require_release_extra("signing or verifying a release")
