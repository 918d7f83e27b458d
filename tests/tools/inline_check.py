#!/usr/bin/python3
"""Measures of smolder's inline frames (issue 26) for tests/cli/inline_frames.sh,
against tests/workloads/inline_split.c, whose source defines the truth:

  main -> outer -> half_leaf                              50%
                -> thirty_mid -> thirty_leaf               30%
                -> twenty_top -> twenty_mid -> twenty_leaf 20%

each leaf's loop on one line, marked "/* hot: half */" (thirty, twenty).
Each command prints one line of "key=value" figures (or exits 1 saying
what is wrong with its input):

  chains FOLDED SRC [--annot] [--lines] [--no-inline]
      Among the samples with an "outer" frame (outer stacks), the share
      whose frames from main on are exactly main, outer and one chain
      (inlined frames suffixed _[i] with --annot; the leaf named
      "leaf (inline_split.c:N)" with --lines, N its hot line; no frame
      after outer with --no-inline), and each chain's share of those.
      samples=N outer=N chain=% half=% thirty=% twenty=% first_other=STACK
  addr2line RAW FILE...
      `go tool pprof -raw` text: every distinct leaf address (the sampled
      instruction) in a mapping of one of the FILEs, compared with
      `addr2line -f -i -e FILE`: the function chain (innermost first, as
      the location's lines) and the innermost line must be the same.
      addresses=N agree=% weighted=% (by samples) bad=ADDR:ours|theirs,...
      With --inlined, the outermost function is left out of the chains:
      smolder names it from the symbol table (libc's msort_with_tmp.part.0,
      __memmove_avx512_unaligned_erms), addr2line from the DWARF (its
      msort_with_tmp, __memcpy_avx512_unaligned_erms); inlined=N counts
      the addresses agreed on whose chains have an inlined function, and
      an address neither names agrees.
  libc RAW
      Among samples whose leaf is in a mapping of libc.so.6, the share
      whose leaf location's innermost line has a function with a file name
      and a line number.  samples=N with_line=% files=BASENAME,...
  list TEXT
      `go tool pprof -list` text: the source line with the largest flat
      and the one with the largest cum count, each with its count.
      top_flat=LINE top_cum=LINE lines=N
  speedscope FILE
      Each frame of the chains' functions: name, file's basename, line.
      NAME=FILE:LINE ...
  tails FOLDED
      The stacks' frames from main on that hold at least 1% of the
      samples, sorted, one a line: what two captures of one program built
      two ways (with its DWARF, and stripped with a debug file) must share.
  functions RAW SRC
      Every pprof function of outer and the chains: its file must be SRC,
      by an absolute path (as addr2line prints it: a relative one is found
      only from the directory the program was built in), and its start
      line the line of its definition.
      functions=N ok=N bad=NAME:FILE:START,...
"""
import json
import os
import re
import subprocess
import sys
from collections import defaultdict

CHAINS = {
    "half": ["half_leaf"],
    "thirty": ["thirty_mid", "thirty_leaf"],
    "twenty": ["twenty_top", "twenty_mid", "twenty_leaf"],
}
FUNCS = {f for c in CHAINS.values() for f in c}


def die(msg):
    sys.stderr.write("inline_check: " + msg + "\n")
    sys.exit(1)


def hot_lines(src):
    """The line of each leaf's hot loop, from its "/* hot: KEY */" mark."""
    lines = {}
    with open(src) as f:
        for n, text in enumerate(f, 1):
            m = re.search(r"/\* hot: (\w+) \*/", text)
            if m:
                lines[m.group(1)] = n
    if set(lines) != set(CHAINS):
        die("%s: hot marks %s, want %s" % (src, sorted(lines), sorted(CHAINS)))
    return lines


def read_folded(path):
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            stack, _, n = line.rpartition(" ")
            if stack and n.isdigit():
                yield stack.split(";"), int(n)


def chains(argv):
    folded, src = argv[0], argv[1]
    annot, lines, no_inline = "--annot" in argv, "--lines" in argv, "--no-inline" in argv
    hot = hot_lines(src)
    base = os.path.basename(src)
    want = {}
    for key, chain in CHAINS.items():
        frames = ["main", "outer"]
        if not no_inline:
            frames += [f + "_[i]" if annot else f for f in chain]
        if lines:
            frames[-1] += " (%s:%d)" % (base, hot[key])
        want[key] = frames
    total = outer = on = 0
    per = defaultdict(int)
    other = defaultdict(int)
    for frames, n in read_folded(folded):
        total += n
        # "outer", "outer (file:N)" as a leaf with --lines
        names = [re.sub(r" \([^()]*:\d+\)$", "", f) for f in frames]
        if "outer" not in names:
            continue
        outer += n
        i = names.index("outer")
        tail = frames[i - 1:] if i > 0 else []
        for key, w in want.items():
            if tail == w:
                on += n
                per[key] += n
                break
        else:
            other[";".join(tail)] += n
    pct = lambda a, b: "%.1f" % (100.0 * a / b) if b else "0"
    first = max(other, key=other.get) if other else "-"
    print("samples=%d outer=%d chain=%s %s first_other=%s" % (
        total, outer, pct(on, outer),
        " ".join("%s=%s" % (k, pct(per[k], on)) for k in CHAINS),
        first.replace(" ", "_")))


