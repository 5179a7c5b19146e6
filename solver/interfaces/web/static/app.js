// Sleuth's web worksheet and design view. Every action is a call of the JSON API
// (docs/api.md); every piece of text from a spec or a session is written with
// textContent or as an attribute value, never parsed as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { specs: [], strategies: [], summaries: {}, sheet: null, forms: [], job: null };

// ---------------------------------------------------------------- helpers

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else if (k === "cls") node.className = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function svg(tag, attrs = {}) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

async function api(method, path, body) {
  $("busy").hidden = false;
  try {
    const opts = { method, headers: {} };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    const res = await fetch(path, opts);
    const data = await res.json().catch(() => ({ error: { text: `server error ${res.status}` } }));
    if (!res.ok) throw Object.assign(new Error(data.error ? data.error.text : res.statusText), { info: data.error });
    return data;
  } finally {
    $("busy").hidden = true;
  }
}

function showError(box, err) {
  box.hidden = !err;
  box.textContent = err ? err.message : "";
}

function bits(x) { return Number(x).toFixed(3); }

function fill(select, items, value) {
  select.replaceChildren(...items.map(([v, label]) => el("option", { value: v, text: label })));
  if (value !== undefined) select.value = value;
}

function fromText(s) {  // a set element or enum-like value typed back: integers as numbers
  return /^-?\d+$/.test(s) ? Number(s) : s;
}

// ---------------------------------------------------------------- fields from the spec

function choice(name) {  // a drop-down that starts on nothing: the player chooses
  return el("select", {}, el("option", { value: "", text: "—" }));
}

function chosen(select, name) {
  if (select.value === "") throw new Error(`choose ${name ? "a value for " + name : "a value"}`);
  return select.value;
}

function field(spec, name) {
  const wrap = el("span", { cls: "field", "data-name": name || "" });
  const k = spec.kind;
  if (k === "int") {
    if (spec.max - spec.min < 40) {
      const s = choice(name);
      for (let v = spec.min; v <= spec.max; v++) s.append(el("option", { value: v, text: v }));
      wrap.append(s);
      wrap.read = () => Number(chosen(s, name));
      wrap.write = (v) => { s.value = v; };
    } else {
      const i = el("input", { type: "number", min: spec.min, max: spec.max, placeholder: `${spec.min}..${spec.max}` });
      wrap.append(i);
      wrap.read = () => {  // empty until typed: nothing the player did not choose
        if (i.value.trim() === "") throw new Error(`choose ${name ? "a value for " + name : "a value"}`);
        return Number(i.value);
      };
      wrap.write = (v) => { i.value = v; };
    }
  } else if (k === "enum" || k === "bool") {
    const values = k === "bool" ? (spec.values || ["false", "true"]) : spec.values;
    const s = choice(name);
    for (const v of values) s.append(el("option", { value: v, text: v }));
    wrap.append(s);
    wrap.read = () => (k === "bool" ? chosen(s, name) === "true" : chosen(s, name));
    wrap.write = (v) => { s.value = String(v); };
  } else if (k === "float" || k === "text") {
    const i = el("input", { type: k === "float" ? "number" : "text", step: "any" });
    wrap.append(i);
    wrap.read = () => (k === "float" ? Number(i.value) : i.value);
    wrap.write = (v) => { i.value = v; };
  } else if (k === "word") {
    const i = el("input", { type: "text", maxlength: spec.length, size: spec.length + 2,
                            placeholder: spec.letters.slice(0, 3).join("") + "…",
                            title: `${spec.length} of: ${spec.letters.join(" ")}`, cls: "word" });
    wrap.append(i);
    wrap.read = () => i.value.trim();
    wrap.write = (v) => { i.value = Array.isArray(v) ? v.join("") : String(v); };
  } else if (k === "seq" || k === "tuple") {
    const parts = k === "tuple" ? spec.items : Array.from({ length: spec.length }, () => spec.elem);
    const subs = parts.map((p, j) => field(p, spec.positions ? spec.positions[j] : null));
    for (const [j, s] of subs.entries()) {
      if (spec.positions) wrap.append(el("label", { text: spec.positions[j] }, s));
      else wrap.append(s);
    }
    wrap.classList.add("pegs");
    wrap.read = () => subs.map((s) => s.read());
    wrap.write = (v) => subs.forEach((s, j) => s.write(v[j]));
  } else if (k === "set") {
    const boxes = spec.values.map((v) => el("input", { type: "checkbox", value: v }));
    spec.values.forEach((v, j) => wrap.append(el("label", { cls: "check" }, boxes[j], v)));
    wrap.read = () => boxes.filter((b) => b.checked).map((b) => fromText(b.value));
    wrap.write = (v) => boxes.forEach((b) => { b.checked = v.map(String).includes(b.value); });
  } else if (k === "counts") {
    const ins = spec.values.map(() => el("input", { type: "number", min: 0, max: spec.total, value: 0, size: 3 }));
    spec.values.forEach((v, j) => wrap.append(el("label", { text: v }, ins[j])));
    wrap.read = () => Object.fromEntries(spec.values.map((v, j) => [v, Number(ins[j].value)]));
    wrap.write = (v) => ins.forEach((x, j) => { x.value = Array.isArray(v) ? v[j] : (v[spec.values[j]] || 0); });
  } else if (k === "record") {
    const subs = spec.fields.map((f) => [f.name, field(f.field, f.name)]);
    for (const [n, s] of subs) wrap.append(el("label", { text: n + " " }, s));
    wrap.read = () => Object.fromEntries(subs.map(([n, s]) => [n, s.read()]));
    wrap.write = (v) => subs.forEach(([n, s]) => s.write(v[n]));
  }
  return wrap;
}

