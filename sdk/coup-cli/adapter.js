#!/usr/bin/env node
// Plays a coup-cli bot (github.com/QuarionIC/coup-cli: a folder with an index.js
// exporting a class with onTurn, onChallengeActionRound, onCounterAction,
// onCounterActionRound, onSwappingCards, onCardLoss) in the koth arena.
//
//   node adapter.js path/to/bots/myBot
//
// Speaks the koth JSON-lines protocol on stdin/stdout and translates each decision
// into the coup-cli call and parameters ({ history, myCards, myCoins, otherPlayers,
// discardedCards, ... }), and the answer back into a koth choice. Players go by the
// names the arena gives (their tournament names; "seat0", "seat1", ... when it gives
// none), so a bot can target a rival by name. A fresh bot instance plays each game. An answer that is not
// legal is passed on as it is, and the engine forfeits the bot with the reason.
"use strict";
const path = require("path");
const readline = require("readline");

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: node adapter.js path/to/bots/NAME\n");
  process.exit(2);
}
const BotClass = require(path.resolve(dir, "index.js"));
const botName = path.basename(path.resolve(dir));

// koth action <-> coup-cli action
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
let names = [];
const name = (seat) => (seat === undefined || seat === null ? undefined : names[seat] ?? `seat${seat}`);
const seatOf = (n) => {
  const i = names.indexOf(n);
  if (i >= 0) return i;
  return typeof n === "string" && /^seat\d+$/.test(n) ? Number(n.slice(4)) : null;
};
const actName = (a) => (typeof a === "string" ? a : Object.keys(a)[0]);
const actTarget = (a) => (typeof a === "string" ? undefined : Object.values(a)[0]);

let bot = null;
let history = [];
let lastClaim = null; // { kind: "action" | "block", action, actor, target }

function record(ev) {
  switch (ev.event) {
    case "act":
      lastClaim = { kind: "action", action: TO_CLI[actName(ev.action)], actor: ev.actor, target: actTarget(ev.action) };
      history.push({ type: "action", action: lastClaim.action, from: name(ev.actor), to: name(lastClaim.target) });
      break;
    case "block":
      if (lastClaim) {
        history.push({
          type: "counter-action",
          action: lastClaim.action,
          from: name(lastClaim.actor),
          to: name(lastClaim.target),
          counter: ev.card,
          counterer: name(ev.blocker),
        });
        lastClaim = { ...lastClaim, kind: "block", blocker: ev.blocker };
      }
      break;
    case "challenge":
      lastClaim = lastClaim && { ...lastClaim, challenger: ev.challenger, challengee: ev.claimant };
      break;
    case "reveal":
    case "caught_bluffing":
      if (lastClaim) {
        history.push({
          type: lastClaim.kind === "block" ? "counter-round" : "challenge-round",
          challenger: name(lastClaim.challenger),
          challengee: name(lastClaim.challengee),
          player: name(ev.player),
          action: lastClaim.action,
          lying: ev.event === "caught_bluffing",
        });
      }
      break;
    case "lose_influence":
      history.push({ type: "lost-card", player: name(ev.player), lost: ev.card });
      break;
    default:
      break;
  }
}

function params(view, extra) {
  const otherPlayers = [];
  for (let s = 0; s < view.players; s++) {
    if (s !== view.seat && view.alive[s]) otherPlayers.push({ name: name(s), coins: view.coins[s], cards: view.influence[s] });
  }
  return {
    history: history.slice(),
    myCards: view.cards.slice(),
    myCoins: view.coins[view.seat],
    otherPlayers,
    discardedCards: [].concat(...view.revealed),
    ...extra,
  };
}

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const sortedCards = (cs) => cs.slice().sort();

function decide(d, view, legal) {
  const action = d.action !== undefined ? TO_CLI[actName(d.action)] : undefined;
  const toWhom = d.action !== undefined ? name(actTarget(d.action)) : undefined;
  switch (d.kind) {
    case "action": {
      const r = bot.onTurn(params(view, {})) || {};
      const act = FROM_CLI[r.action];
      const target = seatOf(r.against);
      const wanted = ["coup", "assassinate", "steal"].includes(act) ? { act: { [act]: target } } : { act };
      return legal.find((c) => same(c, wanted)) || wanted;
    }
    case "challenge_action":
      return bot.onChallengeActionRound(params(view, { action, byWhom: name(d.actor), toWhom })) ? "challenge" : "pass";
    case "block": {
      const card = bot.onCounterAction(params(view, { action, byWhom: name(d.actor), toWhom }));
      return card ? { block: card } : "pass";
    }
    case "challenge_block":
      return bot.onCounterActionRound(
        params(view, { action, byWhom: name(d.actor), toWhom, card: d.card, counterer: name(d.blocker) }),
      )
        ? "challenge"
        : "pass";
    case "exchange": {
      const keep = bot.onSwappingCards(params(view, { newCards: view.drawn || [] })) || [];
      const wanted = sortedCards(keep);
      return legal.find((c) => c.keep && same(sortedCards(c.keep), wanted)) || { keep };
    }
    case "lose_influence":
      return { lose: bot.onCardLoss(params(view, {})) };
    default:
      return legal[0];
  }
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "start") {
    names = Array.isArray(msg.names) ? msg.names : [];
    bot = new BotClass();
    history = [];
    lastClaim = null;
  }
  for (const ev of msg.events || []) record(ev);
  let reply;
  if (msg.type === "hello") reply = { type: "ready", name: botName };
  else if (msg.type === "decide") reply = { choice: decide(msg.decision, msg.view, msg.legal), id: msg.id };
  else return;
  process.stdout.write(JSON.stringify(reply) + "\n");
});
