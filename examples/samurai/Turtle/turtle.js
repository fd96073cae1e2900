// A seed-002-style entry: guards and bows in turn, and strikes an enemy that
// bowed twice running (it is not guarding) while it has honour to spend.
const args = process.argv.slice(2);
const [mine, theirs] = args.length === 6 ? args.slice(0, 2) : ["", ""];
const myHonour = Number(args[args.length - 2]);
let move = "B";
if (theirs.endsWith("BB") && myHonour >= 2) {
  move = "O";
} else if (!mine.endsWith("G") && myHonour >= 1) {
  move = "G";
}
console.log(move);
