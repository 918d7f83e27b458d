#!/usr/bin/python3
# Reads a profile back into folded stacks for tests/check/formats.sh and
# tests/cli/formats_capture.sh, so that what a format carries can be
# compared with the folded input line by line.
# Prints "root;...;leaf COUNT" per distinct stack (equal stacks summed),
# sorted by bytes, counts as integers when whole.  Run with Debian's
# /usr/bin/python3, which has python3-jsonschema.
#
#   stacks.py folded FILE            a folded file (bytes: invalid UTF-8
#                                    becomes U+FFFD, as the writers do)
#   stacks.py speedscope FILE SCHEMA validates FILE against speedscope's
#                                    schema (SCHEMA "-": not; jsonschema
#                                    takes 14 s on 100,000 stacks), checks
#                                    endValue and frame references, then
#                                    prints its stacks
#   stacks.py pprof-raw FILE [N]     `go tool pprof -raw` text: value N
#                                    (default 0) of each sample
#   stacks.py pprof-traces FILE      `go tool pprof -traces` text (leaf
#                                    first, one frame a line)
#   stacks.py pprof-types FILE       `-raw`'s sample types, "type/unit ..."
# Exits 1 with a message on stderr when the input is wrong.
import json
import re
import sys
from collections import defaultdict


def die(msg):
    sys.stderr.write(msg + "\n")
    sys.exit(1)


def num(v):
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def emit(counts):
    for stack in sorted(counts, key=lambda s: s.encode("utf-8")):
        sys.stdout.write("%s %s\n" % (stack, num(counts[stack])))


def folded(path):
    counts = defaultdict(float)
    with open(path, "rb") as f:
        for raw in f:
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            if not line.strip():
                continue
            stack, _, n = line.rpartition(" ")
            counts[stack.rstrip()] += float(n)
    return counts


def speedscope(path, schema_path, per_profile=False):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8")  # strict: must be valid UTF-8
    doc = json.loads(text)  # strict: no raw control characters in strings
    if schema_path != "-":
        import jsonschema

        with open(schema_path) as f:
            jsonschema.validate(doc, json.load(f))
    frames = [fr["name"] for fr in doc["shared"]["frames"]]
    if len(set(frames)) != len(frames):
        die("frames are not deduplicated")
    if not doc["profiles"]:
        die("no profiles")
    if doc.get("activeProfileIndex", 0) != 0:
        die("activeProfileIndex is not the first (hottest) profile")
    # a capture's file has one profile per process (or thread): the stacks
    # are all of theirs; per_profile: each profile's name and total instead
    counts = defaultdict(float)
    totals = []
    for prof in doc["profiles"]:
        if prof["type"] != "sampled" or prof["unit"] != "none" or prof["startValue"] != 0:
            die("profile header: %r" % {k: prof[k] for k in ("type", "unit", "startValue")})
        if len(prof["samples"]) != len(prof["weights"]):
            die("samples and weights differ in length")
        if abs(sum(prof["weights"]) - prof["endValue"]) > 1e-6 * max(1, prof["endValue"]):
            die("endValue %r is not the weights' total %r" % (prof["endValue"], sum(prof["weights"])))
        for sample, w in zip(prof["samples"], prof["weights"]):
            if any(not isinstance(i, int) or i < 0 or i >= len(frames) for i in sample):
                die("sample refers to a missing frame: %r" % sample)
            counts[";".join(frames[i] for i in sample)] += w
        totals.append((prof["name"], prof["endValue"]))
    if per_profile:
        for name, total in totals:
            print("%s\t%g" % (name, total))
        sys.exit(0)
    return counts


def pprof_raw(path, index):
    """Locations: "ID: 0xADDR M=1 NAME FILE:LINE s=START" (a capture's have
    addresses, a folded file's 0x0; FILE:LINE is ":0" without a source,
    a native frame's from its DWARF; names alone are compared here:
    samples of one stack at other addresses add up), then one indented
    "NAME FILE:LINE s=START" line for each function the first one was
    inlined into, innermost first; samples: "V1 V2: ID ..." with the leaf
    first, which is reversed here into folded order."""
    names, samples, section, last = {}, [], None, None
    line_re = r"(.*) \S*:\d+ s=\d+"
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line in ("Samples:", "Locations", "Mappings"):
                section = line
                continue
            if section == "Samples:" and ":" in line:
                values, _, ids = line.partition(":")
                if re.fullmatch(r"[\d ]+", values) and re.fullmatch(r"[\d ]*", ids):
                    samples.append((values.split(), ids.split()))
            elif section == "Locations":
                m = re.fullmatch(r" *(\d+): 0x[0-9a-f]+ (?:M=\d+ )?" + line_re, line)
                inl = re.fullmatch(r" {13,}" + line_re, line)
                if m:
                    last = m.group(1)
                    names[last] = [m.group(2)]
                elif inl and last:
                    names[last].append(inl.group(1))
                else:
                    die("unexpected location line: %r" % line)
    counts = defaultdict(float)
    for values, ids in samples:
        counts[";".join(";".join(reversed(names[i])) for i in reversed(ids))] += int(values[index])
    return counts


def pprof_traces(path):
    """Blocks between "-----------+---" lines: "%10s   %s" (value, then the
    leaf), then "%10s   %s" with no value for each caller."""
    counts, frames, value = defaultdict(float), [], None
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for line in lines + ["-----------+"]:
        if line.startswith("-----------+"):
            if value is not None:
                counts[";".join(reversed(frames))] += value
            frames, value = [], None
        elif len(line) > 13 and line[10:13] == "   ":
            if line[:10].strip():
                if value is not None or not line[:10].strip().isdigit():
                    die("unexpected trace line: %r" % line)
                value = int(line[:10])
            frames.append(line[13:])
    return counts


def pprof_types(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if "Samples:" not in lines:
        die("no Samples: section")
    return lines[lines.index("Samples:") + 1].split()


def main(argv):
    if len(argv) < 3:
        die("usage: stacks.py folded|speedscope|speedscope-profiles|pprof-raw|pprof-traces|pprof-types FILE ...")
    mode, path = argv[1], argv[2]
    if mode == "folded":
        emit(folded(path))
    elif mode == "speedscope":
        emit(speedscope(path, argv[3]))
    elif mode == "speedscope-profiles":
        speedscope(path, argv[3], True)
    elif mode == "pprof-raw":
        emit(pprof_raw(path, int(argv[3]) if len(argv) > 3 else 0))
    elif mode == "pprof-traces":
        emit(pprof_traces(path))
    elif mode == "pprof-types":
        print(" ".join(pprof_types(path)))
    else:
        die("unknown mode " + mode)


main(sys.argv)
