// Node: Income or Tax, never challenges, accepts everything.
const fs = require('fs');
const [hist, opp, mine, cards, ...legal] = process.argv.slice(2);
let move = legal.includes('T') && cards.includes('$') ? 'T' : null;
if (!move) for (const m of ['I\n', 'p', '\n']) if (legal.includes(m)) { move = m; break; }
if (!move) move = legal[0];
fs.appendFileSync(hist, move);
