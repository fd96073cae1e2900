"""A bot that plays many games at once through the Python SDK, for the tests:
python3 mux.py MODE.

Modes: "play" (honest play, deterministic given each game's seed), "crash" (the first
process of a slot, KOTH_RESTART=0, exits during its 300th decision, whatever the
game), "illegal" (answers one
illegal choice in each game of an odd seed), "notachoice" (answers, once in each game
of an odd seed, a well-formed answer that is no choice of the game at all),
"games=X" (says "games": X in ready).
"""
import json, os, random, sys

from koth_bot import Bot, run  # the tests copy the SDK beside this file

mode = sys.argv[1]
decisions = 0


class Mux(Bot):
    name = "mux " + mode

    def start(self, msg):
        # Only the game's own seed: the games under way must not share a stream.
        self.rng = random.Random(msg["seed"])
        self.odd = msg["seed"] % 2 == 1
        self.cheated = False

    def decide(self, decision, view, legal):
        global decisions
        decisions += 1
        # Once: the slot's next process (a fresh copy of the folder) plays on.
        first = os.environ.get("KOTH_RESTART") == "0"
        if mode == "crash" and decisions == 300 and first and os.environ.get("KOTH_SLOT") == "0":
            print("crashing on purpose", file=sys.stderr, flush=True)
            os._exit(3)
        if mode == "illegal" and self.odd and not self.cheated:
            self.cheated = True
            return {"act": {"coup": 9}}
        if mode == "notachoice" and self.odd and not self.cheated:
            self.cheated = True
            return {"act": "fly"}
        return self.rng.choice(legal)


if mode.startswith("games="):
    for line in sys.stdin:
        if json.loads(line)["type"] == "hello":
            value = json.loads(mode[len("games="):])
            print(json.dumps({"type": "ready", "name": "bad", "games": value}), flush=True)
else:
    run(Mux)
