// A coup-cli style bot (seed 004's interface), for the adapter test: honest play.
"use strict";

class BotClass {
  onTurn({ myCards, myCoins, otherPlayers }) {
    const richest = otherPlayers.reduce((a, b) => (b.coins > a.coins ? b : a));
    if (myCoins >= 7) return { action: "couping", against: richest.name };
    if (myCards.includes("assassin") && myCoins >= 3) return { action: "assassination", against: otherPlayers[0].name };
    if (myCards.includes("duke")) return { action: "taking-3" };
    if (myCards.includes("captain") && richest.coins > 0) return { action: "stealing", against: richest.name };
    if (myCards.includes("ambassador")) return { action: "swapping" };
    return { action: "taking-1" };
  }
  onChallengeActionRound({ history, discardedCards, action }) {
    if (!Array.isArray(history)) throw new Error("history must be an array");
    const claim = { "taking-3": "duke", assassination: "assassin", stealing: "captain", swapping: "ambassador" }[action];
    return discardedCards.filter((c) => c === claim).length >= 3;
  }
  onCounterAction({ myCards, action }) {
    if (action === "assassination") return myCards.includes("contessa") && "contessa";
    if (action === "stealing") return (myCards.includes("captain") && "captain") || (myCards.includes("ambassador") && "ambassador");
    if (action === "foreign-aid") return myCards.includes("duke") && "duke";
    return false;
  }
  onCounterActionRound({ discardedCards, card }) {
    return discardedCards.filter((c) => c === card).length >= 3;
  }
  onSwappingCards({ myCards, newCards }) {
    const order = ["duke", "captain", "assassin", "contessa", "ambassador"];
    return [...myCards, ...newCards].sort((a, b) => order.indexOf(a) - order.indexOf(b)).slice(0, myCards.length);
  }
  onCardLoss({ myCards }) {
    const order = ["ambassador", "contessa", "assassin", "captain", "duke"];
    return myCards.slice().sort((a, b) => order.indexOf(a) - order.indexOf(b))[0];
  }
}

module.exports = BotClass;
