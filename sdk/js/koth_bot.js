// koth bot SDK for JavaScript (Node): one file, no dependencies (protocol version 1).
//
//   const { Bot, run } = require("./koth_bot");
//   class MyBot extends Bot {
//     decide(decision, view, legal) { return legal[0]; } // an element of legal (or an index)
//   }
//   run(MyBot); // a bot per game, up to 64 games at once (or run(new MyBot()): one at a time)
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

/**
 * A generator of doubles in [0, 1) seeded by `seed` (a number; a 64-bit seed
 * arrives from JSON as its top 53 bits): sfc32, Chris Doty-Humphrey's small fast
 * counting generator (it passes PractRand), two outputs a double. `run` makes
 * Math.random one of these per game, seeded from the seat's `seed`.
 *
 *   const rand = seededRandom(42); rand(); // the same numbers on every run
 */
function seededRandom(seed) {
  const hi = Math.floor(seed / 4294967296) >>> 0;
  const lo = seed >>> 0;
  let a = lo,
    b = hi,
    c = (lo ^ 0x9e3779b9) >>> 0,
    d = 1;
  const next = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) next();
  return () => ((next() >>> 5) * 67108864 + (next() >>> 6)) / 9007199254740992;
}

/** How many games at once a bot given as a class offers to play: 64 (koth's most),
 * or KOTH_GAMES_AT_ONCE from the environment (a bot's `env` in a tournament file). */
const GAMES = Math.max(1, Math.min(64, Number(process.env.KOTH_GAMES_AT_ONCE) || 64));

/** Answers one line from the engine for `bot`: the reply, or null. */
function answer(bot, msg, name, games) {
  for (const ev of msg.events || []) bot.event(ev);
  switch (msg.type) {
    case "hello":
      return games > 1 ? { type: "ready", name, games } : { type: "ready", name };
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
 * Serves games until the engine closes stdin. Given a class (`run(MyBot)`) or a
 * function returning a bot, it makes a bot for every game and offers to play up
 * to 64 games at once: koth then sends the requests of many games in one write and
 * this answers them in one, many times faster than a game at a time. Keep a game's
 * state on `this` (module-level state would be shared by the games under way).
 * Given an object (`run(new MyBot())`), that one bot plays one game at a time.
 *
 * Math.random is seeded at each game from the seat's own `seed` (in `start`), with
 * a generator for each game under way, so a bot that draws from it replays exactly
 * from koth's --seed, at any number of threads or games at once.
 *
 * Reads and writes synchronously: a round of requests then costs two system
 * calls instead of trips through the event loop.
 */
function run(spec) {
  const make =
    typeof spec === "function"
      ? spec.prototype && typeof spec.prototype.decide === "function"
        ? () => new spec()
        : spec
      : null;
  const single = make ? null : spec;
  const games = make ? GAMES : 1;
  const name = (make ? make() : single).name;
  const bots = new Map(); // table -> the bot of its game
  const randoms = new Map(); // table -> the Math.random of its game
  let random = seededRandom(0);
  Math.random = () => random();
  const randomFor = (msg) => {
    const t = msg.table ?? 0;
    if (msg.type === "start") randoms.set(t, seededRandom(Number(msg.seed) || 0));
    random = randoms.get(t) ?? random;
    if (msg.type === "end") randoms.delete(t);
  };
  const botFor = (msg) => {
    if (!make) return single;
    const t = msg.table ?? 0;
    let bot = bots.get(t);
    if (msg.type === "start" || bot === undefined) bots.set(t, (bot = make()));
    if (msg.type === "end") bots.delete(t);
    return bot;
  };
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
    // Every complete line read is answered, then the answers go in one write.
    let out = "";
    let i;
    while ((i = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      const msg = JSON.parse(line);
      if (msg.type !== "hello") randomFor(msg);
      const reply = answer(msg.type === "hello" ? null : botFor(msg), msg, name, games);
      if (reply !== null) out += JSON.stringify(reply) + "\n";
    }
    if (out) fs.writeSync(1, out);
  }
}

module.exports = { Bot, run, log, actionOf, targetOf, claimOf, actions, find, seen, seededRandom, CARDS };
