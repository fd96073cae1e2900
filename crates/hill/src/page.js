"use strict";
// An exported page (koth hill export) reads files beside it, not the API, and
// takes nothing: no live board, no form, no actions.
const STATIC = document.documentElement.dataset.static === "1";
const url = (p) => (STATIC ? "." + p + ".json" : p);
const roundUrl = (id) => `rounds/${id}/report.html`;
// Everything a bot or an entrant's author chose (names, stderr, reasons) goes in
// as text: never as markup.
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    // Handlers and styles through the DOM, never as attributes: the page's
    // content security policy allows no inline script or style.
    if (k === "class") e.className = v;
    else if (k === "style") e.style.cssText = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return e;
}
const fmt = (x) => (x >= 0 ? "+" : "") + x.toFixed(3);
let range = [-1, 1];
let lastBoard = null;
function drawBoard(b) {
  lastBoard = b;
  document.getElementById("facts").textContent =
    `${b.game}, ${b.rules} rules, ${b.table} seats · ${b.games.toLocaleString()} games stored · ${b.counted.toLocaleString()} of the current field`;
  const lo = Math.min(-0.2, ...b.rows.map(r => r.low)), hi = Math.max(0.2, ...b.rows.map(r => r.high));
  range = [lo, hi];
  const x = (v) => (100 * (v - lo) / (hi - lo || 1)).toFixed(1) + "%";
  const body = document.querySelector("#board tbody");
  body.replaceChildren(...b.rows.map(r => {
    const bar = el("span", { class: "bar" }, el("span", { style: `left:${x(r.low)};right:calc(100% - ${x(r.high)})` }), el("i", { style: `left:${x(r.strength)}` }));
    return el("tr", { class: "row" + (r.status === "paused" ? " paused" : ""), "data-name": r.name, onclick: () => showEntrant(r.name) },
      el("td", { title: r.why || "" }, r.rank, r.settled ? el("span", { class: "settled", title: r.why || "settled" }, " ✓") : ""),
      el("td", {}, r.name, r.status === "paused" ? " (paused)" : ""),
      el("td", {}, "v" + r.version, r.games < (b.candidate_games || 0)
        ? el("span", { class: "candidate-tag", title: "a new version first plays this many games against the field" }, ` candidate: ${r.games} of ${b.candidate_games} games`) : ""),
      el("td", {}, r.games.toLocaleString()),
      el("td", { class: "mean" }, r.games ? fmt(r.strength) : "–"),
      el("td", {}, r.games ? `${fmt(r.low)} … ${fmt(r.high)}` : ""), el("td", {}, bar),
      el("td", {}, r.games ? fmt(r.mean) : ""),
      el("td", {}, r.wins), el("td", {}, r.draws), el("td", {}, r.losses), el("td", {}, r.forfeits),
      el("td", {}, r.rating.toFixed(1)));
  }));
}
// The token typed in the form, sent so that an author sees its own bots' stderr.
function auth() {
  const t = document.querySelector("#upload [name=token]").value.trim();
  return t ? { headers: { Authorization: "Bearer " + t } } : {};
}
// What an answer says: a refusal's reason (the API answers them as JSON), or its text.
async function said(r) {
  const text = await r.text();
  if (!r.ok && (r.headers.get("content-type") || "").startsWith("application/json")) {
    try { return JSON.parse(text).error; } catch (e) { /* as text */ }
  }
  return text;
}
async function getJson(path, withToken) {
  const r = await fetch(url(path), withToken && !STATIC ? auth() : {});
  if (!r.ok) throw new Error(STATIC ? "not in this export" : await said(r));
  return r.json();
}
const when = (t) => t.replace("T", " ").replace(/:00Z$/, " UTC").replace(/Z$/, " UTC");
// The contest: its title, texts, dates with a countdown, announcements and result.
let contest = null;
async function drawContest() {
  contest = await getJson("/api/contest");
  const c = contest;
  document.getElementById("title").textContent = c.title;
  document.title = c.title;
  const box = document.getElementById("contest");
  // The texts are the organiser's Markdown, made HTML and cleaned by the server (no script, handler or style survives).
  document.getElementById("description").innerHTML = c.description_html;
  document.getElementById("rules").innerHTML = c.rules_html;
  document.getElementById("rules-box").hidden = !c.rules_html;
  const dates = [["uploads open", c.start], ["submission deadline", c.deadline], ["ends", c.end]].filter(d => d[1]);
  document.getElementById("dates").textContent = dates.map(d => `${d[0]}: ${when(d[1])}`).join(" · ")
    + (c.beacon_source ? ` · the final round's seed comes from ${c.beacon_source}` : "");
  document.getElementById("announcements").replaceChildren(...c.announcements.map(a => {
    const li = el("li", { "data-id": String(a.id) }, el("span", { class: "when" }, when(a.at)));
    const body = el("span", {});
    body.innerHTML = a.html.replace(/^<p>|<\/p>\s*$/g, "");
    li.append(body);
    return li;
  }));
  const fin = document.getElementById("final");
  fin.hidden = !c.final_round;
  if (c.final_round) {
    const top = c.final_round.standings[0];
    fin.replaceChildren(el("b", {}, "Result: "), top ? `${top.name} won the final round` : "the final round was played", " · ",
      el("a", { href: roundUrl(c.final_round.id), id: "final-link" }, "its report"),
      ` · beacon "${c.final_round.beacon}" (read as "${c.final_round.beacon_normal}")`);
  }
  for (const v of c.voided_finals || []) {
    fin.hidden = false;
    fin.append(el("p", { class: "voided" }, `Round ${v.round} was a final round, voided by the organiser at ${when(v.at)}: ${v.reason} `,
      el("a", { href: roundUrl(v.round) }, "its report")));
  }
  box.hidden = !(c.description_html || c.rules_html || dates.length || c.announcements.length || c.final_round || (c.voided_finals || []).length);
  tick();
}
// The phase in the header, counting down to the next date.
function tick() {
  if (!contest) return;
  const c = contest, now = Date.now();
  const left = (t) => {
    let s = Math.max(0, Math.round((Date.parse(t) - now) / 1000));
    const d = Math.floor(s / 86400); s -= d * 86400;
    const h = Math.floor(s / 3600); s -= h * 3600;
    const m = Math.floor(s / 60); s -= m * 60;
    return (d ? `${d} d ` : "") + `${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}`;
  };
  const p = document.getElementById("phase");
  let text = "", phase = c.phase;
  if (c.end && now >= Date.parse(c.end)) phase = "ended";
  else if (c.deadline && now >= Date.parse(c.deadline)) phase = "frozen";
  else if (c.start && now < Date.parse(c.start)) phase = "soon";
  else phase = "open";
  if (phase === "soon") text = `uploads open in ${left(c.start)}`;
  else if (phase === "open") text = c.deadline ? `deadline in ${left(c.deadline)}` : "";
  else if (phase === "frozen") text = "submissions closed: the field is frozen" + (c.end ? `; ends in ${left(c.end)}` : "");
  else text = "the contest has ended";
  p.textContent = text;
  p.dataset.phase = phase;
  p.className = "facts" + (phase === "open" ? "" : " closed");
  document.querySelector("#upload button").disabled = phase !== "open";
}
setInterval(tick, 1000);
// Its rank and what its ✓ rests on: the gap to each neighbour, measured from
// the same games (so it can leave out 0 while the two intervals overlap).
function rankWhy(name) {
  const r = lastBoard && lastBoard.rows.find(x => x.name === name);
  if (!r || !r.games) return "";
  const gap = (g, word) => g ? el("li", {}, `${fmt(g.difference)} ${word} ${g.name}: interval ${fmt(g.low)} … ${fmt(g.high)} at the hill's boundary (${g.z.toFixed(1)} standard errors), ${g.apart ? "leaves out 0: apart" : "holds 0: not apart yet"}`) : "";
  return el("div", { id: "rank-why" },
    el("p", {}, `Rank ${r.rank}${r.settled ? " ✓ settled" : ", not settled"} · strength ${fmt(r.strength)} (${fmt(r.low)} … ${fmt(r.high)}) · ${r.deals.toLocaleString()} deals`
      + (r.deals < (lastBoard.min_settled_deals || 0) ? ` (a ✓ needs ${lastBoard.min_settled_deals})` : "")),
    el("ul", {}, gap(r.above, "against"), gap(r.below, "over")),
    el("p", { class: "mute" }, "A ✓ means the differences to both neighbours leave out 0 at a boundary that two equal bots cross in at most 5% of hills, however often the hill looks."));
}
async function showEntrant(name) {
  const e = await getJson("/api/entrant/" + encodeURIComponent(name), true);
  const s = document.getElementById("entrant");
  s.hidden = false;
  history.replaceState(null, "", "#entrant=" + encodeURIComponent(e.name));
  const at = (t) => new Date(t * 1000).toISOString().slice(0, 16).replace("T", " ");
  const current = e.versions.find(v => v.id === e.version) || e.versions[e.versions.length - 1] || {};
  const spec = current.spec || {};
  const command = spec.builtin ? `built-in ${spec.builtin}` : (spec.command || []).join(" ");
  // Forfeits grouped by reason, each with links to its games.
  const groups = new Map();
  for (const f of e.forfeits) {
    if (!groups.has(f.reason)) groups.set(f.reason, []);
    groups.get(f.reason).push(f);
  }
  const gameLink = (b, i, label) => el("a", { class: "game", href: `#game=${b}/${i}`, onclick: (ev) => { ev.preventDefault(); showGame(b, i); } }, label || `block ${b} game ${i}`);
  s.replaceChildren(
    el("h2", {}, `${e.name} (${e.status})`),
    el("p", { id: "entrant-facts" }, `entered by ${e.author || "the organiser"} · runs ${command} · version ${current.number || "?"} of ${e.versions.length} · `,
      el("a", { href: "#entrant=" + encodeURIComponent(e.name), title: "this entrant's address on the page" }, "link")),
    rankWhy(e.name),
    e.candidate ? el("p", { class: "candidate", id: "candidate" }, `candidate: ${e.candidate.games} of ${e.candidate.of} games against the field played; until then the board ranks it on what it has`) : "",
    STATIC ? "" : el("p", {}, ...["pause", "resume", "remove"].map(a => el("button", { type: "button", "data-action": a, onclick: () => act(e.name, a) }, a)),
      " ", el("span", { class: "mute" }, "with the token in the form below"), " ", el("span", { id: "act-result" })),
    el("p", {}, "Versions: ", ...e.versions.map(v => el("span", {}, `v${v.number} (${at(v.at)})  `))),
    el("p", {}, "Events: ", e.events.map(ev => `${ev.kind} (${at(ev.at)})`).join(", ")),
    el("h2", {}, "Results per version (every game, whoever it met)"),
    el("table", { id: "versions" }, el("tr", {}, el("th", {}, "version"), el("th", {}, "games"), el("th", {}, "mean"), el("th", {}, "forfeits")),
      ...e.results.map(r => el("tr", {}, el("td", {}, "v" + r.version), el("td", {}, r.games), el("td", {}, r.games ? fmt(r.mean) : "–"), el("td", {}, r.forfeits)))),
    el("h2", {}, `Its latest ${e.recent.length} games`),
    el("table", { id: "recent" }, ...e.recent.map(g => el("tr", {},
      el("td", {}, gameLink(g.block, g.index)),
      el("td", {}, g.seats.map((n, i) => `${n}: ${(g.scores[i] ?? 0).toFixed(2)}`).join(" · "))))),
    STATIC ? "" : el("p", {}, el("a", { id: "download-games", href: "#", onclick: (ev) => { ev.preventDefault(); download(`/api/entrant/${encodeURIComponent(e.name)}/games`, `${e.name}-games.jsonl`); } }, "download its games (JSON lines)"),
      e.stderr_shown ? " with what it wrote to stderr" : ""),
    el("h2", { id: "forfeits-head" }, `Forfeits: ${e.forfeits.length}${e.forfeits.length >= 100 ? " (the latest)" : ""} in its latest ${e.scanned.toLocaleString()} games; ${e.forfeits_in_all.toLocaleString()} in all ${e.games.toLocaleString()} games of this version`),
    STATIC ? "" : e.stderr_shown
      ? el("p", {}, el("button", { type: "button", id: "show-log", onclick: () => showLog(e.name) }, "its stderr logs"), " ", el("span", { class: "mute" }, "(you are its author)"))
      : el("p", { class: "mute" }, "What a bot wrote to stderr is shown to its author: type your token in the form below and open the entrant again."),
    el("pre", { id: "entrant-log", hidden: "" }),
    ...[...groups].map(([reason, fs]) => el("div", { class: "forfeit-group" },
      el("p", { class: "forfeit" }, `${fs.length} × ${reason} `, ...fs.slice(0, 20).flatMap(f => [" ", gameLink(f.block, f.index, `${f.block}/${f.index}`)])),
      fs[0].stderr ? el("pre", { class: "stderr" }, `its stderr in game ${fs[0].block}/${fs[0].index}:\n${fs[0].stderr}`) : "")));
  s.scrollIntoView({ behavior: "smooth" });
}
// Saves what `url` answers (with the token, if typed) as a file.
async function download(url, name) {
  const r = await fetch(url, auth());
  if (!r.ok) { alert(await said(r)); return; }
  const a = el("a", { href: URL.createObjectURL(await r.blob()), download: name });
  document.body.append(a);
  a.click();
  a.remove();
}
// An author's own bot's stderr logs (its current version's).
async function showLog(name) {
  const r = await fetch(`/api/entrant/${encodeURIComponent(name)}/log`, auth());
  const out = document.getElementById("entrant-log");
  out.hidden = false;
  out.textContent = (r.ok ? "" : `refused (${r.status}): `) + await said(r);
}
// Pause, resume or remove an entrant with the token typed in the form.
async function act(name, action) {
  const token = document.querySelector("#upload [name=token]").value;
  const r = await fetch(`/api/entrant/${encodeURIComponent(name)}/${action}`, {
    method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded",
      ...auth().headers },
    body: new URLSearchParams({ token }) });
  const out = document.getElementById("act-result");
  out.dataset.status = String(r.status);
  out.textContent = (r.ok ? "" : `refused (${r.status}): `) + await said(r);
}
document.getElementById("upload").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const out = document.getElementById("upload-report");
  out.hidden = false;
  out.dataset.status = "";
  out.textContent = "uploading, then checking (this takes up to a few minutes)...";
  const r = await fetch("/api/submit", { method: "POST", body: new FormData(ev.target), ...auth() });
  out.textContent = (r.ok ? "" : `refused (${r.status}):\n`) + await said(r);
  out.dataset.status = String(r.status);
});
// A game step by step, in the viewer the run reports use (viewer.js): every
// seat's cards shown or only what one seat sees, each decision's lines, the
// forfeits with the program's stderr for those who may read it. Its address
// (#game=B/I) opens it again.
async function showGame(block, index, start) {
  const g = await getJson(`/api/game/${block}/${index}`, true);
  const s = document.getElementById("game");
  s.hidden = false;
  history.replaceState(null, "", `#game=${g.block}/${g.index}`);
  const head = el("h2", {}, `Block ${g.block}, game ${g.index}: ${g.seats.join(" vs ")}`);
  const v = g.steps || {};
  if (!Array.isArray(v.steps)) {
    KothViewer.close();
    s.replaceChildren(head, el("pre", {}, v.error ? "cannot show it: " + v.error : JSON.stringify(g.record, null, 1)));
    return;
  }
  const facts = v.facts || {}, rec = g.record || {};
  // The winners: a mask of seats (bit i: seat i), or a list.
  const w = (rec.outcome || {}).winners ?? [];
  const winners = Array.isArray(w) ? w : g.seats.map((_, i) => i).filter(i => (w >> i) & 1);
  const forfeits = (rec.forfeits || []).map(f => ({
    seat: f.seat, at: f.at, reason: (f.fault || {}).reason ?? f.reason, stderr: (f.fault || {}).stderr_tail,
  }));
  s.replaceChildren(head,
    el("p", { id: "game-winner" }, winners.length ? `Won by ${winners.map(i => g.seats[i]).join(" and ")}` : "No winner", ` · ${(rec.outcome || {}).turns ?? "?"} turns · `,
      el("a", { href: `#game=${g.block}/${g.index}`, title: "this game's address on the page" }, "link"), " · ",
      el("a", { id: "game-download", href: URL.createObjectURL(new Blob([JSON.stringify(g)], { type: "application/json" })), download: `game-${g.block}-${g.index}.json` }, "download")));
  KothViewer.open(s, { seats: g.seats, winners, forfeits, steps: v.steps, coup: facts.table === "coup", cards: facts.cards }, start === undefined ? v.steps.length - 1 : start);
  s.scrollIntoView({ behavior: "smooth" });
}
function fromHash() {
  const m = /^#game=(\d+)\/(\d+)$/.exec(location.hash);
  if (m) showGame(Number(m[1]), Number(m[2]), 0).catch(() => {});
  const e = /^#entrant=(.+)$/.exec(location.hash);
  if (e) showEntrant(decodeURIComponent(e[1])).catch(() => {});
}
window.addEventListener("hashchange", fromHash);
function drawH2h(h) {
  const t = document.getElementById("h2h");
  if (!h || !h.names.length) { t.replaceChildren(); return; }
  const head = el("tr", {}, el("th", {}, ""), ...h.names.map(n => el("th", {}, n)));
  t.replaceChildren(head, ...h.names.map((n, i) => el("tr", {}, el("th", {}, n),
    ...h.cells[i].map(c => el("td", { title: c ? `${c[1]} games` : "" }, ...(c ? [fmt(c[0]), el("small", {}, `(${c[1].toLocaleString()})`)] : []))))));
}
const COLOURS = ["#3355cc", "#c2410c", "#15803d", "#7e22ce", "#b91c1c", "#0e7490", "#a16207", "#be185d", "#4d7c0f", "#334155"];
// Ticks for an axis from lo to hi: about n round steps.
function ticks(lo, hi, n) {
  const span = hi - lo || 1, raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map(k => k * mag).find(k => k >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  return out;
}
async function drawHistory() {
  const h = await getJson("/api/history");
  const pts = h.points, svg = document.getElementById("history");
  const ns = "http://www.w3.org/2000/svg";
  const svgEl = (tag, attrs, text) => {
    const e = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  };
  svg.replaceChildren();
  const legend = document.getElementById("history-legend");
  if (!pts.length) {
    svg.append(svgEl("text", { x: 500, y: 140, "text-anchor": "middle", id: "history-empty" }, "no point yet: the first comes within seconds of the first games"));
    legend.replaceChildren();
    return;
  }
  const names = [...new Set(pts.flatMap(p => p.rows.map(r => r[0])))];
  const g0 = pts[0].games, g1 = Math.max(pts[pts.length - 1].games, g0 + 1);
  const all = pts.flatMap(p => p.rows.flatMap(r => [r[1]]));
  let lo = Math.min(...all), hi = Math.max(...all);
  const pad = Math.max(0.02, (hi - lo) * 0.08); lo -= pad; hi += pad;
  // The plot's box inside the picture: room on the left for values, below for games.
  const L = 64, R = 985, T = 12, B = 242;
  const X = g => L + (R - L) * (g - g0) / (g1 - g0), Y = v => B - (B - T) * (v - lo) / (hi - lo);
  const axes = svgEl("g", { id: "history-axes" });
  for (const v of ticks(lo, hi, 5)) {
    axes.append(svgEl("line", { class: "grid", x1: L, x2: R, y1: Y(v), y2: Y(v) }),
      svgEl("text", { x: L - 6, y: Y(v) + 4, "text-anchor": "end", class: "y-tick" }, fmt(v)));
  }
  for (const g of ticks(g0, g1, 6)) {
    axes.append(svgEl("line", { class: "grid", x1: X(g), x2: X(g), y1: T, y2: B }),
      svgEl("text", { x: X(g), y: B + 16, "text-anchor": "middle", class: "x-tick" }, Math.round(g).toLocaleString()));
  }
  axes.append(svgEl("line", { class: "axis", x1: L, x2: L, y1: T, y2: B }), svgEl("line", { class: "axis", x1: L, x2: R, y1: B, y2: B }),
    svgEl("text", { x: (L + R) / 2, y: 274, "text-anchor": "middle" }, "games stored"),
    svgEl("text", { x: 14, y: (T + B) / 2, "text-anchor": "middle", transform: `rotate(-90 14 ${(T + B) / 2})` }, "strength"));
  svg.append(axes);
  // A change of the field at the games stored when it came (between the points around it).
  const gamesAt = (t) => {
    if (t <= pts[0].at) return null;
    for (let i = 1; i < pts.length; i++) if (pts[i].at >= t) return pts[i - 1].games;
    return pts[pts.length - 1].games;
  };
  for (const ev of h.events) {
    const g = gamesAt(ev.at);
    if (g === null) continue;
    const mark = svgEl("line", { class: "change", x1: X(g), x2: X(g), y1: T, y2: B, "data-entrant": ev.entrant, "data-kind": ev.kind });
    mark.append(svgEl("title", {}, `${ev.entrant}: ${ev.kind}`));
    svg.append(mark);
  }
  names.forEach((n, i) => {
    const mine = pts.filter(p => p.rows.some(r => r[0] === n)).map(p => [X(p.games), Y(p.rows.find(r => r[0] === n)[1])]);
    const colour = COLOURS[i % COLOURS.length];
    const line = svgEl("polyline", { points: mine.map(p => p.join(",")).join(" "), fill: "none", stroke: colour, "stroke-width": 2, "data-name": n });
    svg.append(line);
    // Points are drawn too: one point alone is still seen.
    for (const p of mine.slice(-1)) svg.append(svgEl("circle", { cx: p[0], cy: p[1], r: 3, fill: colour }));
  });
  const last = pts[pts.length - 1];
  legend.replaceChildren(...names.map((n, i) => {
    const r = last.rows.find(r => r[0] === n);
    return el("span", { "data-name": n }, el("i", { style: `background:${COLOURS[i % COLOURS.length]}` }), `${n} ${r ? fmt(r[1]) : "(not in the current field)"}`);
  }));
}
async function drawRounds() {
  const rs = await getJson("/api/rounds");
  if (!rs.length) return;
  document.getElementById("rounds").replaceChildren(...rs.map(r => el("li", {},
    el("a", { href: roundUrl(r.id) }, `Round ${r.id}`),
    ` · ${r.games.toLocaleString()} games · ${new Date(r.at * 1000).toISOString().slice(0, 10)} · first: `,
    r.standings.length ? `${r.standings[0].name} (${fmt(r.standings[0].strength ?? r.standings[0].mean)})` : "–")));
}
function connect() {
  const st = document.getElementById("status");
  if (STATIC) {
    st.textContent = "exported: the standings as they were";
    document.getElementById("submit").hidden = true;
    return;
  }
  const es = new EventSource("/api/live");
  es.addEventListener("board", (m) => {
    const b = JSON.parse(m.data);
    drawBoard(b);
    drawH2h(b.h2h);
    st.className = "on"; st.textContent = "live";
    // Each update kept (the last 50): when it came and what it said.
    const u = document.getElementById("updates");
    const late = Date.now() - b.at_ms;
    u.append(el("li", { "data-games": b.games, "data-late": late, "data-first": b.rows.length ? b.rows[0].name : "" }, `${b.games} games, shown ${late} ms after they were stored`));
    while (u.children.length > 50) u.firstChild.remove();
    document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    document.getElementById("seen").textContent = `updated ${new Date().toLocaleTimeString()}`;
  });
  es.onerror = () => { st.className = "off"; st.textContent = "reconnecting"; };
}
getJson("/api/board").then(b => { drawBoard(b); drawH2h(b.h2h); }).catch(() => {});
drawContest().catch(() => {});
fromHash();
connect();
drawHistory().catch(() => {});
drawRounds().catch(() => {});
if (!STATIC) setInterval(() => { drawHistory().catch(() => {}); drawRounds().catch(() => {}); drawContest().catch(() => {}); }, 15000);
