#!/usr/bin/env python3
"""Runs a command in a pseudo-terminal of a fixed size (Python's stdlib pty,
so the benches need no native Node module): `pty-run.py COLS ROWS CMD ARG...`.

The child's pid goes to standard error as the first line (`pid N`), so the
caller can read /proc/N for the program itself rather than this relay; what
the program writes to its terminal is copied to standard output as it
comes, and standard input is copied to the terminal. Exits with the child's
status once the child has exited; a TERM or INT to this relay is passed on
to the child.
"""
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios


def main():
    cols, rows, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    pid, master = pty.fork()
    if pid == 0:
        # The child's standard input is the terminal's slave side: size it
        # before the program starts, so its first frame has this size.
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.execvp(argv[0], argv)
    sys.stderr.write(f"pid {pid}\n")
    sys.stderr.flush()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda s, _f: os.kill(pid, s))
    inputs = [master, 0]
    while True:
        try:
            ready, _, _ = select.select(inputs, [], [])
        except InterruptedError:
            continue
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed its terminal
                data = b""
            if not data:
                break
            os.write(1, data)
        if 0 in ready:
            data = os.read(0, 4096)
            if data:
                os.write(master, data)
            else:
                inputs.remove(0)
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8)


if __name__ == "__main__":
    main()