// ---------------------------------------------------------------- the worksheet

async function loadSpecs() {
  const data = await api("GET", "/api/specs");
  state.specs = data.specs;
  state.strategies = data.strategies;
  const items = data.specs.map((s) => [s.ref, `${s.name} (${s.source})`]);
  // the server's landing spec: one it was started with, else its classic
  for (const id of ["spec", "design-spec-a", "design-spec-b"]) fill($(id), items, data.landing || undefined);
  fill($("strategy"), data.strategies.map((s) => [s, s === "auto" ? "auto (entropy; sampled when too many to list)" : s]), "auto");
  fill($("design-strategy"), data.strategies.filter((s) => !["auto", "optimal"].includes(s)).map((s) => [s, s]), "entropy");
  for (const [sel, box] of [["spec", "spec-params"], ["design-spec-a", "design-params-a"], ["design-spec-b", "design-params-b"]]) {
    const fields = () => { $(box).dataset.wanted = $(sel).value; return paramFields($(sel).value, $(box)); };
    $(sel).addEventListener("change", fields);
    fields();
  }
}

async function summary(ref, params = {}) {
  const key = ref + JSON.stringify(params);
  if (!state.summaries[key]) {
    state.summaries[key] = await api("GET", `/api/spec?ref=${encodeURIComponent(ref)}&params=${encodeURIComponent(JSON.stringify(params))}`);
  }
  return state.summaries[key];
}

async function paramFields(ref, box) {
  box.replaceChildren();
  box.dataset.ref = "";  // no fields yet for this spec: paramsFor waits for them
  if (!ref) return;
  try {
    const s = await summary(ref);
    if (box.dataset.ref !== "" || box.dataset.wanted !== ref) return;  // superseded
    for (const [k, v] of Object.entries(s.params)) {
      if (typeof v === "object" && v !== null) continue;  // a hidden param: left as the spec says
      // a word as it is typed (Plum), anything else as JSON; read back by paramsOf
      const bare = typeof v === "string" && (() => { try { JSON.parse(v); return false; } catch (e) { return true; } })();
      const input = el("input", { value: bare ? v : JSON.stringify(v), size: 6, "data-param": k });
      box.append(el("label", { text: k + " " }, input));
    }
    // too large to count at these params: say so, and let them be narrowed
    if (s.error) box.append(el("div", { cls: "error", text: s.error.text }));
    box.dataset.ref = ref;
  } catch (err) {
    box.append(el("span", { cls: "error", text: err.message }));
  }
}

async function paramsFor(select, box) {  // the params typed for the spec now selected
  if (box.dataset.ref !== select.value) {
    box.dataset.wanted = select.value;
    await paramFields(select.value, box);
  }
  return paramsOf(box);
}

function paramsOf(box) {
  const out = {};
  for (const input of box.querySelectorAll("input[data-param]")) {
    let v = input.value.trim();
    try { v = JSON.parse(v); } catch (e) { /* a bare word: a string */ }
    out[input.dataset.param] = v;
  }
  return out;
}

async function loadSessions() {
  const data = await api("GET", "/api/sessions");
  $("sessions").replaceChildren(...data.sessions.map((s) => el("li", {},
    el("button", { type: "button", text: "Open", onclick: () => openSession(s.id) }),
    ` ${s.game}, ${new Date(s.modified * 1000).toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" })}, ${s.steps} step${s.steps === 1 ? "" : "s"}`)));
}

