# A Python function called back from C (issue 23's "through C" check):
# right_work calls the builtin sorted(data, key=keyfn), and keyfn, an
# expensive key function, takes nearly all the CPU.  Stacks must read
# right_work -> sorted's native frames -> keyfn, in that order.
#
#   through_c.py SECONDS   runs for SECONDS, prints nothing
import sys
import time


def keyfn(v):
    x = v
    for i in range(200):
        x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def right_work(data):
    return sorted(data, key=keyfn)


def main():
    until = time.perf_counter() + float(sys.argv[1] if len(sys.argv) > 1 else 10)
    data = list(range(500))
    while time.perf_counter() < until:
        right_work(data)


if __name__ == "__main__":
    main()
