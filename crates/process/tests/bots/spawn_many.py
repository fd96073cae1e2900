# Fork-bomb-ish (bounded): starts argv[1] children that each start a grandchild, all sleeping,
# prints every pid on one line, then sleeps. Reports failures to fork.
import os
import sys
import time

n = int(sys.argv[1])
pids = []
failed = 0
for _ in range(n):
    try:
        pid = os.fork()
    except OSError:
        failed += 1
        continue
    if pid == 0:
        try:
            g = os.fork()
            if g == 0:
                time.sleep(1000)
                os._exit(0)
        except OSError:
            pass
        time.sleep(1000)
        os._exit(0)
    pids.append(pid)
print("pids", " ".join(map(str, pids)), "failed", failed, flush=True)
time.sleep(1000)
