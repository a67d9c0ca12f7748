"""Signed vector releases: build a deterministic archive, sign its manifest, verify, diff.

Everything here is for ``fairvec release`` (and for ``fairvec run --suite``); nothing in the
plain runner imports it, and the ``cryptography`` package (the ``fairvec[release]`` extra)
is imported only when a key is read or a signature checked; every command that will need it
checks for it first (``errors.require_release_extra``), before doing any work.
"""