async function openSession(id) {
  if (location.hash !== "#session=" + encodeURIComponent(id)) {
    location.hash = "session=" + encodeURIComponent(id);  // fromHash opens it
    return;
  }
  render(await api("GET", `/api/sessions/${encodeURIComponent(id)}`));
}

async function fromHash() {  // #session=ID: a session to open (a link, a reload, back)
  const m = location.hash.match(/session=([^&]+)/);
  if (!m || (state.sheet && state.sheet.id === decodeURIComponent(m[1]))) return;
  tab("worksheet");
  try {
    render(await api("GET", `/api/sessions/${m[1]}`));
  } catch (err) {
    $("empty").textContent = err.message;
  }
}

async function newGame() {
  showError($("spec-error"), null);
  try {
    const params = await paramsFor($("spec"), $("spec-params"));
    const st = await api("POST", "/api/sessions", { spec: $("spec").value, params });
    const stale = $("spec-params").querySelector(".error");  // the default params' budget note
    if (stale) stale.remove();
    state.sheet = st;  // rendered here: the hash change finds it open
    location.hash = "session=" + encodeURIComponent(st.id);
    render(st);
    loadSessions();
  } catch (err) {
    showError($("spec-error"), err);
  }
}

async function upload() {
  showError($("spec-error"), null);
  // a spec and the data files it reads (several files), or one zip of them
  const chosen = Array.from($("upload-file").files);
  const zip = chosen.find((f) => /\.zip$/i.test(f.name));
  const spec = chosen.find((f) => /\.ya?ml$/i.test(f.name));
  if (!zip && !spec) return showError($("spec-error"), new Error("choose a spec (.yaml) and its data files, or one zip"));
  try {
    let request;
    if (zip) {
      const bytes = new Uint8Array(await zip.arrayBuffer());
      let binary = "";
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      request = { zip: btoa(binary) };
    } else {
      const files = {};
      for (const f of chosen) if (f !== spec) files[f.name] = await f.text();
      request = { name: spec.name, text: await spec.text(), files };
    }
    const res = await api("POST", "/api/specs", request);
    await loadSpecs();
    $("spec").value = res.ref;
    await paramsFor($("spec"), $("spec-params"));
  } catch (err) {
    showError($("spec-error"), err);
  }
}

async function render(st) {
  const changed = !state.sheet || state.sheet.id !== st.id || state.sheet.steps.length !== st.steps.length;
  state.sheet = st;
  $("suggestion").textContent = "";  // the last step's advice is gone at once, not after a wait
  $("top").tBodies[0].replaceChildren();
  if (changed) loadSessions();
  $("empty").hidden = true;
  $("game").hidden = false;
  $("game-title").textContent = st.title;
  $("game-title").title = st.id;  // the session file's name, on hover
  document.title = `${st.title} — Sleuth`;
  $("hypotheses").textContent = st.hypotheses.toLocaleString("en");
  $("hypotheses-noun").textContent = st.hypotheses === 1 ? "hypothesis" : "hypotheses";
  $("entropy").textContent = bits(st.entropy_bits);
  $("undo").disabled = !st.can_undo;
  $("redo").disabled = !st.can_redo;
  const over = $("over");
  over.hidden = !st.over;
  if (st.over) {
    const answer = Object.entries(st.over.answer || {}).map(([k, v]) => `${k} = ${v}`).join(", ");
    const finish = (st.over.finish || []).length  // a cover known: the queries it still takes
      ? ` Known, still to ask: ${st.over.finish.join(", ")} (${st.over.queries + st.over.finish.length} queries in all).` : "";
    over.textContent = st.over.solved
      ? `Solved in ${st.over.queries} quer${st.over.queries === 1 ? "y" : "ies"}${answer ? ": " + answer : ""}.${finish}`
      : `Over after ${st.over.queries} queries: no query tells the last ${st.over.indistinguishable} apart.`;
  }
  // over: no advice, nothing more to record; undo stays
  $("advice").hidden = !!st.over;
  $("record").disabled = !!st.over;
  $("action").disabled = !!st.over;
  renderGrids(st);
  renderHistory(st);
  const s = await summary(st.spec, st.params);
  if (state.forms !== s.forms) {
    state.forms = s.forms;
    fill($("action"), s.forms.map((f) => [f.name, `${f.name} (${f.kind})`]));
    buildForm();
  }
  for (const input of $("fields").querySelectorAll("input, select, button")) input.disabled = !!st.over;
  if (!st.over) suggest();
}

function renderBoard(st) {  // the spec's layout, drawn by its kind
  const box = $("board");
  box.replaceChildren();
  if (st.board) box.append(BOARDS[st.board.kind](st.board, st));
}

