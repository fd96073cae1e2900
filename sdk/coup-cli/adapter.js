#!/usr/bin/env node
// Plays a coup-cli bot (seed 004: a folder with an index.js exporting a class with
// onTurn, onChallengeActionRound, onCounterAction, onCounterActionRound,
// onSwappingCards, onCardLoss) in the koth arena, unchanged:
//
//   node adapter.js path/to/bots/myBot
//
// It speaks the koth JSON-lines protocol on stdin/stdout and calls the bot as
// coup-cli does: `new Bot({ name })` for every game, each method with coup-cli's
// parameters ({ history, myCards, myCoins, otherPlayers, discardedCards, ... }), and
// the history entries coup-cli writes, in its order and shape. The folder may live
// anywhere: `require('../../src/constants.js')` gets koth's constants.js (ALLBOTS()
// lists the table's names) and a missing `../../src/helper.js` gets koth's helper.js.
// console.log and anything written to stdout go to stderr, the bot's log.
// Math.random is seeded per game from the seat's seed, so runs replay exactly.
//
// It offers to play up to 64 games at once, each on a numbered table with a fresh
// bot object and history, which koth then sends in one write per round. Each table
// has its own instance of the bot's modules, so what a bot keeps in its module
// carries from one game to the next at a table, as from one game to the next in
// coup-cli. env = { KOTH_GAMES_AT_ONCE = "1" } plays one game at a time.
//
// Players go by the names the arena gives (their tournament names; "seat0",
// "seat1", ... when it gives none), and are listed in the table's order (koth's
// `rules.table_start`), as coup-cli lists them. A hand holds the cards kept in an
// Exchange in the order the bot answered, as in coup-cli. An answer coup-cli would penalise (an unknown
// action or target, too few coins, a card the bot does not hold, a method that
// throws) is passed on as an illegal choice: under the `coupcli` rules it costs an
// influence as in coup-cli, under `standard` it forfeits. Like coup-cli, an
// over-long Exchange answer is cut to the cards the bot may keep.
"use strict";
const path = require("path");
const util = require("util");
const Module = require("module");
const fs = require("fs");
const { StringDecoder } = require("string_decoder");

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: node adapter.js path/to/bots/NAME\n");
  process.exit(2);
}

// The protocol owns stdout; the bot's printing goes to its log. As in coup-cli, a
// logged "STOP" ends the run after this game, which koth then shows. Answers go
// straight to file descriptor 1 (fs.writeSync). The log is written once a round,
// before the answers (as coup-cli keeps its log in memory: a write a line would
// cost more than many bots' whole decision).
let stopText = null;
let stopSent = false;
let logged = "";
const flushLog = () => {
  if (logged) {
    const text = logged;
    logged = "";
    fs.writeSync(2, text);
  }
};
process.on("exit", flushLog);
const toLog = (...args) => {
  const text = util.format(...args);
  if (!stopSent && stopText === null && text.includes("STOP")) stopText = text;
  logged += text + "\n";
};
console.log = toLog;
console.info = toLog;
console.debug = toLog;
process.stdout.write = (chunk, encoding, cb) => {
  logged += typeof chunk === "string" ? chunk : Buffer.from(chunk).toString();
  if (typeof encoding === "function") encoding();
  else if (typeof cb === "function") cb();
  return true;
};

// coup-cli's shared files, wherever the bot folder is.
const constants = require("./constants.js");
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (/(^|\/)src\/constants(\.js)?$/.test(request)) return path.join(__dirname, "constants.js");
  try {
    return resolve.call(this, request, ...rest);
  } catch (e) {
    if (/(^|\/)src\/helper(\.js)?$/.test(request)) return path.join(__dirname, "helper.js");
    throw e;
  }
};

// Math.random is seeded from the seat's own seed (`start.seed`) at each game, and
// each game under way draws from its own generator, so a table of coup-cli bots
// replays exactly from koth's --seed, at any number of threads or games at once
// (coup-cli's Math.random is unseeded). The seed is the seat's own: it says nothing
// about the deal or the other seats (docs/fair-play.md). The generator is the JS
// SDK's seededRandom (sfc32, two outputs a double), copied: the adapter runs with
// only its own folder in sight. A test keeps the two copies the same.
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

