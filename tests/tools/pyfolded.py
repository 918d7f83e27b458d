#!/usr/bin/python3
"""Measures of the Python frames in smolder's folded output (issue 23), for
tests/cli/python_*.sh.  A Python frame is "QUALNAME (FILE)" or, with
--python-lines, "QUALNAME (FILE:LINE)", "_[py]" after it with -a; every
other frame but the first (the process frame) is native.  Each command
reads the samples of the processes whose process frame fully matches
--proc (default: all) and prints one line of "key=value" figures:

  paths FOLDED --file F [--entry RE] PATH...
      PATH is "<module>;main;run;alpha": a sample is on a path when its
      Python frames are exactly one PATH's (all of file F), outermost
      first, under a native frame matching --entry (default Py_RunMain or
      Py_BytesMain) and with no native _PyEval_EvalFrameDefault left.
      samples=N python=% (any Python frame) path=% eval_left=% (a
      _PyEval_EvalFrameDefault frame) wrong=N (samples where a function of
      the PATHs has another Python caller than theirs) and leaf_X=% per
      PATH's leaf, among the samples on a path.
  between FOLDED OUTER INNER [--native RE]
      Among the samples with Python frame INNER ("keyfn (through_c.py)"),
      the share whose nearest outer Python frame is OUTER with native
      frames between them, one of them matching RE (searched).
      samples=N inner=N ok=% adjacent=N (INNER right under OUTER).
  chain FOLDED RE... [--leaf]
      Among the samples with a Python frame matching the last RE (full
      match, on "QUALNAME (FILE)"), the share whose Python frames match
      the REs in that order (others may come between); --leaf: the last
      one is the innermost Python frame.  samples=N with=N chain=%
  lines FOLDED FRAME
      The lines of Python frame FRAME ("hot (lines.py)"): samples=N with=N
      noline=N top=LINE share=% lines=LINE:%,...
  leaves FOLDED [--perf] [--min PCT]
      The innermost Python frames' functions (QUALNAME), or with --perf the
      innermost "py::QUALNAME:FILE" frames (perf trampolines of python -X
      perf), that have at least --min % (default 5) of the samples:
      samples=N hot=NAME,NAME (sorted) and agree=% (samples whose
      innermost Python frame and innermost py:: frame name one function,
      among those with both).
Exits 2 on a usage error.  Debian's /usr/bin/python3 runs it.
"""
import argparse
import collections
import re
import sys

PY_FRAME = re.compile(r"^(?P<name>.*) \((?P<file>[^()]*?)(?::(?P<line>[0-9]+))?\)(?P<ann>_\[py\])?$")
PERF_FRAME = re.compile(r"^py::(?P<name>.*):(?P<file>[^:]*)$")


def python_frame(frame):
    """(qualname, file, line or None) of a Python frame, else None."""
    m = PY_FRAME.match(frame)
    if not m:
        return None
    f = m.group("file")
    if not (f.endswith(".py") or f.startswith("<")):
        return None
    return m.group("name"), f, int(m.group("line")) if m.group("line") else None


def samples(path, proc):
    """(frames, count) of each line whose process frame matches proc."""
    want = re.compile(proc) if proc else None
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            stack, _, n = line.rpartition(" ")
            if not stack:
                continue
            frames = stack.split(";")
            if want and not want.fullmatch(frames[0]):
                continue
            yield frames, float(n)


def pct(part, whole):
    return "%.1f" % (100.0 * part / whole) if whole else "0"


def split_frames(frames):
    """[(index, (name, file, line))] of the Python frames, outermost first."""
    return [(i, p) for i, p in ((i, python_frame(fr)) for i, fr in enumerate(frames)) if i and p]


def cmd_paths(a):
    paths = [p.split(";") for p in a.path]
    parent = {}
    for p in paths:
        for i, name in enumerate(p):
            parent[name] = p[i - 1] if i else None
    entry = re.compile(a.entry)
    total = python = on_path = eval_left = wrong = 0
    leaves = collections.Counter()
    for frames, n in samples(a.folded, a.proc):
        total += n
        py = split_frames(frames)
        left = "_PyEval_EvalFrameDefault" in frames
        eval_left += n * left
        if not py:
            continue
        python += n
        names = [p[0] for _, p in py]
        mine = [(name, f) for name, f, _ in (p for _, p in py)]
        for k, (name, f) in enumerate(mine):
            if f == a.file and name in parent and parent[name] != (mine[k - 1][0] if k else None):
                wrong += n
                break
        entered = any(entry.fullmatch(fr) for fr in frames[1:py[0][0]])
        if entered and not left and names in paths and all(f == a.file for _, f in mine):
            on_path += n
            leaves[names[-1]] += n
    figures = ["samples=%d" % total, "python=" + pct(python, total), "path=" + pct(on_path, total),
               "eval_left=" + pct(eval_left, total), "wrong=%d" % wrong]
    figures += ["leaf_%s=%s" % (p[-1], pct(leaves[p[-1]], on_path)) for p in paths]
    print(" ".join(figures))