function drawGrid(b, st) {  // cells asked with their answers, the rest shaded
  const table = el("table", { cls: "board", "data-query": b.query });
  if (b.shade) table.append(el("caption", { text: `chance of ${b.shade}` }));
  for (let r = 0; r < b.rows; r++) {
    const tr = el("tr");
    for (let c = 0; c < b.cols; c++) {
      const k = r * b.cols + c, cell = b.cells[k];
      const open = cell.seen === null;
      const td = el("td", {
        text: open ? (cell.p === null ? "" : (100 * cell.p).toFixed(0)) : cell.seen,
        title: open ? `${b.cell}=${k}` + (cell.p === null ? "" : `: ${(100 * cell.p).toFixed(1)}% ${b.shade}`) : `${b.cell}=${k}: ${cell.seen}`,
        cls: open ? "open" : "seen", "data-cell": k });
      if (open && cell.p !== null) td.style.setProperty("--p", cell.p);
      if (open && !st.over) td.onclick = () => useQuery({ query: b.query, args: { [b.cell]: k } });
      tr.append(td);
    }
    table.append(tr);
  }
  return table;
}

function keyPegs(b, counts) {  // the count components as small pegs of their colours
  const box = el("span", { cls: "keys", title: b.keys.map((k) => `${k.name} ${counts[k.name]}`).join(", ") });
  for (const k of b.keys) {
    for (let j = 0; j < counts[k.name]; j++) {
      const peg = el("span", { cls: "key", "data-key": k.name });
      peg.style.background = k.colour;
      box.append(peg);
    }
  }
  return box;
}

function piece(b, value, mark) {  // one peg (coloured by its value) or tile (by its mark)
  const p = el("span", { cls: b.kind === "pegs" ? "peg" : "tile", text: value || "" });
  const colour = b.kind === "pegs" ? b.colours[value] : b.colours[mark];
  if (colour) { p.style.background = colour; p.classList.add("filled"); }
  if (mark !== undefined && mark !== null) p.dataset.mark = mark;
  return p;
}

function drawRows(b) {  // a row of pegs or tiles per query asked, then the rows still to play
  const box = el("div", { cls: `rows ${b.kind}-board`, "data-query": b.query });
  for (const row of b.rows) {
    const line = el("div", { cls: "line played" });
    row.code.forEach((v, j) => line.append(piece(b, v, row.marks ? row.marks[j] : null)));
    if (b.keys.length) line.append(keyPegs(b, row.keys));
    if (row.rest) line.append(el("span", { cls: "muted", text: row.rest }));
    box.append(line);
  }
  for (let r = b.rows.length; r < (b.turns || 0); r++) {
    const line = el("div", { cls: "line" });
    for (let j = 0; j < b.length; j++) line.append(piece(b, "", null));
    box.append(line);
  }
  return box;
}

function drawBox(b, st) {  // the box with its ports round it, clockwise from the top left
  const R = b.rows, C = b.cols;
  const portAt = (r, c) => {  // the port number at a border place of the (R+2) x (C+2) table
    if (r === 0 && c >= 1 && c <= C) return c;
    if (c === C + 1 && r >= 1 && r <= R) return C + r;
    if (r === R + 1 && c >= 1 && c <= C) return C + R + (C + 1 - c);
    if (c === 0 && r >= 1 && r <= R) return 2 * C + R + (R + 1 - r);
    return null;
  };
  const table = el("table", { cls: "board box", "data-query": b.query });
  if (b.cells) table.append(el("caption", { text: "chance each cell holds one" }));
  for (let r = 0; r <= R + 1; r++) {
    const tr = el("tr");
    for (let c = 0; c <= C + 1; c++) {
      const port = portAt(r, c);
      let td;
      if (port !== null) {
        const seen = b.ports[port - 1];
        td = el("td", { cls: seen.seen ? "port fired" : "port", text: seen.seen || String(port),
                        title: seen.title || `${b.port}=${port}`, "data-port": port });
        if (!seen.seen && !st.over) td.onclick = () => useQuery({ query: b.query, args: { [b.port]: port } });
      } else if (r >= 1 && r <= R && c >= 1 && c <= C) {
        const k = (r - 1) * C + (c - 1), p = b.cells ? b.cells[k] : null;
        const text = p === null ? "" : p < 0.0005 ? "·" : p >= 0.995 ? "●" : (100 * p).toFixed(0);
        td = el("td", { cls: p !== null && p > 0.6 ? "cell dark" : "cell", "data-cell": k, text,
                        title: p === null ? `cell ${k}` : `cell ${k}: ${(100 * p).toFixed(1)}%` });
        if (p !== null) td.style.setProperty("--p", Math.min(1, p));
      } else {
        td = el("td", { cls: "corner" });
      }
      tr.append(td);
    }
    table.append(tr);
  }
  return table;
}