// A bot's module draws from a fresh seededRandom(0) as it loads (each table's
// instance alike), never from a game's generator.
let random = seededRandom(0);
Math.random = () => random();

const botDir = path.resolve(dir);
const botFile = path.join(botDir, "index.js");
// Each table (a sequence of games, as one coup-cli process plays them) loads its own
// instance of the bot's modules, so state a bot keeps in its module lives on from
// one game to the next at that table and is never shared between games under way.
const classes = new Map([[0, require(botFile)]]);
function botClass(t) {
  let c = classes.get(t);
  if (c === undefined) {
    for (const k of Object.keys(require.cache)) if (k.startsWith(botDir + path.sep)) delete require.cache[k];
    random = seededRandom(0);
    classes.set(t, (c = require(botFile)));
  }
  return c;
}
const botName = path.basename(path.resolve(dir));

// koth action <-> coup-cli action, and the card each claims.
const TO_CLI = {
  income: "taking-1",
  foreign_aid: "foreign-aid",
  coup: "couping",
  tax: "taking-3",
  assassinate: "assassination",
  steal: "stealing",
  exchange: "swapping",
};
const FROM_CLI = Object.fromEntries(Object.entries(TO_CLI).map(([k, v]) => [v, k]));
const TARGETED = ["couping", "assassination", "stealing"];

// The game being answered: koth may play several at once on this process (each on a
// numbered table), so each game's state is an object of its own, put in place while
// one of its lines is read.
let g = null;
const tables = new Map();

const name = (seat) => (seat === undefined || seat === null ? undefined : g.names[seat] ?? `seat${seat}`);
const seatOf = (n) => {
  const i = g.names.indexOf(n);
  if (i >= 0) return i;
  return typeof n === "string" && /^seat\d+$/.test(n) ? Number(n.slice(4)) : null;
};
const actName = (a) => (typeof a === "string" ? a : Object.keys(a)[0]);
const actTarget = (a) => (typeof a === "string" ? undefined : Object.values(a)[0]);

// coup-cli's entry for a challenge of the claim under way.
const challengeEntry = (lying) => ({
  type: g.claim.kind,
  challenger: name(g.claim.challenger),
  challengee: name(g.claim.challengee),
  action: g.claim.action,
  lying,
});

function record(ev) {
  const history = g.history;
  switch (ev.event) {
    case "act": {
      g.turnOpen = false;
      const action = TO_CLI[actName(ev.action)];
      g.claim = { action, actor: ev.actor, target: actTarget(ev.action), kind: "challenge-round" };
      const entry = { type: "action", action, from: name(ev.actor) };
      if (TARGETED.includes(action)) entry.to = name(g.claim.target);
      history.push(entry);
      break;
    }
    case "block":
      if (g.claim) {
        history.push({
          type: "counter-action",
          action: g.claim.action,
          from: name(g.claim.actor),
          to: name(g.claim.target),
          counter: ev.card,
          counterer: name(ev.blocker),
        });
        g.claim = { ...g.claim, kind: "counter-round", blocker: ev.blocker };
      }
      break;
    case "challenge":
      if (g.claim) g.claim = { ...g.claim, challenger: ev.challenger, challengee: ev.claimant };
      break;
    case "reveal":
      if (g.claim) {
        history.push(challengeEntry(false));
        history.push({ type: "penalty", from: name(g.claim.challenger) });
        g.swapAfterLoss = {
          loser: g.claim.challenger,
          entry: { type: "unsuccessful-challenge", action: "swap-1", from: name(ev.player), card: ev.card },
        };
      }
      break;
    case "caught_bluffing":
      if (g.claim) {
        history.push(challengeEntry(true));
        history.push({ type: "penalty", player: name(ev.player) });
      }
      break;
    case "penalty":
      if (ev.action !== undefined) {
        // An action refused on its turn (a Coup without the coins...): coup-cli
        // writes the action, then the loss.
        const action = TO_CLI[actName(ev.action)];
        const entry = { type: "action", action, from: name(ev.player) };
        if (TARGETED.includes(action)) entry.to = name(actTarget(ev.action));
        history.push(entry);
      } else if (g.turnOpen) {
        // An answer to onTurn that is no action (coup-cli's "invalid action").
        history.push({ type: "penalty", from: name(ev.player) });
      }
      // A bad counter or card: coup-cli writes only the loss.
      g.turnOpen = false;
      break;
    case "lose_influence":
      history.push({ type: "lost-card", player: name(ev.player), lost: ev.card });
      g.discarded.push(ev.card);
      if (g.swapAfterLoss && g.swapAfterLoss.loser === ev.player) {
        history.push(g.swapAfterLoss.entry);
        g.swapAfterLoss = null;
      }
      break;
    case "turn":
      g.swapAfterLoss = null;
      g.turnOpen = true;
      break;
    default:
      break;
  }
}