def norm(p):
    return "%s (%s)" % (p[0], p[1])


def cmd_between(a):
    native = re.compile(a.native) if a.native else None
    total = inner = ok = adjacent = 0
    for frames, n in samples(a.folded, a.proc):
        total += n
        py = split_frames(frames)
        for k, (i, p) in enumerate(py):
            if norm(p) != a.inner:
                continue
            inner += n
            if k and norm(py[k - 1][1]) == a.outer:
                j = py[k - 1][0]
                mid = frames[j + 1:i]
                if not mid:
                    adjacent += n
                elif native is None or any(native.search(fr) for fr in mid):
                    ok += n
            break
    print("samples=%d inner=%d ok=%s adjacent=%d" % (total, inner, pct(ok, inner), adjacent))


def cmd_chain(a):
    res = [re.compile(r) for r in a.re]
    total = with_last = ok = 0
    for frames, n in samples(a.folded, a.proc):
        total += n
        names = [norm(p) for _, p in split_frames(frames)]
        if not any(res[-1].fullmatch(x) for x in names):
            continue
        with_last += n
        k = 0
        for idx, x in enumerate(names):
            if k < len(res) and res[k].fullmatch(x):
                k += 1
                if k == len(res):
                    break
        if k == len(res) and (not a.leaf or idx == len(names) - 1):
            ok += n
    print("samples=%d with=%d chain=%s" % (total, with_last, pct(ok, with_last)))


def cmd_lines(a):
    total = with_frame = noline = 0
    lines = collections.Counter()
    for frames, n in samples(a.folded, a.proc):
        total += n
        for _, p in split_frames(frames):
            if norm(p) == a.frame:
                with_frame += n
                if p[2] is None:
                    noline += n
                else:
                    lines[p[2]] += n
                break
    top = lines.most_common(4)
    print("samples=%d with=%d noline=%d top=%s share=%s lines=%s" % (
        total, with_frame, noline, top[0][0] if top else 0,
        pct(top[0][1], with_frame) if top else "0",
        ",".join("%d:%s" % (ln, pct(c, with_frame)) for ln, c in top)))


def cmd_leaves(a):
    total = both = agree = 0
    by_py = collections.Counter()
    by_perf = collections.Counter()
    for frames, n in samples(a.folded, a.proc):
        total += n
        py = split_frames(frames)
        perf = [m.group("name") for m in (PERF_FRAME.match(fr) for fr in frames[1:]) if m]
        leaf_py = py[-1][1][0] if py else None
        leaf_perf = perf[-1] if perf else None
        if leaf_py:
            by_py[leaf_py] += n
        if leaf_perf:
            by_perf[leaf_perf] += n
        if leaf_py and leaf_perf:
            both += n
            agree += n * (leaf_py == leaf_perf)
    counts = by_perf if a.perf else by_py
    hot = sorted(k for k, c in counts.items() if total and 100.0 * c / total >= a.min)
    print("samples=%d hot=%s agree=%s" % (total, ",".join(hot) or "-", pct(agree, both)))


def main():
    ap = argparse.ArgumentParser(description="Python frames in folded stacks")
    sub = ap.add_subparsers(dest="cmd", required=True)

    def command(name, func):
        p = sub.add_parser(name)
        p.add_argument("folded")
        p.add_argument("--proc", default="")
        p.set_defaults(func=func)
        return p

    p = command("paths", cmd_paths)
    p.add_argument("--file", required=True)
    p.add_argument("--entry", default="Py_RunMain|Py_BytesMain")
    p.add_argument("path", nargs="+")
    p = command("between", cmd_between)
    p.add_argument("outer")
    p.add_argument("inner")
    p.add_argument("--native", default="")
    p = command("chain", cmd_chain)
    p.add_argument("re", nargs="+")
    p.add_argument("--leaf", action="store_true")
    p = command("lines", cmd_lines)
    p.add_argument("frame")
    p = command("leaves", cmd_leaves)
    p.add_argument("--perf", action="store_true")
    p.add_argument("--min", type=float, default=5.0)
    a = ap.parse_args()
    a.func(a)


if __name__ == "__main__":
    sys.exit(main())