const BOARDS = { grid: drawGrid, pegs: drawRows, tiles: drawRows, box: drawBox };
const ROWS = ["pegs", "tiles"];  // the boards with a row per query, and pickers on the form

function renderGrids(st) {
  renderBoard(st);
  const box = $("grids");
  box.replaceChildren();
  for (const g of st.grids) {
    const table = el("table", { cls: "grid", "data-variable": g.variable });
    table.append(el("caption", { text: g.variable }));
    const head = el("tr", {}, el("th"));
    for (const c of g.columns) head.append(el("th", { text: c }));
    table.append(el("thead", {}, head));
    const body = el("tbody");
    for (const r of g.rows) {
      const tr = el("tr", {}, el("th", { text: r.position === null ? r.label : r.position }));
      r.cells.forEach((p, j) => {
        const td = el("td", { text: p >= 0.995 ? "✓" : p < 0.0005 ? "·" : (100 * p).toFixed(p < 0.1 ? 1 : 0),
                              title: `${r.label} = ${g.columns[j]}: ${p}`, "data-p": p });
        td.style.setProperty("--p", p);
        tr.append(td);
      });
      body.append(tr);
    }
    table.append(body);
    box.append(table);
  }
  const panels = $("panels");
  panels.replaceChildren();
  for (const p of st.panels) {
    const list = el("table", { cls: "panel" }, el("caption", { text: p.title }));
    for (const r of p.rows) {
      const tr = el("tr", {}, el("th", { text: r.label }));
      if (typeof r.p === "number") {
        const td = el("td", { text: (100 * r.p).toFixed(0) + "%", "data-p": r.p });
        td.style.setProperty("--p", r.p);
        tr.append(td);
      } else {
        for (const [v, q] of Object.entries(r.p)) {
          const td = el("td", { text: `${v} ${(100 * q).toFixed(0)}%`, "data-p": q });
          td.style.setProperty("--p", q);
          tr.append(td);
        }
      }
      list.append(tr);
    }
    panels.append(list);
  }
  // at most 50 left: every one with its chance; else the 5 most likely, unless all are alike
  const listed = st.few || st.likely;
  $("flat").hidden = !st.flat;
  $("likely-title").hidden = !listed.length;
  $("likely-title").textContent = st.few ? `${st.few.length} left` : "Most likely";
  $("likely").replaceChildren(...listed.map((h) => el("li", {
    text: Object.entries(h.value).map(([k, v]) => `${k} = ${v}`).join(", ") + ` (${(100 * h.p).toFixed(1)}%)` })));
}

function renderHistory(st) {
  $("history").tBodies[0].replaceChildren(...st.steps.map((s, k) => el("tr", {},
    el("td", { text: k + 1 }), el("td", { text: s.text }),
    el("td", { text: s.hypotheses.toLocaleString("en") }), el("td", { text: bits(s.entropy_bits) }),
    el("td", { text: bits(s.information_bits) }))));
}

function buildForm() {
  const form = state.forms.find((f) => f.name === $("action").value);
  const box = $("fields");
  box.replaceChildren();
  state.fields = { args: [], outcome: [] };
  if (!form) return;
  for (const a of form.args) {
    const f = field(a.field, a.name);
    state.fields.args.push([a.name, f]);
    box.append(el("div", { cls: "row" }, el("label", { text: a.name }), f));
  }
  box.append(el("div", { cls: "muted", text: form.feedback ? "feedback" : "answer" }));
  const b = state.sheet && state.sheet.board;
  const drawn = b && b.query === form.name && ROWS.includes(b.kind) ? b : null;  // pegs, tiles
  if (form.choices) {
    const f = choicesField(form.choices, drawn);
    state.fields.outcome.push(["", f]);
    box.append(el("div", { cls: "row" }, f));
  } else if (form.feedback) {
    for (const c of form.feedback) {
      const f = field(c.field, c.name);
      state.fields.outcome.push([c.name, f]);
      box.append(el("div", { cls: "row" }, el("label", { text: c.name }), f));
    }
  } else {
    const f = field(form.answer, "answer");
    state.fields.outcome.push(["answer", f]);
    box.append(el("div", { cls: "row" }, f));
  }
  decorate(drawn, form);
}