function state(view, extra) {
  // coup-cli lists the players in its table order (which koth sends as
  // rules.table_start), not from whoever moved first.
  const otherPlayers = [];
  for (const s of g.order) {
    if (s !== view.seat && view.alive[s]) otherPlayers.push({ name: name(s), coins: view.coins[s], cards: view.influence[s] });
  }
  return {
    history: g.history.slice(),
    myCards: view.cards.slice(),
    myCoins: view.coins[view.seat],
    otherPlayers,
    discardedCards: g.discarded.slice(),
    ...extra,
  };
}

// A well-formed choice that is never legal: the rules then penalise or forfeit it.
const refused = (why) => {
  process.stderr.write(`coup-cli bot ${botName}: ${why}\n`);
  return { act: { coup: g.players } };
};

function call(method, params) {
  try {
    return { value: g.bot[method](params) };
  } catch (e) {
    process.stderr.write(`coup-cli bot ${botName} threw in ${method}: ${(e && e.stack) || e}\n`);
    return { threw: true };
  }
}

function decide(d, view) {
  const action = d.action !== undefined ? TO_CLI[actName(d.action)] : undefined;
  const toWhom = d.action !== undefined ? name(actTarget(d.action)) : undefined;
  switch (d.kind) {
    case "action": {
      const r = call("onTurn", state(view, {}));
      if (r.threw) return refused("onTurn threw");
      const answer = r.value || {};
      const act = FROM_CLI[answer.action];
      if (!act) return refused(`onTurn answered an unknown action ${JSON.stringify(answer.action)}`);
      if (!TARGETED.includes(answer.action)) return { act };
      const target = seatOf(answer.against);
      if (target === null) return refused(`onTurn named an unknown player ${JSON.stringify(answer.against)}`);
      return { act: { [act]: target } };
    }
    case "challenge_action": {
      const r = call("onChallengeActionRound", state(view, { action, byWhom: name(d.actor), toWhom, counterer: undefined, card: d.claim }));
      if (r.threw) return refused("onChallengeActionRound threw");
      return r.value ? "challenge" : "pass";
    }
    case "block": {
      const r = call("onCounterAction", state(view, { action, byWhom: name(d.actor), toWhom }));
      if (r.threw) return refused("onCounterAction threw");
      if (!r.value) return "pass";
      if (!(d.blockers || []).includes(r.value)) return refused(`onCounterAction answered ${JSON.stringify(r.value)}, which cannot block ${action}`);
      return { block: r.value };
    }
    case "challenge_block": {
      const r = call(
        "onCounterActionRound",
        state(view, { action, byWhom: name(d.actor), toWhom, counterer: name(d.blocker), card: d.card }),
      );
      if (r.threw) return refused("onCounterActionRound threw");
      return r.value ? "challenge" : "pass";
    }
    case "exchange": {
      const drawn = view.drawn || [];
      const r = call("onSwappingCards", state(view, { newCards: drawn.slice() }));
      if (r.threw) return refused("onSwappingCards threw");
      // coup-cli keeps the answered cards found among hand and draw, at most as many
      // as the hand, in the order answered (its bots lose "their first card").
      const pool = view.cards.concat(drawn);
      return { keep: (Array.isArray(r.value) ? r.value : []).filter((c) => pool.includes(c)).slice(0, view.cards.length) };
    }
    case "lose_influence": {
      const r = call("onCardLoss", state(view, {}));
      if (r.threw || !view.cards.includes(r.value)) return refused(`onCardLoss answered ${JSON.stringify(r.value)}, not one of its cards`);
      return { lose: r.value };
    }
    default:
      return "pass";
  }
}

