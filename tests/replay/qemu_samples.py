#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""Real arm64 register sets and stacks, on any host, for the arm64 walk.

qemu_samples.py BIN MODE OUT FUNC...

Runs the static arm64 program BIN MODE under qemu-aarch64-static with its
gdb stub and stops it once at every instruction of each FUNC (a breakpoint
at each, taken away when hit): each stop is a sample in the recording
format of tests/replay/unwind_image.h (its header, then "sample PC SP X29
X30" and the
stack from sp up: "mem" lines, 2 KiB a line, as far as it reads, 256 KiB
at most), without the maps and names, which tests/replay/a64_image.c adds.  The stub is spoken here (the remote protocol's g, m, Z0, z0 and c
packets), so no arm64 gdb is needed.
"""
import os
import socket
import subprocess
import sys
import time

STACK_MAX = 256 << 10
CHUNK = 2048  # the stub's PacketSize (0x1000) holds 2 KiB of hex


class Stub:
    """The gdb remote protocol, the few packets needed."""

    def __init__(self, port):
        for _ in range(100):
            try:
                self.s = socket.create_connection(("127.0.0.1", port))
                # a packet at a time, each answered: no 40 ms Nagle waits
                self.s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise SystemExit("qemu_samples: no gdb stub on port %d" % port)
        self.buf = b""

    def send(self, cmd):
        body = cmd.encode()
        self.s.sendall(b"$%s#%02x" % (body, sum(body) & 0xff))
        return self.reply()

    def reply(self):
        while True:
            start = self.buf.find(b"$")
            end = self.buf.find(b"#", start)
            if start >= 0 and end >= 0 and len(self.buf) >= end + 3:
                body = self.buf[start + 1:end]
                self.buf = self.buf[end + 3:]
                self.s.sendall(b"+")
                return body.decode()
            data = self.s.recv(65536)
            if not data:
                raise SystemExit("qemu_samples: the stub went away")
            self.buf += data


def functions(path, names):
    """Start and size of each named function, from the symbol table."""
    out = subprocess.run(["readelf", "-sW", path], capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 8 and f[3] == "FUNC" and f[7] in names:
            found[f[7]] = (int(f[1], 16), int(f[2], 0))
    missing = set(names) - set(found)
    if missing:
        raise SystemExit("qemu_samples: no symbol for %s" % ", ".join(sorted(missing)))
    return found


def regs(stub):
    """x29, x30, sp and pc from a g packet: x0..x30, sp, pc, 8 bytes each."""
    g = stub.send("g")
    word = lambda i: int.from_bytes(bytes.fromhex(g[16 * i:16 * i + 16]), "little")
    return word(29), word(30), word(31), word(32)


def stack(stub, sp):
    """The stack from sp up, in chunks, until a read fails."""
    chunks, at = [], sp
    while at - sp < STACK_MAX:
        n = CHUNK - (at % CHUNK) if at % CHUNK else CHUNK
        data = stub.send("m%x,%x" % (at, n))
        if not data or data.startswith("E"):
            break
        chunks.append((at, data))
        at += n
    return chunks


def main():
    path, mode, out = sys.argv[1:4]
    funcs = functions(path, sys.argv[4:])
    port = 20000 + os.getpid() % 20000
    qemu = subprocess.Popen(["qemu-aarch64-static", "-g", str(port), path, mode, "1"],
                            stdout=subprocess.DEVNULL)
    try:
        stub = Stub(port)
        stub.reply() if stub.buf else None
        stub.send("?")
        pending = set()
        for start, size in funcs.values():
            for pc in range(start, start + size, 4):
                if stub.send("Z0,%x,4" % pc) == "OK":
                    pending.add(pc)
        samples = 0
        with open(out, "w") as f:
            # a recording's header (unwind_image.h): its maps come later
            f.write("smolder-unwind-recording 1\nworkload %s %s\nimage 1 1\nshards 16 2 0\n"
                    % (os.path.basename(path), mode))
            while pending:
                stop = stub.send("c")
                if not stop.startswith(("S05", "T05")):
                    break  # the program ended
                x29, x30, sp, pc = regs(stub)
                if pc in pending:
                    pending.discard(pc)
                    stub.send("z0,%x,4" % pc)
                f.write("sample %#x %#x %#x %#x\n" % (pc, sp, x29, x30))
                for at, data in stack(stub, sp):
                    f.write("mem %#x %s\n" % (at, data))
                samples += 1
        print("qemu_samples: %d samples, %d breakpoints not reached" % (samples, len(pending)))
    finally:
        qemu.kill()
        qemu.wait()


if __name__ == "__main__":
    main()
