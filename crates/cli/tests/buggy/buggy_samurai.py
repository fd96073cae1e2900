"""A samurai with one bug, chosen by its first argument, written as a contestant
would: on the SDK, logging to stderr, keeping a little state.

    python3 buggy_samurai.py crash-at-last-turn
"""
import sys
import time

from koth_bot import Bot, log, run

BUG = sys.argv[1] if len(sys.argv) > 1 else ""
BEATS = {"I": "P", "P": "O", "O": "I"}


class Buggy(Bot):
    name = "buggy samurai"

    def start(self, msg):
        self.limit = msg["rules"]["turn_limit"]
        self.matches = getattr(self, "matches", 0) + 1

    def decide(self, decision, view, legal):
        me, enemy = view["me"], view["enemy"]
        turn = decision["turn"]
        if BUG == "crash-at-last-turn" and turn == self.limit:
            log(f"turn {turn}: the last one")
            raise RuntimeError("did not expect a last turn")
        if BUG == "debug-at-honour-0" and me["honour"] == 0:
            print(f"honour is zero at turn {turn}", flush=True)  # meant for stderr
        if BUG == "lowercase-sword" and me["honour"] >= 7:
            return "i"  # the Sword of the Gods, but the letter is lower case
        if BUG == "slow-when-dying" and me["health"] <= 2:
            time.sleep(2)
        if BUG == "crash-in-second-match" and self.matches == 2 and turn == 3:
            log("second match, turn 3: about to fail")
            raise KeyError("history")
        if BUG == "stops-at-turn-5" and turn == 5:
            log("something looks odd: stopping the run")
            self.stop("odd position at turn 5")
        last = enemy["history"][-1:]
        if me["honour"] <= 0:
            return "B"
        if last in BEATS:
            return BEATS[last]
        if last == "G" or me["honour"] < 2:
            return "B"
        return "O" if turn % 2 else "I"


run(Buggy())
