// A JS SDK bot that leaves every choice to Math.random (for koth's tests: its games
// replay only if the SDK seeds Math.random per game from the seat's seed).
const { Bot, run } = require("./koth_bot");

class Dice extends Bot {
  constructor() {
    super();
    this.name = "dice";
  }
  decide(_decision, _view, legal) {
    return Math.floor(Math.random() * legal.length);
  }
}

run(Dice);
