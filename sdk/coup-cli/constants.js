// koth's stand-in for coup-cli's src/constants.js, so a coup-cli bot folder that
// requires '../../src/constants.js' runs from anywhere. The adapter maps that path
// here. ALLBOTS() lists the names of the players at the current table (coup-cli
// lists its bots folder); the other helpers give fresh arrays, as coup-cli's do.
"use strict";

const table = { names: [] };

const ALLBOTS = () => table.names.slice();
const CARDS = () => ["duke", "assassin", "captain", "ambassador", "contessa"];
const DECK = (cards = CARDS()) => cards.flatMap((c) => [c, c, c]);
const ACTIONS = () => [
  "taking-1",
  "foreign-aid",
  "couping",
  "taking-3",
  "assassination",
  "stealing",
  "swapping",
];

module.exports = { ALLBOTS, CARDS, DECK, ACTIONS, kothTable: table };