def parse_raw(path):
    """Samples [(count, [loc ids, leaf first])], locations {id: (addr,
    mapping id, [(func, file, line)] innermost first)}, mappings {id:
    (start, limit, offset, path)}."""
    samples, locs, maps = [], {}, {}
    section, last = None, None
    line_re = re.compile(r"(.*) (\S*):(\d+) s=\d+(?:\(.*\))?")
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if line in ("Samples:", "Locations", "Mappings"):
                section = line
                continue
            if section == "Samples:":
                m = re.fullmatch(r" *(\d+) +\d+: ([\d ]+)", line)
                if m:
                    samples.append((int(m.group(1)), m.group(2).split()))
            elif section == "Locations":
                m = re.fullmatch(r" *(\d+): 0x([0-9a-f]+) (?:M=(\d+) )?(?:\[F\] )?(.*)", line)
                if m:
                    last = m.group(1)
                    locs[last] = (int(m.group(2), 16), m.group(3), [])
                    rest = m.group(4)
                elif last and line.startswith("             "):
                    rest = line.strip()
                else:
                    die("unexpected location line: %r" % line)
                lm = line_re.fullmatch(rest)
                if lm:
                    locs[last][2].append((lm.group(1), lm.group(2), int(lm.group(3))))
            elif section == "Mappings":
                m = re.fullmatch(r"(\d+): 0x([0-9a-f]+)/0x([0-9a-f]+)/0x([0-9a-f]+) (\S+).*", line)
                if m:
                    maps[m.group(1)] = (int(m.group(2), 16), int(m.group(3), 16),
                                        int(m.group(4), 16), m.group(5))
    if not samples or not locs:
        die("%s: no samples or no locations" % path)
    return samples, locs, maps


def load_segments(path):
    """(offset, vaddr, filesz) of each PT_LOAD of an ELF file."""
    out = subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout
    segs = []
    for l in out.splitlines():
        f = l.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
    return segs


def to_vaddr(addr, mapping, segs):
    start, _, offset, _ = mapping
    off = addr - start + offset
    for o, v, z in segs:
        if o <= off < o + z:
            return off - o + v
    return None


def addr2line(path, vaddrs):
    """{vaddr: [(func, line)] innermost first} from one addr2line run."""
    out = subprocess.run(["addr2line", "-a", "-f", "-i", "-C", "-e", path] +
                         ["0x%x" % a for a in vaddrs],
                         capture_output=True, text=True).stdout.splitlines()
    res, cur, i = {}, None, 0
    while i < len(out):
        if re.fullmatch(r"0x[0-9a-f]+", out[i]):
            cur = int(out[i], 16)
            res[cur] = []
            i += 1
            continue
        func, where = out[i], out[i + 1] if i + 1 < len(out) else ""
        m = re.match(r"(.*):(\d+|\?)", where)
        res[cur].append((func, int(m.group(2)) if m and m.group(2) != "?" else 0,
                         os.path.basename(m.group(1)) if m else ""))
        i += 2
    return res


def cmp_addr2line(argv):
    inlined = "--inlined" in argv
    argv = [a for a in argv if a != "--inlined"]
    samples, locs, maps = parse_raw(argv[0])
    files = {os.path.realpath(p) for p in argv[1:]}
    weight = defaultdict(int)
    for n, ids in samples:
        weight[ids[0]] += n
    by_file = defaultdict(list)
    for lid, n in weight.items():
        addr, mid, _ = locs[lid]
        if mid in maps and os.path.realpath(maps[mid][3]) in files:
            by_file[maps[mid][3]].append(lid)
    total = agree = w_total = w_agree = chained = 0
    bad = []
    for path, lids in by_file.items():
        segs = load_segments(path)
        va = {lid: to_vaddr(locs[lid][0], maps[locs[lid][1]], segs) for lid in lids}
        theirs = addr2line(path, sorted({v for v in va.values() if v is not None}))
        for lid in lids:
            lines = locs[lid][2]
            ours = ([l[0] for l in lines], lines[0][2] if lines else 0,
                    os.path.basename(lines[0][1]) if lines else "")
            t = theirs.get(va[lid], [])
            ref = ([x[0] for x in t], t[0][1] if t else 0, t[0][2] if t else "")
            if inlined:
                ours, ref = (ours[0][:-1],) + ours[1:], (ref[0][:-1],) + ref[1:]
            total += 1
            w_total += weight[lid]
            # with --inlined, an address neither names agrees (libc has
            # code no unit covers)
            unnamed = inlined and ours == ([], 0, "") and ref[:2] == ([], 0)
            if (ours == ref and ref[1] > 0) or unnamed:
                agree += 1
                chained += len(ref[0]) > (0 if inlined else 1)
                w_agree += weight[lid]
            else:
                bad.append("0x%x:%s|%s" % (va[lid] or 0,
                           "<".join(ours[0]) + "@%s:%d" % (ours[2], ours[1]),
                           "<".join(ref[0]) + "@%s:%d" % (ref[2], ref[1])))
    pct = lambda a, b: "%.1f" % (100.0 * a / b) if b else "0"
    print("addresses=%d agree=%s weighted=%s inlined=%d bad=%s" % (
        total, pct(agree, total), pct(w_agree, w_total), chained, ",".join(bad[:4]) or "-"))


