# Seeds for fuzz_py_lines: the line tables of a few real functions as the
# running CPython (3.8 to 3.13) compiles them, one file per function:
# a version byte (minor - 8), the first line (4 bytes, little-endian), the
# table (co_lnotab up to 3.9, co_linetable from 3.10).
import struct
import sys

SRC = '''
def plain(a, b):
    c = a + b
    return c * 2

def loops(n):
    s = 0
    for i in range(n):
        if i % 3:
            s += i
        else:
            s -= 1
    return s

def far(x):
    y = x
''' + '\n' * 300 + '''
    return y
'''

if not (3, 8) <= sys.version_info[:2] <= (3, 13):
    sys.exit(0)
ns = {}
exec(compile(SRC, "seed.py", "exec"), ns)
for name in ("plain", "loops", "far"):
    code = ns[name].__code__
    table = code.co_lnotab if sys.version_info < (3, 10) else code.co_linetable
    head = struct.pack("<BI", sys.version_info[1] - 8, code.co_firstlineno)
    with open("%s/%s-3.%d" % (sys.argv[1], name, sys.version_info[1]), "wb") as f:
        f.write(head + table)