// KOTH_GAMES_AT_ONCE=1 (a bot's `env`) asks for one game at a time.
const GAMES = Math.max(1, Math.min(64, Number(process.env.KOTH_GAMES_AT_ONCE) || 64));

function begin(msg) {
  const players = msg.players;
  const names = Array.isArray(msg.names) && msg.names.length > 0 ? msg.names : [];
  if (names.length === 0) for (let s = 0; s < players; s++) names.push(`seat${s}`);
  const start = msg.rules && Number.isInteger(msg.rules.table_start) ? msg.rules.table_start : 0;
  const order = [];
  for (let k = 0; k < players; k++) order.push((start + k) % players);
  g = {
    names,
    botNames: names.slice(), // what ALLBOTS() returns: a copy a bot may not spoil
    order,
    players,
    history: [],
    discarded: [],
    claim: null, // the action under way: { action, actor, target, kind, blocker, challenger, challengee }
    swapAfterLoss: null, // coup-cli writes 'unsuccessful-challenge' after the challenger's lost card
    turnOpen: true, // a turn began and no action is declared yet
    bot: null,
    random: seededRandom(Number(msg.seed) || 0),
  };
  constants.kothTable.names = g.botNames;
  const Bot = botClass(msg.table ?? 0);
  random = g.random;
  g.bot = new Bot({ name: names[msg.seat] ?? botName });
  tables.set(msg.table ?? 0, g);
}

/** Answers one line from koth: the reply (a JSON line without its newline), or null. */
const onLine = (line) => onMessage(JSON.parse(line));

/** Answers one message from koth, parsed. */
function onMessage(msg) {
  const table = msg.table ?? 0;
  if (msg.type === "hello") {
    // It works out each answer from coup-cli's rules, so it needs no legal lists
    // (a tenth of the bytes it would parse).
    const ready = { type: "ready", name: botName, legal: false };
    if (GAMES > 1) ready.games = GAMES;
    return JSON.stringify(ready);
  }
  if (msg.type === "start") begin(msg);
  else {
    g = tables.get(table);
    if (!g) {
      process.stderr.write(`coup-cli adapter: a ${msg.type} line for table ${table}, where no game was started\n`);
      process.exit(1);
    }
    constants.kothTable.names = g.botNames;
    random = g.random;
  }
  for (const ev of msg.events || []) record(ev);
  if (msg.type === "end") {
    tables.delete(table);
    return null;
  }
  if (msg.type !== "decide") return null;
  let reply = `{"choice":${JSON.stringify(decide(msg.decision, msg.view))},"id":${msg.id}`;
  if (stopText !== null && !stopSent) {
    reply += `,"stop":${JSON.stringify(stopText)}`; // asked once: the run ends after this game
    stopSent = true;
  }
  return reply + "}";
}

// Synchronous reads and writes: a round of requests costs two system calls, no
// event-loop trips (coup-cli bots answer synchronously too).
function serve() {
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
      const reply = onLine(line);
      if (reply !== null) out += reply + "\n";
    }
    flushLog();
    if (out) fs.writeSync(1, out);
  }
}

// Run by node, it serves koth on stdin/stdout; required (bench/adapter-replay.js), it
// hands over its line handlers to replay a captured input.
if (require.main === module) serve();
else module.exports = { onLine, onMessage, dropLog: () => (logged = "") };
