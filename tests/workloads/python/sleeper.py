# A Python function waiting in time.sleep (issue 23's off-CPU check): the
# main thread runs main -> wait_loop -> napper, which sleeps 20 ms at a
# time and does almost nothing else.  With --off-cpu, the waits must show
# under napper, over time.sleep's native frames.
#
#   sleeper.py SECONDS   runs for SECONDS, prints nothing
import sys
import time


def napper():
    time.sleep(0.02)


def wait_loop(until):
    while time.perf_counter() < until:
        napper()


def main():
    wait_loop(time.perf_counter() + float(sys.argv[1] if len(sys.argv) > 1 else 10))


if __name__ == "__main__":
    main()
