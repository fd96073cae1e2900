// A JS bot with one bug, chosen by its first argument, for `koth coup check` tests:
// the example bot otherwise. `node buggy_bot.js none` has no bug.
"use strict";
// Beside a copy of the SDK's koth_bot.js, as a contestant's bot is.
const { Bot, run, find } = require("./koth_bot");

const BUG = process.argv[2] || "none";

class Buggy extends Bot {
  constructor() {
    super();
    this.name = "buggy js " + BUG;
  }

  decide(decision, view, legal) {
    if (BUG === "console-log" && decision.kind === "block") {
      console.log("blockers:", decision.blockers); // stdout, by habit
    }
    if (BUG === "throws-on-exchange" && decision.kind === "exchange") {
      throw new TypeError("Cannot read properties of undefined (reading 'keep')");
    }
    // Exchanges whenever it may: the bug below is met early.
    return find(legal, "act", "exchange") || find(legal, "pass") || legal[0];
  }
}

run(new Buggy());
