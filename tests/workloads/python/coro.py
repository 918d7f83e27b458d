# A coroutine doing CPU work under asyncio.run (issue 23's asyncio check):
# the event loop resumes driver(), which awaits crunch(), which computes
# and yields to the loop every ~1 ms.  crunch must show under the event
# loop's frames (run_until_complete, _run_once, ...), below driver.
#
#   coro.py SECONDS   runs for SECONDS, prints nothing
import asyncio
import sys
import time


async def crunch(until):
    x = 1
    while time.perf_counter() < until:
        for i in range(2000):
            x = (x * 1103515245 + 12345) & 0xFFFFFFFF
        await asyncio.sleep(0)
    return x


async def driver(seconds):
    return await crunch(time.perf_counter() + seconds)


def main():
    asyncio.run(driver(float(sys.argv[1] if len(sys.argv) > 1 else 10)))


if __name__ == "__main__":
    main()
