"""A samurai over the koth JSON-lines protocol, built on the SDK:

    koth samurai play 'cmd:python3 sdk/python/samurai_bot.py' bower
    koth samurai check 'python3 sdk/python/samurai_bot.py'

Each turn it gets decision {"kind": "turn", "turn": N}, its view
{"seat", "turn", "me": {"health", "honour", "history"}, "enemy": {...}} (histories
are letters, oldest first, as in the original challenge) and legal, the six letters.
"""
from koth_bot import Bot, log, run

# The strike that beats each strike: parry beats quick draw, overhead beats parry,
# quick draw beats overhead.
BEATS = {"I": "P", "P": "O", "O": "I"}


class Counterstrike(Bot):
    name = "counterstrike"

    def decide(self, decision, view, legal):
        me, enemy = view["me"], view["enemy"]
        last = enemy["history"][-1:]
        if me["honour"] <= 0:
            return "B"  # a strike at 0 honour would anger the gods
        if last in BEATS:
            return BEATS[last]  # expect the same strike again
        if last == "G" or me["honour"] < 2:
            return "B"  # a guard blocks every strike: gain honour instead
        return "O" if len(me["history"]) % 2 else "I"

    def end(self, msg):
        won = msg["view"]["seat"] in msg["winners"]
        log(f"{'won' if won else 'did not win'} after {msg['turns']} turns ({msg['ending']})")


run(Counterstrike())
