"""A bot with one bug, chosen by its first argument, for `koth coup check` tests.

Each bug is one a contestant writes by accident; all of it is the honest example
bot otherwise. `python3 buggy_bot.py none` has no bug. It sits beside copies of
the SDK's koth_bot.py and example_bot.py, as a contestant's bot does.
"""
import sys
import time

from koth_bot import log, run
from example_bot import Honest

BUG = sys.argv[1] if len(sys.argv) > 1 else "none"


class Buggy(Honest):
    name = "buggy " + BUG

    def start(self, msg):
        self.revealed_this_turn = False

    def event(self, ev):
        if ev["event"] == "turn":
            self.revealed_this_turn = False
        if ev["event"] == "reveal":
            self.revealed_this_turn = True

    def decide(self, decision, view, legal):
        kind = decision["kind"]
        mine = view["cards"]
        forced = view["coins"][view["seat"]] >= 10
        if BUG == "assassinate-broke" and kind == "action" and not forced and "assassin" in mine:
            # Builds the choice itself instead of taking it from legal: too poor.
            others = [s for s in range(len(view["coins"])) if s != view["seat"] and view["influence"][s] > 0]
            return {"act": {"assassinate": others[0]}}
        if BUG == "ignores-forced-coup" and kind == "action" and forced:
            return {"act": "income"}
        if BUG == "prints-debug" and kind == "challenge_action":
            print("thinking about", decision["claim"])  # stdout, by habit
        if BUG == "blocks-with-contessa" and kind == "block" and not self.revealed_this_turn:
            return {"block": "contessa"}
        if BUG == "crash-after-reveal" and kind == "block" and self.revealed_this_turn:
            raise RuntimeError("card tracker out of sync after a reveal")
        if BUG == "slow-challenge" and kind == "challenge_block":
            time.sleep(2)
        if kind == "exchange":
            drawn = view.get("drawn") or []
            if BUG == "keeps-three" and len(mine) == 2:
                return {"keep": (mine + drawn)[:3]}
            if BUG == "keeps-two-with-one-influence" and len(mine) == 1:
                return {"keep": (mine + drawn)[:2]}
        if BUG == "loses-duke" and kind == "lose_influence" and len(mine) == 2:
            return {"lose": "duke" if "duke" not in mine else "nothing"}
        if BUG == "loses-second-card" and kind == "lose_influence":
            return {"lose": mine[1]}  # IndexError with one card left
        return super().decide(decision, view, legal)


if __name__ == "__main__":
    log("buggy bot starting:", BUG)
    run(Buggy())
