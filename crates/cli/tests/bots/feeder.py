"""A feeder, written as an author who wants one of its entrants to win writes
it: it plays as the SDK's example bot, but never aims an attack at a seat whose
name starts with "main" (its partner)."""
from example_bot import Honest
from koth_bot import run, target_of


class Feeder(Honest):
    name = "feeder"

    def start(self, msg):
        names = msg.get("names") or []
        self.partner = {i for i, n in enumerate(names) if str(n).startswith("main")}

    def decide(self, decision, view, legal):
        partner = getattr(self, "partner", set())
        spare = [c for c in legal if target_of(c) not in partner]
        return super().decide(decision, view, spare or legal)


if __name__ == "__main__":
    run(Feeder)
