"""The exceptions the command line turns into a one-line message and an exit status."""


class FairvecError(Exception):
    """Bad input to fairvec itself: the message names the place and the fix (exit 2)."""


class Interrupted(BaseException):
    """fairvec was sent SIGTERM or SIGHUP (exit 128 + the signal's number). A BaseException,
    like KeyboardInterrupt, so no ``except Exception`` swallows it on the way out."""

    def __init__(self, signal_number: int, name: str) -> None:
        super().__init__(name)
        self.signal_number = signal_number
        self.name = name
