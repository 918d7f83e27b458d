# guest_split.py: the Python workload of known truth for the kernel matrix
# (scripts/test-kernels.sh).  Each round runs the same loop body 5000 times
# in run -> alpha, 3000 in run -> beta -> gamma and 2000 in run -> delta,
# so CPU time splits 50/30/20 by construction at any interpreter speed.
# It imports nothing but the built-in time module: the guests carry only
# the few stdlib files an interpreter needs to start (-S -E).
#
#   guest_split.py SECONDS     runs for SECONDS of wall time; prints
#                              "running" as its rounds start
import sys
import time


def alpha(n):
    x = 1
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def gamma(n):
    x = 1
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def beta(n):
    return gamma(n)


def delta(n):
    x = 1
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def run(seconds):
    deadline = time.monotonic() + seconds
    print("running", flush=True)
    while time.monotonic() < deadline:
        alpha(5000)
        beta(3000)
        delta(2000)


def main():
    run(float(sys.argv[1]) if len(sys.argv) > 1 else 10.0)


main()
