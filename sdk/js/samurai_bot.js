// A samurai over the koth JSON-lines protocol, built on the SDK:
//
//   koth samurai play 'cmd:node sdk/js/samurai_bot.js' bower
//   koth samurai check 'node sdk/js/samurai_bot.js'
//
// Each turn: decision {"kind":"turn","turn":N}, view {seat, turn, me: {health,
// honour, history}, enemy: {...}} (histories are letters, oldest first, as in the
// original challenge), and legal: the six letters.
"use strict";
const { Bot, run, log } = require("./koth_bot");

// The strike that beats each strike.
const BEATS = { I: "P", P: "O", O: "I" };

class Counterstrike extends Bot {
  constructor() {
    super();
    this.name = "counterstrike (js)";
  }
  decide(_decision, view, _legal) {
    const { me, enemy } = view;
    const last = enemy.history.slice(-1);
    if (me.honour <= 0) return "B";
    if (last in BEATS) return BEATS[last];
    if (last === "G" || me.honour < 2) return "B";
    return me.history.length % 2 ? "O" : "I";
  }
  end(msg) {
    const won = msg.winners.includes(msg.view.seat);
    log(`${won ? "won" : "did not win"} after ${msg.turns} turns (${msg.ending})`);
  }
}

run(new Counterstrike());
