"""The channel left between two sandboxes: time. `timing.py send T0 SLOT BITS`
keeps both cores busy (itself and a child) through the slots whose bit is 1,
and sleeps through the others; `timing.py receive T0 SLOT N` counts its own
work in each of N slots and prints the counts. Slots start at T0 (seconds
since 1970, the one clock both sandboxes share) and last SLOT seconds.
"""
import os
import sys
import time

role, t0, slot = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])


def wait_until(t):
    d = t - time.time()
    if d > 0:
        time.sleep(d)


if role == "send":
    bits = sys.argv[4]
    child = os.fork()
    for i, b in enumerate(bits):
        start, end = t0 + i * slot, t0 + (i + 1) * slot
        wait_until(start)
        if b == "1":
            while time.time() < end:
                pass
    if child:
        os.waitpid(child, 0)
    else:
        os._exit(0)
    print("sent")
else:
    n = int(sys.argv[4])
    counts = []
    for i in range(n):
        # The middle of each slot: clocks and wake-ups are a little late.
        start, end = t0 + (i + 0.15) * slot, t0 + (i + 0.85) * slot
        wait_until(start)
        k = 0
        while time.time() < end:
            k += 1
        counts.append(k)
    print(" ".join(map(str, counts)))
