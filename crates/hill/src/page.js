"use strict";
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
function drawBoard(b) {
  document.getElementById("facts").textContent =
    `${b.game}, ${b.rules} rules, ${b.table} seats · ${b.games.toLocaleString()} games stored · ${b.counted.toLocaleString()} of the current field`;
  const lo = Math.min(-0.2, ...b.rows.map(r => r.low)), hi = Math.max(0.2, ...b.rows.map(r => r.high));
  range = [lo, hi];
  const x = (v) => (100 * (v - lo) / (hi - lo || 1)).toFixed(1) + "%";
  const body = document.querySelector("#board tbody");
  body.replaceChildren(...b.rows.map(r => {
    const bar = el("span", { class: "bar" }, el("span", { style: `left:${x(r.low)};right:calc(100% - ${x(r.high)})` }), el("i", { style: `left:${x(r.strength)}` }));
    return el("tr", { class: "row" + (r.status === "paused" ? " paused" : ""), "data-name": r.name, onclick: () => showEntrant(r.name) },
      el("td", {}, r.rank, r.settled ? el("span", { class: "settled", title: "settled" }, " ✓") : ""),
      el("td", {}, r.name, r.status === "paused" ? " (paused)" : ""),
      el("td", {}, "v" + r.version), el("td", {}, r.games.toLocaleString()),
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
async function getJson(url, withToken) {
  const r = await fetch(url, withToken ? auth() : {});
  if (!r.ok) throw new Error(await r.text());
  return r.json();
}
async function showEntrant(name) {
  const e = await getJson("/api/entrant/" + encodeURIComponent(name), true);
  const s = document.getElementById("entrant");
  s.hidden = false;
  s.replaceChildren(
    el("h2", {}, `${e.name} (${e.status})`),
    el("p", {}, ...["pause", "resume", "remove"].map(a => el("button", { type: "button", "data-action": a, onclick: () => act(e.name, a) }, a)),
      " ", el("span", { class: "mute" }, "with the token in the form below"), " ", el("span", { id: "act-result" })),
    el("p", {}, "Versions: ", ...e.versions.map(v => el("span", {}, `v${v.number} (${new Date(v.at * 1000).toISOString().slice(0, 16).replace("T", " ")})  `))),
    el("p", {}, "Events: ", e.events.map(ev => `${ev.kind} (${new Date(ev.at * 1000).toISOString().slice(0, 16).replace("T", " ")})`).join(", ")),
    el("h2", {}, "Results per version (its latest 2,000 games, whoever it met)"),
    el("table", { id: "versions" }, el("tr", {}, el("th", {}, "version"), el("th", {}, "games"), el("th", {}, "mean"), el("th", {}, "forfeits")),
      ...e.results.map(r => el("tr", {}, el("td", {}, "v" + r.version), el("td", {}, r.games), el("td", {}, r.games ? fmt(r.mean) : "–"), el("td", {}, r.forfeits)))),
    el("h2", {}, "Recent games of the current version"),
    el("table", {}, ...e.recent.map(g => el("tr", {},
      el("td", {}, el("a", { onclick: () => showGame(g.block, g.index) }, `block ${g.block} game ${g.index}`)),
      el("td", {}, g.seats.map((n, i) => `${n}: ${(g.scores[i] ?? 0).toFixed(2)}`).join(" · "))))),
    el("h2", {}, `Forfeits among them: ${e.forfeits.length}`),
    e.stderr_shown
      ? el("p", {}, el("button", { type: "button", id: "show-log", onclick: () => showLog(e.name) }, "its stderr logs"), " ", el("span", { class: "mute" }, "(you are its author)"))
      : el("p", { class: "mute" }, "What a bot wrote to stderr is shown to its author: type your token in the form below and open the entrant again."),
    el("pre", { id: "entrant-log", hidden: "" }),
    ...e.forfeits.map(f => el("pre", {}, `block ${f.block} game ${f.index}: ${f.reason}` + (f.stderr ? `\n${f.stderr}` : ""))));
  s.scrollIntoView({ behavior: "smooth" });
}
// An author's own bot's stderr logs (its current version's).
async function showLog(name) {
  const r = await fetch(`/api/entrant/${encodeURIComponent(name)}/log`, auth());
  const out = document.getElementById("entrant-log");
  out.hidden = false;
  out.textContent = (r.ok ? "" : `refused (${r.status}): `) + await r.text();
}
// Pause, resume or remove an entrant with the token typed in the form.
async function act(name, action) {
  const token = document.querySelector("#upload [name=token]").value;
  const r = await fetch(`/api/entrant/${encodeURIComponent(name)}/${action}`, {
    method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token }) });
  const out = document.getElementById("act-result");
  out.dataset.status = String(r.status);
  out.textContent = (r.ok ? "" : `refused (${r.status}): `) + await r.text();
}
document.getElementById("upload").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const out = document.getElementById("upload-report");
  out.hidden = false;
  out.dataset.status = "";
  out.textContent = "checking...";
  const r = await fetch("/api/submit", { method: "POST", body: new FormData(ev.target) });
  out.textContent = (r.ok ? "" : `refused (${r.status}):\n`) + await r.text();
  out.dataset.status = String(r.status);
});
// A game step by step: the lines of each step and the table after it, every
// seat's cards shown, or only what one seat sees. Its address (#game=B/I) opens
// it again.
let playing = null;
async function showGame(block, index, start) {
  if (playing) { clearInterval(playing); playing = null; }
  const g = await getJson(`/api/game/${block}/${index}`, true);
  const s = document.getElementById("game");
  s.hidden = false;
  history.replaceState(null, "", `#game=${g.block}/${g.index}`);
  const head = el("h2", {}, `Block ${g.block}, game ${g.index}: ${g.seats.join(" vs ")}`);
  const v = g.steps || {};
  if (!Array.isArray(v.steps)) {
    s.replaceChildren(head, el("pre", {}, v.error ? "cannot show it: " + v.error : JSON.stringify(g.record, null, 1)));
    return;
  }
  const facts = v.facts || {}, coup = facts.table === "coup", steps = v.steps;
  // Each step's table, carried over the steps that left it unchanged.
  const tables = [];
  steps.forEach((st, i) => tables.push(st[0] !== 0 ? String(st[0]) : tables[i - 1] || ""));
  let at = start === undefined ? steps.length - 1 : Math.max(0, Math.min(steps.length - 1, start)), seat = "";
  const table = el("table", { id: "game-table" });
  const where = el("span", { id: "game-step" });
  const slider = el("input", { type: "range", id: "game-slider", min: "0", max: String(steps.length - 1), value: String(at) });
  const view = el("select", { id: "game-view" }, el("option", { value: "" }, "every card"),
    ...g.seats.map((n, i) => el("option", { value: String(i) }, `what ${n} sees`)));
  const speed = el("select", { id: "game-speed", title: "steps a second" }, ...[1, 2, 4, 8].map(x => el("option", { value: String(x) }, `${x}/s`)));
  speed.value = "2";
  const play = el("button", { type: "button", id: "game-play" }, "▶ play");
  // The story: one line block a step, the current one marked, later ones faint.
  const lines = el("div", { id: "game-lines" });
  const nodes = steps.map((st, i) => {
    const n = el("div", { class: "step", onclick: () => { stop(); go(i); } },
      ...st.slice(1).map(l => el("div", { class: "ln t-" + String(l)[0] }, String(l).slice(1))));
    lines.append(n);
    return n;
  });
  const chips = (names, cls) => names.flatMap((c, k) => [k ? ", " : "", el("span", { class: cls }, c)]);
  const draw = () => {
    where.textContent = ` step ${at + 1} of ${steps.length} `;
    slider.value = String(at);
    nodes.forEach((n, j) => { n.classList.toggle("cur", j === at); n.classList.toggle("later", j > at); });
    const n = nodes[at];
    if (n.offsetTop < lines.scrollTop || n.offsetTop + n.offsetHeight > lines.scrollTop + lines.clientHeight) {
      lines.scrollTop = n.offsetTop - lines.offsetTop - lines.clientHeight / 3;
    }
    const rows = tables[at].split(" ").filter(Boolean).map((t, i) => {
      const f = t.split(":");
      if (!coup) return el("tr", {}, el("td", {}, g.seats[i]), el("td", {}, `health ${f[0]}`), el("td", {}, `honour ${f[1]}`));
      const hidden = Array.from(f[1] || "").map(d => seat === "" || seat === String(i) ? facts.cards[Number(d)] : "?");
      const up = Array.from(f[2] || "").map(d => facts.cards[Number(d)] + " (lost)");
      return el("tr", { "data-seat": String(i), class: hidden.length ? "" : "out" }, el("td", {}, g.seats[i]), el("td", {}, `${f[0]} coins`),
        el("td", { class: "cards" }, ...chips(hidden, "card"), hidden.length && up.length ? ", " : "", ...chips(up, "card lost")));
    });
    table.replaceChildren(...rows);
  };
  const go = (i) => { at = Math.max(0, Math.min(steps.length - 1, i)); draw(); if (at === steps.length - 1) stop(); };
  const stop = () => { if (playing) { clearInterval(playing); playing = null; } play.textContent = "▶ play"; };
  const resume = () => {
    if (at >= steps.length - 1) go(0);
    play.textContent = "❚❚ pause";
    playing = setInterval(() => go(at + 1), 1000 / Number(speed.value));
  };
  play.addEventListener("click", () => playing ? stop() : resume());
  speed.addEventListener("change", () => { if (playing) { stop(); resume(); } });
  slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
  view.addEventListener("change", () => { seat = view.value; draw(); });
  gameKeys = (d) => { stop(); go(at + d); };
  const forfeits = (g.record.forfeits || []).map(f => el("p", { class: "forfeit" },
    `${g.seats[f.seat] ?? "seat " + (f.seat + 1)} forfeited: ${f.reason}`));
  s.replaceChildren(head, el("p", { class: "controls" },
    el("button", { type: "button", onclick: () => { stop(); go(0); } }, "◀◀"),
    el("button", { type: "button", id: "game-prev", onclick: () => { stop(); go(at - 1); } }, "◀"), slider,
    el("button", { type: "button", id: "game-next", onclick: () => { stop(); go(at + 1); } }, "▶"),
    el("button", { type: "button", onclick: () => { stop(); go(steps.length - 1); } }, "▶▶"), where, play, " ", speed, " ", view, " ",
    el("a", { href: `#game=${g.block}/${g.index}`, title: "this game's address on the page" }, "link")),
    ...forfeits, table, lines,
    el("p", { class: "mute" }, "← and → step through the game; a line of the story goes to its step."));
  draw();
  s.scrollIntoView({ behavior: "smooth" });
}
// The arrow keys step through the open game (not while typing in the form).
let gameKeys = null;
document.addEventListener("keydown", (ev) => {
  if (!gameKeys || document.getElementById("game").hidden || ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
  if (ev.key === "ArrowRight") gameKeys(1); else if (ev.key === "ArrowLeft") gameKeys(-1);
});
function fromHash() {
  const m = /^#game=(\d+)\/(\d+)$/.exec(location.hash);
  if (m) showGame(Number(m[1]), Number(m[2]), 0).catch(() => {});
}
window.addEventListener("hashchange", fromHash);
function drawH2h(h) {
  const t = document.getElementById("h2h");
  if (!h || !h.names.length) { t.replaceChildren(); return; }
  const head = el("tr", {}, el("th", {}, ""), ...h.names.map(n => el("th", {}, n)));
  t.replaceChildren(head, ...h.names.map((n, i) => el("tr", {}, el("th", {}, n),
    ...h.cells[i].map(c => el("td", { title: c ? `${c[1]} games` : "" }, c ? fmt(c[0]) : "")))));
}
const COLOURS = ["#3355cc", "#c2410c", "#15803d", "#7e22ce", "#b91c1c", "#0e7490", "#a16207", "#be185d", "#4d7c0f", "#334155"];
async function drawHistory() {
  const pts = await getJson("/api/history");
  const svg = document.getElementById("history");
  const ns = "http://www.w3.org/2000/svg";
  svg.replaceChildren();
  if (pts.length < 2) return;
  const names = [...new Set(pts.flatMap(p => p.rows.map(r => r[0])))];
  const g0 = pts[0].games, g1 = pts[pts.length - 1].games || 1;
  const all = pts.flatMap(p => p.rows.map(r => r[1]));
  const lo = Math.min(...all), hi = Math.max(...all);
  const X = g => 1000 * (g - g0) / ((g1 - g0) || 1), Y = v => 210 - 200 * (v - lo) / ((hi - lo) || 1);
  names.forEach((n, i) => {
    const line = document.createElementNS(ns, "polyline");
    line.setAttribute("points", pts.filter(p => p.rows.some(r => r[0] === n)).map(p => `${X(p.games)},${Y(p.rows.find(r => r[0] === n)[1])}`).join(" "));
    line.setAttribute("fill", "none");
    line.setAttribute("stroke", COLOURS[i % COLOURS.length]);
    line.setAttribute("stroke-width", "2");
    line.setAttribute("vector-effect", "non-scaling-stroke");
    line.dataset.name = n;
    svg.append(line);
  });
  document.getElementById("history-legend").replaceChildren(...names.map((n, i) =>
    el("span", { style: `color:${COLOURS[i % COLOURS.length]}` }, `■ ${n}  `)),
    el("span", {}, `from ${g0.toLocaleString()} to ${g1.toLocaleString()} games stored`));
}
async function drawRounds() {
  const rs = await getJson("/api/rounds");
  if (!rs.length) return;
  document.getElementById("rounds").replaceChildren(...rs.map(r => el("li", {},
    el("a", { href: `/rounds/${r.id}` }, `Round ${r.id}`),
    ` · ${r.games.toLocaleString()} games · ${new Date(r.at * 1000).toISOString().slice(0, 10)} · first: `,
    r.standings.length ? `${r.standings[0].name} (${fmt(r.standings[0].strength ?? r.standings[0].mean)})` : "–")));
}
function connect() {
  const st = document.getElementById("status");
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
fromHash();
connect();
drawHistory().catch(() => {});
drawRounds().catch(() => {});
setInterval(() => { drawHistory().catch(() => {}); drawRounds().catch(() => {}); }, 15000);