function choicesField(choices, b) {  // every feedback the game can give, one button each
  const wrap = el("span", { cls: "field choices", role: "radiogroup" });
  const radios = choices.map((c, j) => {
    const names = Object.keys(c);
    const text = names.length === 1 ? String(c[names[0]]) : names.map((n) => `${n} ${c[n]}`).join(", ");
    const input = el("input", { type: "radio", name: "choice", value: j, "aria-label": text });
    const face = el("span", { cls: "face" });
    if (b && b.keys.length && b.keys.every((k) => k.name in c)) face.append(keyPegs(b, c));
    face.append(el("span", { cls: "label", text }));
    wrap.append(el("label", { cls: "choice", title: text }, input, face));
    return input;
  });
  wrap.read = () => {
    const r = radios.find((x) => x.checked);
    if (!r) throw new Error("choose the feedback");
    return choices[Number(r.value)];
  };
  wrap.write = (v) => radios.forEach((x, j) => { x.checked = JSON.stringify(choices[j]) === JSON.stringify(v); });
  return wrap;
}

function decorate(b, form) {  // the layout's pickers: a peg palette, tiles marked by a click
  if (!b || b.query !== form.name || !ROWS.includes(b.kind)) return;
  const code = state.fields.args.find(([n]) => n === b.code);
  if (!code || !code[1].querySelector("input.word")) return;
  const text = code[1].querySelector("input.word");
  const preview = el("span", { cls: "line preview" });
  const marksField = b.marks && state.fields.outcome.find(([n]) => n === b.marks);
  const marks = marksField ? marksField[1].querySelector("input.word") : null;
  const order = Object.keys(b.colours);
  const draw = () => {
    const letters = Array.from(text.value.trim());
    const ms = marks ? Array.from(marks.value.trim()) : [];
    preview.replaceChildren(...Array.from({ length: b.length }, (_, j) => {
      const p = piece(b, letters[j] || "", marks ? (ms[j] || null) : null);
      if (marks) {  // a click turns the tile to the next mark
        p.classList.add("pick");
        p.onclick = () => {
          const now = Array.from({ length: j + 1 }, (_, i) => ms[i] || order[0]);
          now[j] = ms[j] ? order[(order.indexOf(ms[j]) + 1) % order.length] : order[0];
          marks.value = now.concat(ms.slice(j + 1)).join("");
          draw();
        };
      }
      return p;
    }));
  };
  text.addEventListener("input", draw);
  if (marks) marks.addEventListener("input", draw);
  code[1].append(preview);
  if (b.kind === "pegs") {  // a click on a colour adds a peg; the last one can be taken back
    const palette = el("span", { cls: "palette" });
    for (const v of Object.keys(b.colours)) {
      const p = el("button", { type: "button", cls: "peg filled", text: v, title: `colour ${v}`, "data-value": v,
        onclick: () => { if (text.value.length < b.length) text.value += v; draw(); } });
      p.style.background = b.colours[v];
      palette.append(p);
    }
    palette.append(el("button", { type: "button", text: "⌫", title: "take back the last peg",
      onclick: () => { text.value = text.value.slice(0, -1); draw(); } }));
    code[1].append(palette);
  }
  draw();
  code[1].redraw = draw;
}

function useQuery(q) {
  $("action").value = q.query;
  buildForm();
  for (const [name, f] of state.fields.args) {
    if (name in q.args) f.write(q.args[name]);
    if (f.redraw) f.redraw();
  }
}

async function record() {
  showError($("observe-error"), null);
  if ($("record").disabled) return;
  const form = state.forms.find((f) => f.name === $("action").value);
  try {
    const args = Object.fromEntries(state.fields.args.map(([n, f]) => [n, f.read()]));
    const outcome = form.choices ? state.fields.outcome[0][1].read() : form.feedback
      ? Object.fromEntries(state.fields.outcome.map(([n, f]) => [n, f.read()]))
      : state.fields.outcome[0][1].read();
    // the same observation as the last step (the server compares them): recorded only
    // when Record is pressed again with nothing changed
    const key = JSON.stringify([state.sheet.id, state.sheet.steps.length, form.name, args, outcome]);
    try {
      const st = await api("POST", `/api/sessions/${encodeURIComponent(state.sheet.id)}/observe`,
        { query: form.name, args, outcome, repeat: state.repeat === key });
      state.repeat = null;
      buildForm();  // a fresh form: nothing carried over that the player did not choose
      render(st);
      const first = $("fields").querySelector("input, select");
      if (first && !st.over) first.focus();  // keyboard play goes on from the first field
    } catch (err) {
      const said = (err.info && err.info.message) || err.message;
      if (!said.startsWith("the same as step")) throw err;
      state.repeat = key;
      throw new Error(`${said}: press Record again to record it twice`);
    }
  } catch (err) {
    showError($("observe-error"), err);
  }
}

