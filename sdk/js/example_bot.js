// An honest Coup bot: claims only cards it holds, blocks truthfully, and challenges
// claims that the cards it can see make impossible.
"use strict";
const { Bot, run, actionOf, actions, claimOf, find, seen, targetOf } = require("./koth_bot");

// Best first: what to keep after an Exchange, what to lose last.
const VALUE = ["duke", "captain", "assassin", "contessa", "ambassador"];
const rank = (c) => VALUE.indexOf(c);

class Honest extends Bot {
  constructor() {
    super();
    this.name = "js example honest";
  }

  decide(decision, view, legal) {
    const mine = view.cards;
    const pass = find(legal, "pass") || legal[0];
    switch (decision.kind) {
      case "action":
        return this.turn(view, legal);
      case "challenge_action":
        return seen(view, decision.claim) >= 3 && find(legal, "challenge") ? "challenge" : pass;
      case "block":
        for (const card of decision.blockers) {
          if (mine.includes(card) && find(legal, "block", card)) return find(legal, "block", card);
        }
        return pass;
      case "challenge_block":
        return seen(view, decision.card) >= 3 && find(legal, "challenge") ? "challenge" : pass;
      case "exchange": {
        const key = (c) => c.keep.map(rank).sort((a, b) => a - b).join(",");
        const keeps = legal.filter((c) => c && c.keep);
        keeps.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
        return keeps[0] || legal[0];
      }
      case "lose_influence": {
        const loses = legal.filter((c) => c && c.lose);
        loses.sort((a, b) => rank(b.lose) - rank(a.lose));
        return loses[0] || legal[0];
      }
      default:
        return legal[0];
    }
  }

  turn(view, legal) {
    const mine = view.cards;
    const coins = view.coins;
    const strongest = (cs) =>
      cs.reduce((best, c) => {
        const k = (x) => view.influence[targetOf(x)] * 100 + coins[targetOf(x)];
        return k(c) > k(best) ? c : best;
      });
    if (actions(legal, "coup").length) return strongest(actions(legal, "coup"));
    if (mine.includes("assassin") && actions(legal, "assassinate").length) return strongest(actions(legal, "assassinate"));
    if (mine.includes("duke") && actions(legal, "tax").length) return actions(legal, "tax")[0];
    if (mine.includes("captain")) {
      const rich = actions(legal, "steal").filter((c) => coins[targetOf(c)] >= 2);
      if (rich.length) return strongest(rich);
    }
    if (mine.includes("ambassador") && !mine.includes("duke") && actions(legal, "exchange").length) return actions(legal, "exchange")[0];
    if (seen(view, "duke") >= 3 && actions(legal, "foreign_aid").length) return actions(legal, "foreign_aid")[0];
    const honest = legal.filter((c) => actionOf(c) !== "foreign_aid" && (claimOf(actionOf(c)) === null || mine.includes(claimOf(actionOf(c)))));
    return actions(honest, "income")[0] || honest[0] || legal[0];
  }
}

run(Honest);