def libc(argv):
    samples, locs, maps = parse_raw(argv[0])
    n_all = n_line = 0
    files = defaultdict(int)
    for n, ids in samples:
        addr, mid, lines = locs[ids[0]]
        if mid not in maps or not os.path.basename(maps[mid][3]).startswith("libc.so"):
            continue
        n_all += n
        if lines and lines[0][1] and lines[0][2] > 0:
            n_line += n
            files[os.path.basename(lines[0][1])] += n
    print("samples=%d with_line=%s files=%s" % (
        n_all, "%.1f" % (100.0 * n_line / n_all) if n_all else "0",
        ",".join(sorted(files, key=files.get, reverse=True)) or "-"))


def pprof_list(argv):
    flat, cum = {}, {}
    unit = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1, "": 1}

    def value(v):
        if v == ".":
            return 0.0
        m = re.fullmatch(r"([\d.]+)(ns|us|µs|ms|s|)", v)
        if not m:
            die("unexpected count %r" % v)
        return float(m.group(1)) * unit[m.group(2)]
    with open(argv[0], encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*(\S+)\s+(\S+)\s+(\d+):", line)
            if m and not line.lstrip().startswith("ROUTINE"):
                n = int(m.group(3))
                flat[n] = flat.get(n, 0) + value(m.group(1))
                cum[n] = cum.get(n, 0) + value(m.group(2))
    if not flat:
        die("no source lines in %s" % argv[0])
    print("top_flat=%d top_cum=%d lines=%d" % (
        max(flat, key=flat.get), max(cum, key=cum.get), len(flat)))


def speedscope(argv):
    with open(argv[0], encoding="utf-8") as f:
        doc = json.load(f)
    out = []
    for fr in doc["shared"]["frames"]:
        name = re.sub(r"(_\[i\])? \([^()]*\)$|_\[i\]$", "", fr["name"])
        if name in FUNCS or name == "outer":
            out.append("%s=%s:%s" % (fr["name"].replace(" ", "_"),
                                     os.path.basename(str(fr.get("file", ""))), fr.get("line", "")))
    print(" ".join(sorted(out)) or "-")


def tails(argv):
    counts, total = defaultdict(int), 0
    for frames, n in read_folded(argv[0]):
        total += n
        if "main" in frames:
            counts[";".join(frames[frames.index("main"):])] += n
    for t in sorted(t for t, n in counts.items() if 100 * n >= total):
        print(t)


def functions(argv):
    src = argv[1]
    decl = {}
    with open(src) as f:
        for n, text in enumerate(f, 1):
            m = re.match(r"(?:INLINE_FN|REAL_FN) void (\w+)\(", text)
            if m:
                decl[m.group(1)] = n
    bad, starts = [], {}
    with open(argv[0], encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.search(r"(?:^ *\d+: 0x[0-9a-f]+ (?:M=\d+ )?|^ {13})(\w+) (\S*):\d+ s=(\d+)", line)
            if m and (m.group(1) in FUNCS or m.group(1) == "outer"):
                starts[m.group(1)] = (m.group(2), int(m.group(3)))
    for name, (path, start) in sorted(starts.items()):
        ok = (os.path.isabs(path) and os.path.exists(path) and os.path.samefile(path, src) and
              start == decl.get(name))
        if not ok:
            bad.append("%s:%s:%d(want %s)" % (name, path, start, decl.get(name)))
    print("functions=%d ok=%d bad=%s" % (len(starts), len(starts) - len(bad), ",".join(bad) or "-"))


COMMANDS = {"chains": chains, "addr2line": cmp_addr2line, "libc": libc,
            "list": pprof_list, "speedscope": speedscope, "tails": tails,
            "functions": functions}

if len(sys.argv) < 3 or sys.argv[1] not in COMMANDS:
    die("usage: inline_check.py %s FILE ..." % "|".join(COMMANDS))
COMMANDS[sys.argv[1]](sys.argv[2:])
