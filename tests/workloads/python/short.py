# A short-lived Python process (issue 23: a 40 ms process still gets named
# frames): main -> brief_work computes for 40 ms of CPU time, then exits.
#
#   short.py [MILLISECONDS]   default 40
import sys
import time


def brief_work(seconds):
    until = time.thread_time() + seconds
    x = 1
    while time.thread_time() < until:
        for i in range(100):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def main():
    brief_work(float(sys.argv[1] if len(sys.argv) > 1 else 40) / 1000)


if __name__ == "__main__":
    main()
