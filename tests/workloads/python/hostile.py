# Python processes that make their own frames hostile to a profiler that
# reads them (issue 23's hostile check); tests run them as user nobody.
# Pure Python, 3.8 to 3.13.  Each mode prints "ready" once its code objects
# are made, then computes until SECONDS have passed:
#
#   hostile.py bigname SECONDS    big_caller -> a function whose co_name
#                                 (and co_qualname) is 10 MiB of "A"
#   hostile.py badname SECONDS    bad_caller -> a function named
#                                 "bad\udcff\ud800name": lone surrogates,
#                                 not UTF-8, kept by CPython as UCS-2
#   hostile.py churn SECONDS [PREFIX]
#                                 makes, runs and drops code objects in a
#                                 loop (exec of new source, then
#                                 code.replace), so that freed code
#                                 objects' addresses are reused by others:
#                                 PREFIX_N from file PREFIX_gen.py, first
#                                 line 1 + N % 1000, rewritten as
#                                 PREFIX_rN (default PREFIX "evil")
#   hostile.py deep SECONDS       deep_leaf at the end of 1,000 nested
#                                 calls of deep_down (beyond any walk's
#                                 depth cap)
import sys
import time


def spin(until):
    x = 1
    while time.perf_counter() < until:
        for i in range(100):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
    return x


def renamed(func, name):
    # a copy of func's code under another name (qualname too from 3.11)
    fields = {"co_name": name}
    if sys.version_info >= (3, 11):
        fields["co_qualname"] = name
    copy = spin.__code__.replace(**fields)
    func.__code__ = copy
    return func


def big_caller(until):
    big = renamed(lambda until: None, "A" * (10 << 20))
    print("ready", flush=True)
    big(until)


def bad_caller(until):
    bad = renamed(lambda until: None, "bad\udcff\ud800name")
    print("ready", flush=True)
    bad(until)


CHURN_SOURCE = """def {name}(k):
    x = 1
    for i in range(k):
        x = (x * 31 + 7) & 0xFFFF
    return x
"""


def churn(until, prefix):
    print("ready", flush=True)
    n = 0
    while time.perf_counter() < until:
        n += 1
        first = 1 + n % 1000
        name = "%s_%d" % (prefix, n)
        space = {}
        exec(compile("\n" * (first - 1) + CHURN_SOURCE.format(name=name),
                     prefix + "_gen.py", "exec"), space)
        func = space[name]
        func(3000)
        fields = {"co_name": "%s_r%d" % (prefix, n)}
        if sys.version_info >= (3, 11):
            fields["co_qualname"] = fields["co_name"]
        func.__code__ = func.__code__.replace(**fields)
        func(3000)


def deep_leaf(until):
    return spin(until)


def deep_down(n, until):
    if n:
        return deep_down(n - 1, until)
    return deep_leaf(until)


def deep(until):
    sys.setrecursionlimit(5000)
    print("ready", flush=True)
    deep_down(1000, until)


def main():
    mode, seconds = sys.argv[1], float(sys.argv[2])
    until = time.perf_counter() + seconds
    if mode == "bigname":
        big_caller(until)
    elif mode == "badname":
        bad_caller(until)
    elif mode == "churn":
        churn(until, sys.argv[3] if len(sys.argv) > 3 else "evil")
    elif mode == "deep":
        deep(until)
    else:
        sys.exit("hostile.py: unknown mode %r" % mode)


if __name__ == "__main__":
    main()
