// koth bot SDK for JavaScript (Node): one file, no dependencies (protocol version 1).
//
//   const { Bot, run } = require("./koth_bot");
//   class MyBot extends Bot {
//     decide(decision, view, legal) { return legal[0]; } // an element of legal (or an index)
//   }
//   run(new MyBot());
//
// The engine sends one JSON object per line on stdin; the bot answers `hello` with
// {"type":"ready"} and each `decide` with {"choice": <element of legal>}. Debugging
// output goes to stderr (the `log` helper), never to stdout. Samurai choices are the
// letters "W" "B" "G" "I" "P" "O" (samurai_bot.js). this.stop("why") in any hook
// asks koth to stop the run after this game and show it (coup-cli's "STOP").
"use strict";
const fs = require("fs");
const { StringDecoder } = require("string_decoder");

const CARDS = ["ambassador", "assassin", "captain", "contessa", "duke"];
const CLAIMS = { tax: "duke", assassinate: "assassin", steal: "captain", exchange: "ambassador" };

const log = (...args) => process.stderr.write(args.join(" ") + "\n");

/** For {"act": X}: the action's name ("income", "steal"...), else null. */
function actionOf(choice) {
  if (choice && typeof choice === "object" && "act" in choice) {
    const a = choice.act;
    return typeof a === "string" ? a : Object.keys(a)[0];
  }
  return null;
}

/** For a targeted action {"act": {"coup": 2}}: the target seat, else null. */
function targetOf(choice) {
  if (choice && typeof choice === "object" && choice.act && typeof choice.act === "object") {
    return Object.values(choice.act)[0];
  }
  return null;
}

/** The card an action claims ("tax" -> "duke"), or null. */
function claimOf(action) {
  if (action && typeof action === "object") action = Object.keys(action)[0];
  return CLAIMS[action] || null;
}

/** The {"act": ...} choices in legal, optionally only those of one action. */
function actions(legal, name) {
  return legal.filter((c) => actionOf(c) !== null && (name === undefined || actionOf(c) === name));
}

/** The first choice of a kind ("pass", "challenge", "block", "keep", "lose", "act"),
 * with an optional value (find(legal, "block", "duke")), else null. */
function find(legal, kind, value) {
  for (const c of legal) {
    if (c === kind && value === undefined) return c;
    if (c && typeof c === "object" && kind in c && (value === undefined || JSON.stringify(c[kind]) === JSON.stringify(value))) return c;
  }
  return null;
}

/** Copies of `card` I can account for: in my hand or face up anywhere (3 exist). */
function seen(view, card) {
  const count = (xs) => xs.filter((x) => x === card).length;
  return count(view.cards) + view.revealed.reduce((n, r) => n + count(r), 0);
}

class Bot {
  constructor() {
    this.name = "js bot";
    this._stop = null;
  }
  /** Asks koth to stop the run after this game and show it (a debugging aid). */
  stop(why = "STOP") {
    this._stop = String(why);
  }
  start(_msg) {}
  event(_ev) {}
  decide(_decision, _view, legal) {
    return legal[0];
  }
  end(_msg) {}
}

/** Answers one line from the engine: the reply line, or null. */
function answer(bot, line) {
  const msg = JSON.parse(line);
  for (const ev of msg.events || []) bot.event(ev);
  switch (msg.type) {
    case "hello":
      return { type: "ready", name: bot.name };
    case "start":
      bot.start(msg);
      return null;
    case "decide": {
      const c = bot.decide(msg.decision, msg.view, msg.legal);
      const reply = typeof c === "number" ? { index: c } : { choice: c };
      reply.id = msg.id;
      if (bot._stop != null) {
        reply.stop = bot._stop;
        bot._stop = null;
      }
      return reply;
    }
    case "end":
      bot.end(msg);
      return null;
    default:
      return null;
  }
}

/**
 * Serves games until the engine closes stdin. Reads and writes synchronously:
 * a decision then costs two system calls instead of trips through the event loop.
 */
function run(bot) {
  const decoder = new StringDecoder("utf8");
  const buf = Buffer.alloc(1 << 16);
  let pending = "";
  for (;;) {
    let n;
    try {
      n = fs.readSync(0, buf, 0, buf.length, null);
    } catch (e) {
      if (e.code === "EAGAIN") {
        // stdin made non-blocking by someone else: wait a millisecond and retry.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
        continue;
      }
      if (e.code === "EOF") break;
      throw e;
    }
    if (n === 0) break;
    pending += decoder.write(buf.subarray(0, n));
    let i;
    while ((i = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      const reply = answer(bot, line);
      if (reply !== null) fs.writeSync(1, JSON.stringify(reply) + "\n");
    }
  }
}

module.exports = { Bot, run, log, actionOf, targetOf, claimOf, actions, find, seen, CARDS };
