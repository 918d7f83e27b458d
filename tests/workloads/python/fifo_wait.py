"""fifo_wait.py FIFO: the Python twin of tests/workloads/fifo_wait.c, a
process that hangs in os.read of a FIFO (issue 24's off-CPU hang tests).

main -> wait_for_input: blocked in os.read (the FIFO opened read-write, so
no writer is needed for it to block); each line read, main ->
wait_for_more: blocked again until the next.  Prints "blocked" (flushed)
before each read; ends at end of file or on the line "quit".
"""
import os
import sys


def wait_for_input(fd):
    print("blocked", flush=True)
    return os.read(fd, 256)


def wait_for_more(fd):
    print("blocked", flush=True)
    return os.read(fd, 256)


def main():
    fd = os.open(sys.argv[1], os.O_RDWR)
    data = wait_for_input(fd)
    while data and b"quit" not in data:
        data = wait_for_more(fd)


main()
