# A complete koth bot in a few lines, without the SDK: answers hello, then picks
# a random legal choice for every decision.
import json, random, sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        reply = {"type": "ready", "name": "minimal"}
    elif msg["type"] == "decide":
        reply = {"choice": random.choice(msg["legal"])}
    else:
        continue
    print(json.dumps(reply), flush=True)
