"""The ``awale`` command line for pip users: ``awale ...`` (the console script) and
``python -m awale ...`` run the Rust binary's command line inside the extension
(:func:`awale._core.main`), with every subcommand: the wheel is built with the features
``python,cli,serve,train`` (``awale train`` on burn's CPU backend, ``awale serve``, ``nn:``
agents, ``awale network``). A build from source without ``train`` or ``serve`` leaves those
subcommands out."""

from __future__ import annotations

import signal
import sys
from typing import Optional, Sequence


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Runs ``awale`` on ``argv`` (default: ``sys.argv[1:]``) and returns its exit status.

    Ctrl-C ends the process at once, as it ends the Rust binary: the command runs in Rust
    without returning to the interpreter, so Python's ``KeyboardInterrupt`` could not stop it.
    """
    from awale._core import main as _main

    if isinstance(argv, (str, bytes)):
        raise TypeError("awale.__main__.main: argv must be a list of str, not a single string")
    args = list(sys.argv[1:] if argv is None else argv)
    if not all(isinstance(a, str) for a in args):
        raise TypeError("awale.__main__.main: every argument must be a str")
    if sys.stdout is not None:
        sys.stdout.flush()
    if sys.stderr is not None:
        sys.stderr.flush()
    previous = signal.getsignal(signal.SIGINT)
    restore = previous is not None
    try:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    except ValueError:  # not the main thread: leave the handler alone
        restore = False
    try:
        return int(_main(args))
    finally:
        if restore:
            signal.signal(signal.SIGINT, previous)


if __name__ == "__main__":
    sys.exit(main())
