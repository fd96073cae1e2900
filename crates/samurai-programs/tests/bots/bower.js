// The built-in bower, in JavaScript: bows to the Sword of the Gods, then strikes with
// the counter of the enemy's last strike (a quick draw otherwise).
const args = process.argv.slice(2);
const [mine, theirs] = args.length === 6 ? args.slice(0, 2) : ["", ""];
const honour = Number(args[args.length - 2]);
const counter = { I: "P", P: "O", O: "I" };
if (honour >= 7) {
  process.stdout.write((counter[theirs.slice(-1)] || "I") + "\n");
} else {
  process.stdout.write("Bow\n");
}
