# Known truth for smolder's Python frames (issue 23): run() splits each
# round of CPU time 50/30/20 between run -> alpha, run -> beta ->
# gamma and run -> delta.  Slices are measured in the thread's own CPU time
# (time.thread_time), so the split holds on a busy machine and at any
# interpreter speed.  Pure Python, 3.8 to 3.13.
#
#   split.py SECONDS              runs for SECONDS (wall), prints nothing
#   split.py --selfcheck SECONDS  the same under cProfile and an in-process
#                                 CPU-time sampler (ITIMER_PROF), printing
#                                 the split and the callers each measured
import random
import sys
import time

# Rounds last 10 to 30 ms (a fixed pseudo-random sequence): a round of
# fixed length could alias with a sampler's period.
ROUND_MIN, ROUND_MAX = 0.010, 0.030
SHARES = {"alpha": 0.50, "gamma": 0.30, "delta": 0.20}


def alpha(slice_s):
    until = time.thread_time() + slice_s
    x = 1
    while time.thread_time() < until:
        for i in range(40):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def gamma(slice_s):
    until = time.thread_time() + slice_s
    x = 1
    while time.thread_time() < until:
        for i in range(40):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def beta(slice_s):
    return gamma(slice_s)


def delta(slice_s):
    until = time.thread_time() + slice_s
    x = 1
    while time.thread_time() < until:
        for i in range(40):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def run(seconds):
    rounds = random.Random(23)
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        length = rounds.uniform(ROUND_MIN, ROUND_MAX)
        alpha(length * SHARES["alpha"])
        beta(length * SHARES["gamma"])
        delta(length * SHARES["delta"])


def main():
    args = sys.argv[1:]
    if args and args[0] == "--selfcheck":
        selfcheck(float(args[1]) if len(args) > 1 else 4.0)
    else:
        run(float(args[0]) if args else 10.0)


# ---- ground truth without smolder ----

EXPECT_PARENT = {"alpha": "run", "beta": "run", "gamma": "beta", "delta": "run",
                 "run": "main", "main": "<module>"}


def sampled(seconds):
    # ITIMER_PROF fires on the process's CPU time, as smolder's cpu-clock
    # samples do; the handler sees the interrupted Python stack
    import signal
    counts = {"alpha": 0, "gamma": 0, "delta": 0}
    stats = {"n": 0, "path": 0, "wrong": 0}
    here = __file__

    def on_prof(signum, frame):
        names = []
        f = frame
        while f is not None:
            if f.f_code.co_filename == here:
                names.append(f.f_code.co_name)
            f = f.f_back
        names.reverse()  # outermost first
        names = [n for n in names if n not in ("selfcheck", "sampled")]
        stats["n"] += 1
        leaf = names[-1] if names else None
        if leaf in counts and names[:3] == ["<module>", "main", "run"]:
            want = ["<module>", "main", "run"] + (["beta", "gamma"] if leaf == "gamma" else [leaf])
            if names == want:
                stats["path"] += 1
                counts[leaf] += 1
        for parent, child in zip(names, names[1:]):
            if EXPECT_PARENT.get(child, parent) != parent:
                stats["wrong"] += 1
                break

    signal.signal(signal.SIGPROF, on_prof)
    signal.setitimer(signal.ITIMER_PROF, 0.001, 0.001)
    run(seconds)
    signal.setitimer(signal.ITIMER_PROF, 0, 0)
    return counts, stats


def profiled(seconds):
    import cProfile
    import pstats
    # timed in the thread's CPU time, as the slices are (the default timer
    # is the wall clock, which counts the time others held the CPU)
    prof = cProfile.Profile(time.thread_time)
    prof.runcall(run, seconds)
    st = pstats.Stats(prof)
    cum = {}
    callers = {}
    for (fname, _line, name), (_cc, _nc, _tt, ct, who) in st.stats.items():
        if fname == __file__:
            cum[name] = ct
            callers[name] = sorted({c[2] for c in who})
    return cum, callers


def selfcheck(seconds):
    ver = "%d.%d.%d" % sys.version_info[:3]
    cum, callers = profiled(seconds / 2)
    leaves = sum(cum.get(k, 0) for k in SHARES)
    split = " ".join("%s=%.1f" % (k, 100 * cum.get(k, 0) / leaves) for k in SHARES)
    # (run's caller here is cProfile's runcall, not main)
    wrong = sum(1 for k, want in EXPECT_PARENT.items()
                if k in callers and k not in ("run", "main") and callers[k] != [want])
    print("%s cprofile %s run_own=%.1f wrong_callers=%d" % (
        ver, split, 100 * (cum["run"] - leaves) / cum["run"], wrong))
    counts, stats = sampled(seconds / 2)
    n = sum(counts.values())
    split = " ".join("%s=%.1f" % (k, 100 * counts[k] / max(n, 1)) for k in SHARES)
    print("%s itimer %s samples=%d path=%.1f wrong_callers=%d" % (
        ver, split, stats["n"], 100 * stats["path"] / max(stats["n"], 1), stats["wrong"]))


if __name__ == "__main__":
    main()
