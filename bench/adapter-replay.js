#!/usr/bin/env node
// Replays what koth sent one coup-cli adapter process (a capture, see
// bench/adapter-floor.sh) into sdk/coup-cli/adapter.js, in this process, with no
// pipe, and prints the adapter's time a line:
//
//   node bench/adapter-replay.js CAPTURE BOT_DIR lines    # JSON.parse included
//   node bench/adapter-replay.js CAPTURE BOT_DIR parsed   # lines parsed beforehand
//
// "parsed" is what the adapter would cost if reading koth's lines were free. With
// ANSWERS=1 in the environment it also prints its answers, a line each, as the
// adapter would write them to koth.
"use strict";
const fs = require("fs");
const path = require("path");

const [capture, botDir, mode = "lines"] = process.argv.slice(2);
if (!capture || !botDir || !["lines", "parsed"].includes(mode)) {
  process.stderr.write("usage: node bench/adapter-replay.js CAPTURE BOT_DIR [lines|parsed]\n");
  process.exit(2);
}
const lines = fs.readFileSync(capture, "utf8").split("\n").filter(Boolean);
const decisions = lines.filter((l) => l.startsWith('{"type":"decide"')).length;
// The adapter reads its bot folder from argv[2], as when koth runs it.
process.argv = [process.argv[0], "adapter.js", botDir];
const adapter = require(path.join(__dirname, "..", "sdk", "coup-cli", "adapter.js"));
const input = mode === "parsed" ? lines.map((l) => JSON.parse(l)) : lines;
const answer = mode === "parsed" ? adapter.onMessage : adapter.onLine;

const t0 = process.hrtime.bigint();
const show = process.env.ANSWERS === "1";
let answers = 0;
for (let i = 0; i < input.length; i++) {
  if ((i & 1023) === 0) adapter.dropLog(); // the bots' logging, which koth would read
  const a = answer(input[i]);
  if (a === null) continue;
  answers++;
  // The adapter owns process.stdout (it sends a bot's printing to the log).
  if (show) fs.writeSync(1, a + "\n");
}
const ms = Number(process.hrtime.bigint() - t0) / 1e6;
adapter.dropLog();
process.stderr.write(
  `${mode}: ${lines.length} lines (${decisions} decisions, ${answers} answers) in ${ms.toFixed(0)} ms: ` +
    `${((ms * 1000) / lines.length).toFixed(2)} µs a line, ${((ms * 1000) / decisions).toFixed(2)} µs a decision\n`,
);
