#!/usr/bin/env python3
"""Hostile HTTP clients for tests/cli/serve_hostile.sh (run as nobody).

  http_hostile.py loris PORT N SECONDS
      N connections that each send a request's first bytes, then one more
      header byte a second, for at most SECONDS; prints "open N" once all
      are connected, then "closed K of N, last after T s" (closed: the
      server ended the connection).
  http_hostile.py fuzz PORT N
      N malformed requests, each kind in turn: garbage bytes, oversized
      headers, huge URLs, pipelined junk, bad methods and versions, bodies;
      prints "sent N".
"""
import random
import selectors
import socket
import sys
import time


def loris(port, n, seconds):
    sel = selectors.DefaultSelector()
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /debug/pprof/profile?seconds=1 HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        socks.append(s)
    print("open %d" % n, flush=True)
    t0 = time.monotonic()
    closed = {}
    next_byte = t0 + 1
    while time.monotonic() - t0 < seconds and len(closed) < n:
        for key, _ in sel.select(timeout=0.1):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except OSError:
                data = b""
            if not data:
                closed[s] = time.monotonic() - t0
                sel.unregister(s)
        if time.monotonic() >= next_byte:
            next_byte += 1
            for s in socks:
                if s not in closed:
                    try:
                        s.send(b"a")
                    except OSError:
                        closed[s] = time.monotonic() - t0
                        sel.unregister(s)
    last = max(closed.values()) if closed else 0
    print("closed %d of %d, last after %.1f s" % (len(closed), n, last), flush=True)


def junk(rng):
    kind = rng.randrange(8)
    if kind == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 2048)))
    if kind == 1:
        return (b"GET /debug/pprof/profile HTTP/1.1\r\n" +
                b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 200) for i in range(200)) + b"\r\n")
    if kind == 2:
        return b"GET /" + b"a" * rng.choice([9000, 70000, 300000]) + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    if kind == 3:
        return b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * 3 + b"\x00\xff junk\r\n\r\n" * 20
    if kind == 4:
        return b"BREW /debug/pprof/profile HTTP/9.9\r\n\r\n"
    if kind == 5:
        return b"POST /debug/pprof/profile HTTP/1.1\r\nContent-Length: 99999999\r\n\r\n" + b"x" * 5000
    if kind == 6:
        return b"GET /debug/pprof/profile?seconds=%s&pid=%s HTTP/1.1\r\n\r\n" % (
            rng.choice([b"%00", b"1e9", b"-0", b"99999999999999999999", b"1" * 5000]),
            rng.choice([b",", b"0", b"4294967296", b"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"]))
    return b"GET /debug/pprof/profile HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n" + b"\r\n" * 100


def fuzz(port, n):
    rng = random.Random(25)
    for i in range(n):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=2)
            s.sendall(junk(rng))
            if i % 10 == 0:  # some read what comes back, the rest hang up
                s.settimeout(0.02)
                try:
                    s.recv(65536)
                except OSError:
                    pass
            s.close()
        except OSError:
            pass
    print("sent %d" % n, flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "loris":
        loris(int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
    else:
        fuzz(int(sys.argv[2]), int(sys.argv[3]))
