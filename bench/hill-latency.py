#!/usr/bin/env python3
"""How late the hill's page learns of stored games: connects to a running
`koth hill serve`'s event stream for SECONDS and prints, over every update, the
delay between the board's snapshot (made right after a batch of games is stored)
and its arrival here, as p50, p99 and max.

    koth hill serve DIR --listen 127.0.0.1:8080 &
    python3 bench/hill-latency.py http://127.0.0.1:8080 30

A game waits at most 200 ms for its batch to be stored: add that for the delay
from a game's end.
"""
import json
import sys
import time
import urllib.request

url = sys.argv[1].rstrip("/") + "/api/live"
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 30
delays = []
games = []
end = time.time() + seconds
with urllib.request.urlopen(url, timeout=seconds + 10) as stream:
    for raw in stream:
        line = raw.decode().strip()
        if line.startswith("data:"):
            b = json.loads(line[5:])
            delays.append(time.time() * 1000 - b["at_ms"])
            games.append(b["games"])
        if time.time() > end:
            break
delays = sorted(delays[1:])  # the first is the snapshot made before we came
if not delays:
    sys.exit("no update in %s s: is the hill playing?" % seconds)
pick = lambda q: delays[min(len(delays) - 1, int(q * len(delays)))]
print("%d updates over %.0f s (%d games stored meanwhile): delay p50 %.1f ms, p99 %.1f ms, max %.1f ms"
      % (len(delays), seconds, games[-1] - games[0], pick(0.5), pick(0.99), delays[-1]))
