"use strict";
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg";
let presets = [], game = null, busy = false, replayGames = [], replayAt = 0;

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["content-type"] = typeof body === "string" ? "text/plain" : "application/json";
    opts.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = { error: text }; }
  if (!r.ok) { const e = new Error((data && data.error) || r.statusText); e.status = r.status; throw e; }
  return { status: r.status, data };
}

function el(name, attrs, parent) {
  const e = document.createElementNS(SVG, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// One row of houses per player in sowing order, the store at the row's end; with two players
// North's row is drawn above South's, right to left, as on a real board (the layout of the
// Python rgb_array render, awale/drawing.py).
function drawBoard(svg, b, opts) {
  const C = 56, G = 8, P = b.players, H = b.houses;
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const rows = P, width = (H + 2) * (C + G) + G, height = rows * (C + G) + G + 18;
  svg.setAttribute("width", width); svg.setAttribute("height", height);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const place = (p, h) => {
    if (P === 2 && p === 1) return { x: G + (H - h) * (C + G), y: G };
    const row = P === 2 ? 1 : p;
    return { x: G + (h + 1) * (C + G), y: G + row * (C + G) };
  };
  for (let p = 0; p < P; p++) {
    for (let h = 0; h < H; h++) {
      const n = b.pits[p * H + h], { x, y } = place(p, h);
      const legal = opts.legal && opts.legal.includes(h) && opts.mover === p;
      const g = el("g", { class: "house" + (legal ? " legal" : ""), "data-player": p, "data-house": h, id: `${opts.prefix}house-${p}-${h}` }, svg);
      el("rect", { x, y, width: C, height: C, rx: 14, fill: "var(--house)",
        stroke: opts.last && opts.last.player === p && opts.last.house === h ? "var(--last)" : "none", "stroke-width": 4 }, g);
      seeds(g, x, y, C, n);
      const t = el("text", { x: x + 3, y: y + C - 3, "font-size": 10, fill: "#fff8" }, g);
      t.textContent = b.house_labels ? b.house_labels[p][h] : "";
      if (legal) g.addEventListener("click", () => opts.onClick(h));
    }
    const row = P === 2 ? (p === 1 ? 0 : 1) : p;
    const sx = P === 2 && p === 1 ? G : G + (H + 1) * (C + G), sy = G + row * (C + G);
    el("rect", { x: sx, y: sy, width: C, height: C, rx: 8, fill: "var(--store)",
      stroke: b.to_move === p && !b.over ? "var(--mover)" : "none", "stroke-width": 4, id: `${opts.prefix}store-${p}` }, svg);
    const t = el("text", { x: sx + C / 2, y: sy + C / 2 + 8, "text-anchor": "middle", "font-size": 22, fill: "#fff" }, svg);
    t.textContent = b.stores[p];
    const name = el("text", { x: sx + C / 2, y: sy + C - 4, "text-anchor": "middle", "font-size": 9, fill: "#fffc" }, svg);
    name.textContent = b.names ? b.names[p] : "";
  }
}

function seeds(g, x, y, C, n) {
  if (n > 12 || n === 0) {
    const t = el("text", { x: x + C / 2, y: y + C / 2 + 8, "text-anchor": "middle", "font-size": 22, fill: "var(--seed)", class: "count" }, g);
    t.textContent = n === 0 ? "" : n;
    return;
  }
  for (let i = 0; i < n; i++) {
    const cx = x + 12 + (i % 4) * 11, cy = y + 14 + Math.floor(i / 4) * 12;
    el("circle", { cx, cy, r: 4.5, fill: "var(--seed)" }, g);
  }
  const t = el("text", { x: x + C - 4, y: y + 12, "text-anchor": "end", "font-size": 10, fill: "#fff", class: "count" }, g);
  t.textContent = n;
}

function seatInputs() {
  const spec = $("rules-spec").value.trim() || $("rules").value;
  const base = spec.split(":")[0];
  let players = 2;
  const p = presets.find((x) => x.name === base);
  if (p) players = p.players;
  const m = spec.match(/players=(\d)/);
  if (m) players = +m[1];
  const box = $("seats");
  const old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.replaceChildren();
  for (let i = 0; i < players; i++) {
    const l = document.createElement("label");
    l.textContent = `Seat ${i} `;
    const inp = document.createElement("input");
    inp.type = "text"; inp.id = `seat-${i}`; inp.setAttribute("list", "agent-examples");
    inp.value = old[i] || (i === 0 ? "human" : "alphabeta:depth=4");
    l.appendChild(inp); box.appendChild(l);
  }
}

// A table row of text cells. The page never writes data as HTML (no innerHTML): names, seats
// and results come from clients and files, and are shown as text.
function row(tag, cells) {
  const tr = document.createElement("tr");
  for (const c of cells) {
    const td = document.createElement(tag);
    td.textContent = String(c);
    tr.appendChild(td);
  }
  return tr;
}

function showGame(g) {
  game = g;
  drawBoard($("board"), g, { prefix: "", legal: g.person_to_move && !busy ? g.legal : [], mover: g.to_move, last: g.last, onClick: personMove });
  const seat = g.seats[g.to_move];
  $("status").textContent = g.over ? `Game over: ${g.result}`
    : g.thinking ? `${g.names[g.to_move]} (${seat.name}) is thinking…`
    : `${g.names[g.to_move]} to move (${seat.person ? "you" : seat.name})`;
  $("moves").textContent = g.moves.join(" ");
  $("error").textContent = g.error || "";
  const t = g.last && g.last.thoughts;
  $("thoughts").replaceChildren();
  if (g.last) {
    const d = document.createElement("div");
    d.textContent = `${g.names[g.last.player]} (${g.last.by}) played ${g.last.label}` + (g.last.captured ? `, capturing ${g.last.captured}` : "");
    $("thoughts").appendChild(d);
  }
  if (t) {
    const s = document.createElement("div"); s.id = "thoughts-summary"; s.textContent = t.summary; $("thoughts").appendChild(s);
    if (t.moves && t.moves.length) {
      const tb = document.createElement("table"); tb.className = "visits";
      tb.appendChild(row("th", ["move", "visits", "mean"]));
      for (const m of t.moves) {
        tb.appendChild(row("td", [g.house_labels[g.last.player][m.house], m.visits, m.value == null ? "" : m.value.toFixed(2)]));
      }
      $("thoughts").appendChild(tb);
    }
  }
  $("table-out").textContent = g.table ? `Endgame table: the mover gets ${g.table.value} of the ${g.table.seeds} seeds on the board with perfect play; best: ${g.table.best.map((h) => g.house_labels[g.to_move][h]).join(" ")}` : "";
  $("agent-move").disabled = g.over || seat.person || busy;
  $("hint").disabled = g.over;
  if (!g.over && !seat.person && $("auto").checked && !busy) setTimeout(agentMove, 250);
}

async function run(action) {
  if (busy) return;
  busy = true;
  $("status").textContent = "…";
  try { await action(); $("error").textContent = game && game.error || ""; }
  catch (e) { $("error").textContent = e.message; }
  finally { busy = false; if (game) showGame(game); }
}

function newGame() {
  return run(async () => {
    const seats = [...$("seats").querySelectorAll("input")].map((i) => i.value.trim());
    const body = { rules: $("rules-spec").value.trim() || $("rules").value, seats };
    const seed = $("seed").value.trim();
    if (seed) body.seed = Number(seed);
    $("hint-out").textContent = "";
    game = (await api("POST", "/api/games", body)).data;
  });
}

function personMove(house) {
  return run(async () => { $("hint-out").textContent = ""; game = (await api("POST", `/api/games/${game.id}/move`, { house })).data; });
}

function agentMove() {
  if (!game || game.over || game.seats[game.to_move].person) return;
  return run(async () => {
    let r;
    for (;;) {
      try { r = await api("POST", `/api/games/${game.id}/agent-move`); break; } catch (e) {
        // 503: the server's agents are all thinking (--max-thinking); ask again shortly.
        if (e.status !== 503) throw e;
        $("status").textContent = "The server is busy; waiting…";
        await new Promise((ok) => setTimeout(ok, 500));
      }
    }
    game = r.data;
    while (r.status === 202) {
      showGame(game);
      await new Promise((ok) => setTimeout(ok, 300));
      r = await api("GET", `/api/games/${game.id}`);
      game = r.data;
      if (!game.thinking) break;
      r.status = 202;
    }
  });
}

function init() {
  $("tab-play").onclick = () => { $("play").classList.remove("hidden"); $("replay").classList.add("hidden"); $("tab-play").classList.add("on"); $("tab-replay").classList.remove("on"); };
  $("tab-replay").onclick = () => { $("replay").classList.remove("hidden"); $("play").classList.add("hidden"); $("tab-replay").classList.add("on"); $("tab-play").classList.remove("on"); };
  $("rules").onchange = seatInputs;
  $("rules-spec").oninput = seatInputs;
  $("new-game").onclick = newGame;
  $("agent-move").onclick = agentMove;
  $("undo").onclick = () => run(async () => { game = (await api("POST", `/api/games/${game.id}/undo`)).data; });
  $("hint").onclick = () => run(async () => {
    const h = (await api("GET", `/api/games/${game.id}/hint`)).data;
    $("hint-out").textContent = `Hint: ${h.label} (${h.thoughts.summary})`;
  });
  $("replay-file").onchange = async () => { const f = $("replay-file").files[0]; if (f) $("replay-text").value = await f.text(); };
  $("replay-load").onclick = loadReplay;
  $("replay-game").onchange = () => { replayAt = 0; showReplay(); };
  $("replay-prev").onclick = () => { replayAt = Math.max(0, replayAt - 1); showReplay(); };
  $("replay-next").onclick = () => { replayAt = Math.min(curReplay().frames.length - 1, replayAt + 1); showReplay(); };
  $("replay-first").onclick = () => { replayAt = 0; showReplay(); };
  $("replay-last").onclick = () => { replayAt = curReplay().frames.length - 1; showReplay(); };
  $("replay-slider").oninput = () => { replayAt = +$("replay-slider").value; showReplay(); };
  const dl = document.createElement("datalist"); dl.id = "agent-examples"; document.body.appendChild(dl);
  api("GET", "/api/agents").then((r) => { for (const e of ["human", ...r.data.examples]) { const o = document.createElement("option"); o.value = e; dl.appendChild(o); } });
  api("GET", "/api/presets").then((r) => {
    presets = r.data.presets;
    for (const p of presets) { const o = document.createElement("option"); o.value = p.name; o.textContent = `${p.name} — ${p.title}`; $("rules").appendChild(o); }
    seatInputs();
  });
}

function curReplay() { return replayGames[+$("replay-game").value || 0]; }

async function loadReplay() {
  $("replay-error").textContent = "";
  try {
    replayGames = (await api("POST", "/api/replay", $("replay-text").value)).data.games;
  } catch (e) { $("replay-error").textContent = e.message; return; }
  $("replay-game").replaceChildren(...replayGames.map((g, i) => {
    const o = document.createElement("option");
    o.value = String(i);
    o.textContent = `${i + 1}: ${g.seats.join(" vs ") || g.rules} (${g.result})`;
    return o;
  }));
  $("replay-view").classList.remove("hidden");
  replayAt = 0; showReplay();
}

function showReplay() {
  const g = curReplay(), f = g.frames[replayAt];
  $("replay-slider").max = g.frames.length - 1; $("replay-slider").value = replayAt;
  const board = { players: g.players, houses: g.houses, pits: f.pits, stores: f.stores, to_move: f.to_move, names: g.names, over: replayAt === g.frames.length - 1 };
  const prev = replayAt > 0 ? g.frames[replayAt - 1] : null;
  drawBoard($("replay-board"), board, { prefix: "replay-", last: prev ? { player: prev.to_move, house: f.house } : null });
  $("replay-info").textContent = `ply ${replayAt} of ${g.frames.length - 1}` + (f.move ? `: ${f.move}` : "") +
    ` — stores ${f.stores.join("-")}` + (replayAt === g.frames.length - 1 ? ` — ${g.result}` : "");
}

init();
