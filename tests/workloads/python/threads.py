# Two threads busy in their own functions (issue 23's thread check): the
# "left" thread runs left_loop -> left_leaf, the "right" one right_loop ->
# right_leaf, while the main thread waits in join.  Each thread's samples
# must name its own function, not whichever thread holds the GIL.
#
#   threads.py SECONDS   prints "left TID" and "right TID" (native thread
#                        ids, as smolder's --per-thread frames name them)
#                        once both run, then "ready"
import sys
import threading
import time


def left_leaf(until):
    x = 1
    while time.perf_counter() < until:
        for i in range(100):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def left_loop(until, started):
    # one write: print() writes its end apart, and the two threads' lines
    # could interleave ("left 1right 2")
    sys.stdout.write("left %d\n" % threading.get_native_id())
    sys.stdout.flush()
    started.release()
    left_leaf(until)


def right_leaf(until):
    x = 1
    while time.perf_counter() < until:
        for i in range(100):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def right_loop(until, started):
    # one write: print() writes its end apart, and the two threads' lines
    # could interleave ("left 1right 2")
    sys.stdout.write("right %d\n" % threading.get_native_id())
    sys.stdout.flush()
    started.release()
    right_leaf(until)


def main():
    until = time.perf_counter() + float(sys.argv[1] if len(sys.argv) > 1 else 10)
    started = threading.Semaphore(0)
    workers = [threading.Thread(target=left_loop, args=(until, started)),
               threading.Thread(target=right_loop, args=(until, started))]
    for t in workers:
        t.start()
    started.acquire()
    started.acquire()
    print("ready", flush=True)
    for t in workers:
        t.join()


if __name__ == "__main__":
    main()
