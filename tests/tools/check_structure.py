#!/usr/bin/env python3
"""The source tree's shape (issue 22): check_structure.py [SRC] prints one
line per broken rule (nothing when all hold) and exits 1 if any broke.

 - rank: a file includes headers of its own folder or of a folder of lower
   rank, never of one above or beside it (RANKS below);
 - qualified: a project header is included by its folder's name
   ("symbols/usyms.h"), so every arrow can be found with grep;
 - private: a header ending in _int.h is included only from its folder;
 - loop: no module (a file's name without .c/.h) includes itself through
   others; an _int.h header stands for its includers;
 - size: no .c file is over 800 lines;
 - env: struct env (the command line) is known only in cmd/;
 - skeleton: only capture/ includes the BPF skeleton.
The headers of include/ (shared with the BPF side) and the generated ones
in build/ are not src's and are not checked.  A folder's subfolder
(interp/python/) is part of it: its files have the folder's rank.
"""
import os
import re
import sys

# Folders, bottom to top; folders of one rank may not include each other.
RANKS = {'lib': 0, 'files': 1, 'profile': 1, 'symbols': 2, 'unwind': 2, 'output': 2,
         'interp': 2, 'capture': 3, 'fold': 3, 'session': 4, 'serve': 5, 'cmd': 6}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(src):
    """Paths below src: folder/file, or folder/subfolder/file."""
    for d in sorted(os.listdir(src)):
        if not os.path.isdir(os.path.join(src, d)):
            continue
        for f in sorted(os.listdir(os.path.join(src, d))):
            path = os.path.join(src, d, f)
            if f.endswith(('.c', '.h')):
                yield '%s/%s' % (d, f)
            elif os.path.isdir(path):
                for g in sorted(os.listdir(path)):
                    if g.endswith(('.c', '.h')):
                        yield '%s/%s/%s' % (d, f, g)


def module(path):
    return re.sub(r'(_int)?\.[ch]$', '', path.split('/')[-1])


def find_loop(edges):
    """One module cycle of the graph, as a list, or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state:
                found = visit(n)
                if found:
                    return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '../../src')
    files = list(sources(src))
    text = {f: open(os.path.join(src, f), errors='replace').read() for f in files}
    names = {f.split('/')[-1]: f for f in files}
    incs = {f: INCLUDE.findall(text[f]) for f in files}
    bad = []
    for f in files:
        d = f.split('/')[0]
        if d not in RANKS:
            bad.append('rank: %s is in %s/, which has no rank' % (f, d))
        for inc in incs[f]:
            if '/' not in inc:
                if inc in names:
                    bad.append('qualified: %s includes "%s" without its folder' % (f, inc))
                continue
            if inc not in text:
                bad.append('qualified: %s includes "%s", which is not in src/' % (f, inc))
                continue
            to = inc.split('/')[0]
            if to == d:
                continue
            if inc.endswith('_int.h'):
                bad.append('private: %s includes %s, private to %s/' % (f, inc, to))
            if to in RANKS and d in RANKS and RANKS[to] >= RANKS[d]:
                bad.append('rank: %s includes %s: %s/ (rank %d) is not below %s/ (rank %d)' %
                           (f, inc, to, RANKS[to], d, RANKS[d]))

    def headers_of(f, seen=()):
        for inc in incs.get(f, ()):
            if inc in text and inc not in seen:
                if inc.endswith('_int.h'):
                    yield from headers_of(inc, seen + (inc,))
                else:
                    yield inc

    edges = {}
    for f in files:
        if f.endswith('_int.h'):
            continue
        for inc in headers_of(f):
            if module(f) != module(inc):
                edges.setdefault(module(f), set()).add(module(inc))
    loop = find_loop(edges)
    if loop:
        bad.append('loop: modules include each other: %s' % ' -> '.join(loop))
    for f in files:
        n = text[f].count('\n')
        if f.endswith('.c') and n > 800:
            bad.append('size: %s has %d lines (at most 800)' % (f, n))
        if re.search(r'struct env\b', text[f]) and not f.startswith('cmd/'):
            bad.append('env: %s knows struct env, which only cmd/ may' % f)
        if 'smolder.skel.h' in incs[f] and not f.startswith('capture/'):
            bad.append('skeleton: %s includes the BPF skeleton, which only capture/ may' % f)
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
