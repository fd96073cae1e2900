"""A bot written straight to the protocol, as a contestant without the SDK
writes one: it plays many games at once (KOTH_GAMES_AT_ONCE, 64 if unset) and,
now and then, answers a decide with an object that is no answer at all but
names its request: {"act": "fly", "id": N}. Which decisions: a stream per game,
from the game's seed, so the same games go the same whatever the games at once.

python3 fly.py MODE: "fly" as above; "calm" never does; "crash" never does
either, but the slot's first process exits (code 3) at the third decision of
its fifth game, with others under way.
"""
import json, os, random, sys

games = int(os.environ.get("KOTH_GAMES_AT_ONCE", "64"))
mode = sys.argv[1] if len(sys.argv) > 1 else "fly"
crash = mode == "crash"
first = os.environ.get("KOTH_RESTART") == "0"
rng = {}  # table -> the game's own stream
number = {}  # table -> the game's number, when told
turns = {}

for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    table = msg.get("table", 0)
    if kind == "hello":
        print(json.dumps({"type": "ready", "name": "fly", "games": games}), flush=True)
    elif kind == "start":
        rng[table] = random.Random(msg["seed"])
        number[table] = msg.get("game_id")
        turns[table] = 0
    elif kind == "decide":
        r = rng[table]
        turns[table] += 1
        if crash and first and number[table] == 5 and turns[table] == 3:
            print("crashing on purpose in game 5", file=sys.stderr, flush=True)
            os._exit(3)
        if r.random() < 0.02 and mode == "fly":
            answer = {"act": "fly", "id": msg["id"]}
        else:
            answer = {"choice": r.choice(msg["legal"]), "id": msg["id"]}
        print(json.dumps(answer), flush=True)
    elif kind == "end":
        rng.pop(table, None)
