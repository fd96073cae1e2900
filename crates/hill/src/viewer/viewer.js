"use strict";
// One game step by step: the viewer of koth's run reports and of the hill's
// page, shipped once and used by both. Everything a bot chose or wrote goes in
// as text, never as markup.
//
// KothViewer.open(pane, game, step) draws `game` into `pane` at `step`:
//   seats     each seat's name
//   colours   each seat's swatch colour (optional)
//   winners   the seats that won
//   forfeits  [{seat, at, reason, stderr}] (stderr only where the reader may see it)
//   steps     [[table, line, ...]]: the table after the step as text (0 when
//             unchanged), each line a tone letter and its text
//   coup      the table is Coup's (coins, hidden and lost cards), else the duel's
//   cards     Coup's card names, by digit
// The arrow keys step through the open game; KothViewer.stop() pauses it.
const KothViewer = (() => {
  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined) continue;
      if (k === "class") e.className = v;
      else if (k === "style") e.style.cssText = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v);
    }
    for (const k of kids.flat()) {
      if (k === null || k === undefined || k === "") continue;
      e.append(k instanceof Node ? k : document.createTextNode(String(k)));
    }
    return e;
  }
  const TONES = { t: "turn", c: "claim", h: "challenge", b: "block", r: "reveal", l: "loss", g: "gain",
    o: "out", q: "quiet", e: "end", i: "info", x: "botlog", d: "decision" };
  let cur = null;
  let playSpeed = 1;
  let viewSeat = null;
  let showDecisions = true;

  function stop() {
    if (cur && cur.timer) { clearInterval(cur.timer); cur.timer = null; cur.play.textContent = "▶ Play"; }
  }
  // Coup: per seat "coins:hidden:face-up" (cards as digits); the duel: "health:honour".
  function parseTable(text, coup) {
    return text.split(" ").map((seat) => {
      const f = seat.split(":");
      if (coup) return [Number(f[0]), Array.from(f[1] || "").map(Number), Array.from(f[2] || "").map(Number)];
      return [Number(f[0]), Number(f[1])];
    });
  }
  function nameCell(s) {
    const g = cur.game;
    const colour = (g.colours || [])[s];
    return el("td", { class: "name" }, colour ? el("span", { class: "swatch", style: "background:" + colour }) : "", g.seats[s]);
  }
  function drawTable() {
    const { table, game, tables, step, steps } = cur;
    const state = tables[step] || [];
    table.textContent = "";
    const final = step === steps.length - 1;
    const winners = game.winners || [];
    if (game.coup) {
      table.append(el("thead", {}, el("tr", {}, el("th", {}, "seat"), el("th", {}, "bot"), el("th", { class: "num" }, "coins"),
        el("th", {}, "influence"), el("th", { title: "hidden cards in grey (shown for the replay), lost ones struck out in red" }, "cards"))));
      const body = el("tbody");
      state.forEach(([coins, hand, up], s) => {
        const cls = (hand.length === 0 ? "out" : "") + (final && winners.includes(s) ? " won" : "");
        body.append(el("tr", { class: cls.trim() || null, "data-seat": String(s) },
          el("td", { class: "num" }, s + 1), nameCell(s), el("td", { class: "num" }, coins),
          el("td", { class: "pips", title: hand.length + " influence" }, "●".repeat(hand.length) + "○".repeat(Math.max(0, 2 - hand.length))),
          el("td", { class: "cards" }, hand.map((c) => (viewSeat === null || viewSeat === s)
            ? el("span", { class: "card-chip hid", title: "hidden" }, game.cards[c])
            : el("span", { class: "card-chip hid", title: "hidden from seat " + (viewSeat + 1) }, "?")),
            up.map((c) => el("span", { class: "card-chip up", title: "face up: influence lost" }, game.cards[c])))));
      });
      table.append(body);
    } else {
      const full = Math.max(1, ...(cur.start || []).map((x) => x[0]));
      table.append(el("thead", {}, el("tr", {}, el("th", {}, "seat"), el("th", {}, "samurai"), el("th", {}, "health"), el("th", { class: "num" }, "honour"))));
      const body = el("tbody");
      state.forEach(([hp, hon], s) => {
        const cls = (hp <= 0 ? "out" : "") + (final && winners.includes(s) ? " won" : "");
        body.append(el("tr", { class: cls.trim() || null, "data-seat": String(s) },
          el("td", { class: "num" }, s + 1), nameCell(s),
          el("td", {}, el("span", { class: "meter" }, el("span", { style: "width:" + Math.max(0, Math.min(100, 100 * hp / full)) + "%" })), String(hp)),
          el("td", { class: "num" }, hon)));
      });
      table.append(body);
    }
  }
  function go(i) {
    if (!cur) return;
    i = Math.max(0, Math.min(cur.steps.length - 1, i));
    cur.step = i;
    cur.slider.value = String(i);
    cur.label.textContent = "step " + (i + 1) + " / " + cur.steps.length;
    cur.nodes.forEach((n, j) => { n.classList.toggle("cur", j === i); n.classList.toggle("future", j > i); });
    drawTable();
    const n = cur.nodes[i], log = cur.log;
    if (n.offsetTop < log.scrollTop || n.offsetTop + n.offsetHeight > log.scrollTop + log.clientHeight) {
      log.scrollTop = n.offsetTop - log.offsetTop - log.clientHeight / 3;
    }
    if (i === cur.steps.length - 1) stop();
  }
  function togglePlay() {
    if (!cur) return;
    if (cur.timer) { stop(); return; }
    if (cur.step >= cur.steps.length - 1) go(0);
    cur.play.textContent = "❚❚ Pause";
    cur.timer = setInterval(() => go(cur.step + 1), 650 / playSpeed);
  }
  function open(pane, game, step) {
    stop();
    const steps = game.steps.map((st) => st.slice());
    // Each forfeit, with its reason and the bot's last stderr lines, closes the story.
    const ff = game.forfeits || [];
    if (ff.length) {
      const last = steps[steps.length - 1];
      for (const f of ff) last.push("o" + game.seats[f.seat] + " forfeited: " + f.reason);
      const box = el("div", { class: "forfeit-box" });
      for (const f of ff) {
        box.append(el("p", { class: "forfeit" }, el("strong", {}, game.seats[f.seat] + " forfeited"),
          " after " + f.at + " choices: " + f.reason));
        if (f.stderr) box.append(el("details", { open: "" }, el("summary", {}, "its last stderr lines (shown to its author)"), el("pre", { class: "stderr" }, f.stderr)));
      }
      pane.append(box);
    }
    const tables = []; let last = null;
    for (const s of steps) { if (s[0]) last = parseTable(String(s[0]), game.coup); tables.push(last); }
    const controls = el("div", { class: "controls" });
    const first = el("button", { type: "button", id: "btn-first", title: "the first step", onclick: () => { stop(); go(0); } }, "◀◀");
    const prev = el("button", { type: "button", id: "btn-prev", onclick: () => { stop(); go(cur.step - 1); } }, "◀ Prev");
    const play = el("button", { type: "button", id: "btn-play", onclick: togglePlay }, "▶ Play");
    const next = el("button", { type: "button", id: "btn-next", onclick: () => { stop(); go(cur.step + 1); } }, "Next ▶");
    const end = el("button", { type: "button", id: "btn-last", title: "the last step", onclick: () => { stop(); go(cur.steps.length - 1); } }, "▶▶");
    const slider = el("input", { type: "range", id: "step-slider", min: 0, max: steps.length - 1, value: 0 });
    slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
    const label = el("span", { class: "pos-label", id: "step-label" });
    const speed = el("select", { id: "speed", title: "playback speed" },
      [0.5, 1, 2, 4, 8].map((x) => el("option", { value: String(x) }, x + "×")));
    speed.value = String(playSpeed);
    speed.addEventListener("change", () => { playSpeed = Number(speed.value); if (cur && cur.timer) { stop(); togglePlay(); } });
    controls.append(first, prev, play, next, end, slider, label, el("label", {}, " speed ", speed));
    if (game.coup) {
      // Whose eyes: everyone's cards (the default), or only what one seat could see.
      const view = el("select", { id: "view" }, el("option", { value: "" }, "all cards"),
        game.seats.map((n, s) => el("option", { value: String(s) }, "seat " + (s + 1) + ": " + n)));
      view.value = viewSeat === null || viewSeat >= game.seats.length ? "" : String(viewSeat);
      view.addEventListener("change", () => { viewSeat = view.value === "" ? null : Number(view.value); drawTable(); });
      controls.append(el("label", {}, " view ", view));
    }
    // A program's decisions (what it was asked, answered, and how long it took)
    // can be hidden to read the game alone.
    const hasDecisions = steps.some((s) => s.some((l, j) => j > 0 && String(l)[0] === "d"));
    if (hasDecisions) {
      const box = el("input", { type: "checkbox", id: "show-decisions" });
      box.checked = showDecisions;
      box.addEventListener("change", () => { showDecisions = box.checked; cur.log.classList.toggle("no-decisions", !showDecisions); });
      controls.append(el("label", { title: "each decision of a program: the question, its answer, its time" }, " ", box, " decisions"));
    }
    pane.append(controls);
    const table = el("table", { class: "grid seatstate", id: "seat-table" });
    pane.append(table);
    if (game.coup) pane.append(el("p", { class: "hint" },
      "Hidden cards are shown grey (the players did not see each other's); lost influence is struck out in red."));
    const log = el("div", { class: "log" + (showDecisions ? "" : " no-decisions"), id: "replay-log" });
    const nodes = steps.map((s, i) => {
      const n = el("div", { class: "step", "data-step": i, onclick: () => { stop(); go(i); } },
        s.slice(1).map((l) => el("div", { class: "ln " + (TONES[String(l)[0]] || "quiet") }, String(l).slice(1))));
      log.append(n);
      return n;
    });
    pane.append(log);
    pane.append(el("p", { class: "hint" }, "← and → step through the game; a line of the story goes to its step."));
    cur = { game, steps, tables, step: 0, timer: null, nodes, slider, label, table, play, log, start: tables[0] };
    go(Math.max(0, Math.min(steps.length - 1, step || 0)));
  }
  document.addEventListener("keydown", (ev) => {
    if (!cur || !cur.log.isConnected || ["INPUT", "SELECT", "TEXTAREA"].includes(ev.target.tagName)) return;
    if (ev.key === "ArrowRight") { stop(); go(cur.step + 1); } else if (ev.key === "ArrowLeft") { stop(); go(cur.step - 1); }
  });
  return {
    open,
    stop,
    close() { stop(); cur = null; },
    get step() { return cur ? cur.step : null; },
    set view(seat) { viewSeat = seat; },
  };
})();
