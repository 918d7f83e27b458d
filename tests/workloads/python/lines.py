# Line numbers (issue 23: --python-lines and pprof): main calls hot() on
# the line marked CALL-LINE, and hot() spends most of its time on the line
# marked HOT-LINE; tests read both numbers from this file.
#
#   lines.py SECONDS              runs for SECONDS, prints nothing
#   lines.py --selfcheck SECONDS  samples its own lines with ITIMER_PROF
#                                 and prints hot()'s and main's lines by
#                                 share, and the marked line numbers
import sys
import time


def hot(rounds):
    x = 1
    for i in range(rounds):
        x = ((x * 1103515245 + 12345) ^ (x >> 7)) * 3 % 2147483647 + (x & 0xFFFF) // 3 - (x % 97)  # HOT-LINE
    return x


def main(seconds):
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        hot(2000)  # CALL-LINE


def marked(tag):
    with open(__file__) as f:
        for n, text in enumerate(f, 1):
            if text.rstrip().endswith("# " + tag):
                return n
    return 0


def selfcheck(seconds):
    import collections
    import signal
    lines = {"hot": collections.Counter(), "main": collections.Counter()}

    def on_prof(signum, frame):
        f = frame
        while f is not None:
            if f.f_code.co_filename == __file__ and f.f_code.co_name in lines:
                lines[f.f_code.co_name][f.f_lineno] += 1
            f = f.f_back

    signal.signal(signal.SIGPROF, on_prof)
    signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
    main(seconds)
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    ver = "%d.%d.%d" % sys.version_info[:3]
    for name, tag in (("hot", "HOT-LINE"), ("main", "CALL-LINE")):
        n = sum(lines[name].values())
        top = " ".join("%d:%.1f%%" % (ln, 100 * c / n) for ln, c in lines[name].most_common(3))
        print("%s %s marked=%d samples=%d lines %s" % (ver, name, marked(tag), n, top))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--selfcheck"]:
        selfcheck(float(sys.argv[2]) if len(sys.argv) > 2 else 4)
    else:
        main(float(sys.argv[1]) if len(sys.argv) > 1 else 10)