async function step(kind) {
  showError($("observe-error"), null);
  try {
    render(await api("POST", `/api/sessions/${encodeURIComponent(state.sheet.id)}/${kind}`));
  } catch (err) {
    showError($("observe-error"), err);
  }
}

async function suggest() {
  const id = state.sheet.id, steps = state.sheet.steps.length;
  $("suggestion").textContent = "thinking…";
  try {
    const s = await api("GET", `/api/sessions/${encodeURIComponent(id)}/suggest?strategy=${encodeURIComponent($("strategy").value)}&top=5`);
    if (!state.sheet || state.sheet.id !== id || state.sheet.steps.length !== steps) return;  // stale
    if (!s.suggestion) { $("suggestion").textContent = ""; return; }
    const gain = s.suggestion.gain_bits === null ? "" : ` — expected gain ${bits(s.suggestion.gain_bits)} bits`;
    $("suggestion").replaceChildren(`${s.strategy}: `, el("strong", { text: s.suggestion.text, id: "suggested" }), gain, " ",
      el("button", { type: "button", text: "Use", id: "use-suggestion", onclick: () => useQuery(s.suggestion) }));
    $("top").tBodies[0].replaceChildren(...s.top.map((q) => el("tr", {},
      el("td", { text: q.text }), el("td", { text: bits(q.gain_bits) }),
      el("td", {}, el("button", { type: "button", text: "Use", onclick: () => useQuery(q) })))));
  } catch (err) {
    $("suggestion").textContent = err.message;
  }
}

// ---------------------------------------------------------------- the design view

async function analyse() {
  showError($("design-error"), null);
  const secrets = $("design-secrets").value ? Number($("design-secrets").value) : null;
  const runs = [[$("design-spec-a").value, await paramsFor($("design-spec-a"), $("design-params-a"))]];
  if ($("design-compare").checked) runs.push([$("design-spec-b").value, await paramsFor($("design-spec-b"), $("design-params-b"))]);
  const reports = $("reports");
  reports.replaceChildren();
  const jobs = [];
  try {
    for (const [spec, params] of runs) {
      const job = await api("POST", "/api/analyses", { spec, params, strategy: $("design-strategy").value, secrets });
      const box = el("section", { cls: "box report" }, el("h2", { text: job.what }), el("progress", { max: 1, value: 0 }), el("p", { cls: "muted stage" }));
      reports.append(box);
      jobs.push([job.id, box]);
    }
  } catch (err) {
    return showError($("design-error"), err);
  }
  state.job = jobs.map(([id]) => id);
  $("cancel").hidden = false;
  const pending = new Set(jobs.map(([id]) => id));
  while (pending.size) {
    await new Promise((r) => setTimeout(r, 300));
    for (const [id, box] of jobs) {
      if (!pending.has(id)) continue;
      const j = await api("GET", `/api/analyses/${id}`);
      const bar = box.querySelector("progress");
      bar.max = j.total || 1; bar.value = j.done;
      box.querySelector(".stage").textContent = `${j.state}: ${j.stage} ${j.total ? `${j.done}/${j.total}` : ""} (${j.seconds} s)`;
      if (["done", "failed", "cancelled"].includes(j.state)) {
        pending.delete(id);
        bar.remove();
        if (j.state === "done") report(box, j.result);
        if (j.state === "failed") box.append(el("p", { cls: "error", text: j.error.text }));
      }
    }
  }
  $("cancel").hidden = true;
}

async function cancel() {
  for (const id of state.job || []) await api("DELETE", `/api/analyses/${id}`);
}

