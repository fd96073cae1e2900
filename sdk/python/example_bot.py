"""An honest Coup bot: claims only cards it holds, blocks truthfully, and challenges
claims that the cards it can see make impossible."""
import random

from koth_bot import Bot, action_of, actions, claim_of, find, run, seen, target_of

# Best first: what to keep after an Exchange, what to lose last.
VALUE = ["duke", "captain", "assassin", "contessa", "ambassador"]


class Honest(Bot):
    name = "example honest"

    def decide(self, decision, view, legal):
        kind = decision["kind"]
        mine = view["cards"]
        if kind == "action":
            return self.turn(view, legal)
        if kind == "challenge_action":
            # Challenge only what cannot be true: all three copies are visible to me.
            if seen(view, decision["claim"]) >= 3 and find(legal, "challenge"):
                return "challenge"
            return find(legal, "pass") or legal[0]
        if kind == "block":
            for card in decision["blockers"]:
                if card in mine and find(legal, "block", card):
                    return find(legal, "block", card)
            return find(legal, "pass") or legal[0]
        if kind == "challenge_block":
            if seen(view, decision["card"]) >= 3 and find(legal, "challenge"):
                return "challenge"
            return find(legal, "pass") or legal[0]
        if kind == "exchange":
            keeps = [c for c in legal if isinstance(c, dict) and "keep" in c]
            return min(keeps, key=lambda c: sorted(VALUE.index(k) for k in c["keep"])) if keeps else legal[0]
        if kind == "lose_influence":
            loses = [c for c in legal if isinstance(c, dict) and "lose" in c]
            return max(loses, key=lambda c: VALUE.index(c["lose"])) if loses else legal[0]
        return legal[0]

    def turn(self, view, legal):
        mine = view["cards"]
        coins = view["coins"]

        def strongest(choices):
            # The opponent with the most influence, then the most coins.
            return max(choices, key=lambda c: (view["influence"][target_of(c)], coins[target_of(c)]))

        if actions(legal, "coup"):
            return strongest(actions(legal, "coup"))
        if "assassin" in mine and actions(legal, "assassinate"):
            return strongest(actions(legal, "assassinate"))
        if "duke" in mine and actions(legal, "tax"):
            return actions(legal, "tax")[0]
        if "captain" in mine:
            rich = [c for c in actions(legal, "steal") if coins[target_of(c)] >= 2]
            if rich:
                return strongest(rich)
        if "ambassador" in mine and "duke" not in mine and actions(legal, "exchange"):
            return actions(legal, "exchange")[0]
        # Foreign Aid is safe when every Duke is accounted for.
        if seen(view, "duke") >= 3 and actions(legal, "foreign_aid"):
            return actions(legal, "foreign_aid")[0]
        honest = [c for c in legal if claim_of(action_of(c)) in (None, *mine) and action_of(c) != "foreign_aid"]
        return (actions(honest, "income") or honest or [random.choice(legal)])[0]


if __name__ == "__main__":
    run(Honest)
