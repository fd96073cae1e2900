"""A cautious bot with one bug, chosen by its first argument, for `koth coup check`.

It never chooses what leads to its bug: Income every turn (Coup when it must),
never a challenge, a block or a bluff. So its bug sits in a decision only a
check that brings the position about can ask. `python3 cautious_bot.py none`
has no bug; `start`, `end` and `every-50` are bugs outside one decision kind.
"""
import sys

from koth_bot import Bot, find, log, run

BUG = sys.argv[1] if len(sys.argv) > 1 else "none"


class Cautious(Bot):
    name = "cautious " + BUG
    answers = 0  # across games: the process's count

    def start(self, msg):
        self.revealed = False
        if BUG == "start":
            print("new game, seat", msg["seat"])  # stdout, by habit

    def end(self, msg):
        if BUG == "end":
            print("game over")  # stdout, by habit

    def event(self, ev):
        if ev["event"] == "turn":
            self.revealed = False
        if ev["event"] == "reveal":
            self.revealed = True

    def kind(self, decision, view):
        k = decision["kind"]
        mine = view["cards"]
        if k == "action" and view["coins"][view["seat"]] >= 10:
            return "forced-coup"
        if k == "block" and self.revealed:
            return "block-after-lost-challenge"
        if k == "exchange":
            return "exchange-two" if len(mine) == 2 else "exchange-one"
        if k == "lose_influence":
            return "lose-two" if len(mine) == 2 else "lose-last"
        return k.replace("_", "-")

    def decide(self, decision, view, legal):
        Cautious.answers += 1
        if BUG == "every-50" and Cautious.answers % 50 == 0:
            raise RuntimeError("answer counter overflow")
        if self.kind(decision, view) == BUG:
            raise RuntimeError("unhandled decision: " + BUG)
        k = decision["kind"]
        if k == "action":
            return find(legal, "act", "income") or legal[0]
        if k == "exchange":
            return legal[0]
        if k == "lose_influence":
            return legal[0]
        return find(legal, "pass") or legal[0]


if __name__ == "__main__":
    log("cautious bot starting:", BUG)
    run(Cautious())
