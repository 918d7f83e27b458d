# Code objects for tests/unit/test_py_code.c, with what CPython itself says
# of them.  For each: "code ADDR QUALNAME FILE FIRSTLINENO FLAGS NR_INSTR"
# (names as hex of their UTF-8, the way smolder must render them: U+FFFD
# for a lone surrogate or a NUL, cut to 1024 bytes with "..." after), then
# "lines I:LINE ..." each instruction where the line changes, I in the unit
# the BPF walk records (bytes in 3.8 and 3.9, code units from 3.10, from
# the start of co_code_adaptive in 3.11+), LINE 0 for none; then "ready",
# and it waits on stdin so that the test can read it.
import dis
import sys

NAME_MAX = 1024
V = sys.version_info[:2]


def plain(a, b):
    return a + b


class Outer:
    class Inner:
        def meth(self):
            return 1


def café(x):  # latin-1: a one-byte, not ASCII, str
    return x


def λ_函数(x):  # UCS-2
    return x


def loops(n):
    total = 0
    for i in range(n):
        if i % 3 == 0:
            total += i
        else:
            total -= 1
    while total > 0:
        total //= 2
    try:
        x = 1 / n
    except ZeroDivisionError:
        x = 0
    return [i * 2 for i in range(3)], x, total


def compiled(name, source, filename):
    """The code object of function name defined by source."""
    scope = {}
    exec(compile(source, filename, "exec"), scope)
    return scope[name].__code__


def renamed(code, name):
    if V >= (3, 11):
        return code.replace(co_name=name, co_qualname=name)
    return code.replace(co_name=name)


# Lines far apart (deltas over 127, split in several table entries) and a
# loop jumping back; from a file whose name is not ASCII.
FAR = ("def far(n):\n    a = 1\n" + "\n" * 300 + "    for i in range(n):\n"
       "        a += i\n" + "\n" * 1000 + "    return a\n")
# A line table longer than one read (and than 64 KiB: smolder keeps the
# first 64 KiB and knows no line past it); lines 1000 apart make it long
# with few statements, which are what compiling costs.
LONG = "def long_body(x):\n" + ("    x += 1\n" + "\n" * 1000) * 6000 + "    return x\n"

codes = [
    plain.__code__,
    Outer.Inner.meth.__code__,
    café.__code__,
    λ_函数.__code__,
    loops.__code__,
    compiled("far", FAR, "/tmp/ünï/çødé/far.py"),
    compiled("long_body", LONG, "long_body.py"),
    renamed(plain.__code__, "ucs4_\U0001F600_name"),
    renamed(plain.__code__, "lone_\ud800_surrogate"),
    renamed(plain.__code__, "\U0001F600\udfff_ucs4_lone"),
    renamed(plain.__code__, "nul\x00inside"),
    renamed(plain.__code__, "n" * 10000000),
    renamed(plain.__code__, "é" * 1000),
    renamed(plain.__code__, "\U0001F600" * 3000000),
]


def rendered(s):
    """s as smolder renders a name."""
    out = b""
    for ch in s:
        if ch == "\0" or 0xD800 <= ord(ch) < 0xE000:
            ch = "\ufffd"
        b = ch.encode("utf-8")
        if len(out) + len(b) > NAME_MAX:
            return out + b"..."
        out += b
    return out


def lines(code):
    """(instr, line) for every instruction the BPF walk could record."""
    if V >= (3, 10):
        for start, end, line in code.co_lines():
            for b in range(start, end, 2):
                yield b // 2, line or 0
        return
    starts = dict(dis.findlinestarts(code))
    line = code.co_firstlineno
    for b in range(0, len(code.co_code), 2):
        line = starts.get(b, line)
        yield b, line


for code in codes:
    qualname = code.co_qualname if V >= (3, 11) else code.co_name
    nr = len(code.co_code) // (2 if V >= (3, 10) else 1)
    print("code %d %s %s %d %d %d" % (id(code), rendered(qualname).hex(),
          rendered(code.co_filename).hex(), code.co_firstlineno, code.co_flags, nr))
    changes, last = [], None
    for i, line in lines(code):
        if line != last:
            changes.append("%d:%d" % (i, line))
            last = line
    print("lines " + " ".join(changes))
print("ready", flush=True)
sys.stdin.read()
