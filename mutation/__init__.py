"""The mutation campaigns on fairvec's two bundled ports (docs/mutation.md).

A maintainers' tool, not one of the four rooms: nothing in fairvec imports it. Run from
the checkout's root as ``python -m mutation``.
"""
