// Node: Income or Tax, never challenges, accepts everything.
const fs = require('fs');
const [hist, opp, mine, cards, ...legal] = process.argv.slice(2);
let move = legal.includes('T') && cards.includes('$') ? 'T' : null;
if (!move) for (const m of ['I\n', 'p', '\n']) if (legal.includes(m)) { move = m; break; }
if (!move) move = legal[0];
fs.appendFileSync(hist, move);
// It never exchanges, but keeps its hand if an Exchange ever succeeds for it.
if (move === '\n' && (cards.length === 3 || cards.length === 4)) {
  const last = fs.readFileSync(hist, 'utf8').slice(0, -1).split('\n').pop();
  if (last.startsWith('E') && last.length % 2 === 0) process.stdout.write(cards.slice(2));
}
