"""The one exception the command line turns into a one-line message and exit status 2."""


class FairvecError(Exception):
    """Bad input to fairvec itself: the message names the place and the fix."""
