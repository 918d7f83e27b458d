# Many distinct code objects, all of them run (issue 23's naming cost
# benchmark): N functions f_0 ... f_{N-1}, each from its own source (its
# own name and first line), called in turn by dispatch, each for SLICE_MS
# of CPU time, round after round.  At 999 Hz a 10 s capture of the
# defaults (5,000 functions, 1 ms: a 5 s round) samples each about twice.
#
#   many_code.py SECONDS [N] [SLICE_MS]   prints "ready" once the
#                                         functions are made
#   many_code.py --selfcheck SECONDS [N] [SLICE_MS]
#                                         prints how many distinct code
#                                         objects ran, and the rounds
import sys
import time

SOURCE = """def f_{i}(until):
    x = {i}
    while time.thread_time() < until:
        for k in range(20):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x
"""


def make(n):
    funcs = []
    for i in range(n):
        space = {"time": time}
        # one line further down each: distinct first lines too
        exec(compile("\n" * (i % 5000) + SOURCE.format(i=i), "many_gen.py", "exec"), space)
        funcs.append(space["f_%d" % i])
    return funcs


def dispatch(funcs, slice_s, until):
    ran = set()
    rounds = 0
    while time.perf_counter() < until:
        for f in funcs:
            f(time.thread_time() + slice_s)
            ran.add(f.__code__)
            if time.perf_counter() >= until:
                break
        else:
            rounds += 1
    return len(ran), rounds


def main():
    args = sys.argv[1:]
    check = args[:1] == ["--selfcheck"]
    if check:
        args = args[1:]
    seconds = float(args[0])
    n = int(args[1]) if len(args) > 1 else 5000
    slice_s = (float(args[2]) if len(args) > 2 else 1.0) / 1000
    funcs = make(n)
    print("ready", flush=True)
    ran, rounds = dispatch(funcs, slice_s, time.perf_counter() + seconds)
    if check:
        print("%d.%d.%d ran %d distinct code objects of %d, %d whole rounds" % (
            sys.version_info[:3] + (ran, n, rounds)))


if __name__ == "__main__":
    main()