function report(box, r) {
  box.append(el("p", { text: `${r.hypotheses.toLocaleString("en")} hypotheses, ${bits(r.entropy_bits)} bits; strategy ${r.strategy}` }));
  box.append(el("table", { cls: "numbers" },
    el("tr", {}, el("th", { text: "spatial interest" }), el("td", { text: bits(r.spatial_interest_bits) + " bits", cls: "spatial" })),
    el("tr", {}, el("th", { text: "temporal interest" }), el("td", { text: bits(r.temporal_interest_bits) + " bits", cls: "temporal" })),
    el("tr", {}, el("th", { text: "average length" }), el("td", { text: `${r.lengths.average.toFixed(4)} (${r.lengths.average_fraction}), worst ${r.lengths.worst}` }))));
  box.append(el("h3", { text: `First moves: ${r.first_moves.queries.toLocaleString("en")} queries in ${r.first_moves.classes.length} classes` }));
  const t = el("table", { cls: "moves" }, el("tr", {}, ...["example", "queries", "entropy left (bits)", "parts", "largest"].map((h) => el("th", { text: h }))));
  for (const c of r.first_moves.classes.slice(0, 12)) {
    const ex = c.example.args ? [c.example.query, ...Object.entries(c.example.args).map(([k, v]) => `${k}=${JSON.stringify(v)}`)].join(" ")
      : JSON.stringify(c.example);
    t.append(el("tr", {}, el("td", { text: ex }),
      el("td", { text: c.queries }), el("td", { text: bits(c.expected_entropy_bits) }), el("td", { text: c.parts }), el("td", { text: c.largest_part })));
  }
  box.append(t);
  box.append(el("h3", { text: "Entropy per round (min, mean, max)" }), bandChart(r.entropy_per_round));
  box.append(el("h3", { text: "Game lengths" }), histogram(r.lengths.histogram));
}

function bandChart(rounds) {
  const w = 360, h = 160, pad = 34;
  const top = Math.max(...rounds.map((r) => r.maximum), 1e-9);
  const x = (i) => pad + (i * (w - 2 * pad)) / Math.max(1, rounds.length - 1);
  const y = (v) => h - pad + 4 - (v * (h - 2 * pad)) / top;
  const s = svg("svg", { viewBox: `0 0 ${w} ${h}`, class: "chart", role: "img" });
  const band = rounds.map((r, i) => `${x(i)},${y(r.maximum)}`).concat(rounds.slice().reverse().map((r, j) => `${x(rounds.length - 1 - j)},${y(r.minimum)}`));
  s.append(svg("polygon", { points: band.join(" "), class: "band" }));
  s.append(svg("polyline", { points: rounds.map((r, i) => `${x(i)},${y(r.mean)}`).join(" "), class: "mean" }));
  s.append(svg("line", { x1: pad, y1: h - pad + 4, x2: w - pad, y2: h - pad + 4, class: "axis" }));
  rounds.forEach((r, i) => {
    const label = svg("text", { x: x(i), y: h - 8, class: "tick" });
    label.textContent = r.round;
    s.append(label);
  });
  const ymax = svg("text", { x: 2, y: y(top) + 4, class: "tick ylabel" });
  ymax.textContent = bits(top).replace(/\.?0+$/, "");
  s.append(ymax);
  return s;
}

function histogram(hist) {
  const entries = Object.entries(hist).map(([k, v]) => [Number(k), v]);
  const w = 360, h = 160, pad = 24;
  const most = Math.max(...entries.map(([, v]) => v));
  const bw = (w - 2 * pad) / entries.length;
  const s = svg("svg", { viewBox: `0 0 ${w} ${h}`, class: "chart", role: "img" });
  entries.forEach(([k, v], i) => {
    const bh = (v * (h - 2 * pad)) / most;
    s.append(svg("rect", { x: pad + i * bw + 2, y: h - pad - bh, width: bw - 4, height: bh, class: "bar" }));
    const t = svg("text", { x: pad + i * bw + bw / 2, y: h - 8, class: "tick" });
    t.textContent = k;
    s.append(t);
    const c = svg("text", { x: pad + i * bw + bw / 2, y: h - pad - bh - 3, class: "tick" });
    c.textContent = v;
    s.append(c);
  });
  return s;
}

// ---------------------------------------------------------------- wiring

function tab(name) {
  for (const v of ["worksheet", "design"]) {
    $(v).hidden = v !== name;
    $("tab-" + v).classList.toggle("active", v === name);
  }
}

document.addEventListener("DOMContentLoaded", async () => {
  $("tab-worksheet").addEventListener("click", () => tab("worksheet"));
  $("tab-design").addEventListener("click", () => tab("design"));
  $("new-game").addEventListener("click", newGame);
  $("upload").addEventListener("click", upload);
  $("action").addEventListener("change", buildForm);
  $("record").addEventListener("click", record);
  // keyboard play: type the query and its outcome, then Enter records
  $("fields").addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); record(); } });
  $("undo").addEventListener("click", () => step("undo"));
  $("redo").addEventListener("click", () => step("redo"));
  $("suggest").addEventListener("click", suggest);
  $("strategy").addEventListener("change", suggest);
  $("analyse").addEventListener("click", analyse);
  $("cancel").addEventListener("click", cancel);
  await loadSpecs();
  await loadSessions();
  window.addEventListener("hashchange", fromHash);
  await fromHash();
  document.body.dataset.ready = "1";
});
