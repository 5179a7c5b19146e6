// Sleuth's web worksheet, and the page's wiring (loaded last: common.js, fields.js,
// boards.js and design.js come first). Every action is a call of the JSON API
// (docs/api.md); every piece of text from a spec or a session is written with
// textContent or as an attribute value, never parsed as HTML.
"use strict";

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
  const stale = () => !state.sheet || state.sheet.id !== id || state.sheet.steps.length !== steps;
  $("suggestion").textContent = "thinking…";
  try {
    let s;
    // the server answers "pending" while the work goes on (the first use of the search
    // kernels compiles them, a minute or so): ask again until it is done
    for (;;) {
      s = await api("GET", `/api/sessions/${encodeURIComponent(id)}/suggest?strategy=${encodeURIComponent($("strategy").value)}&top=5`);
      if (!s.pending || stale()) break;
      const note = s.compiling
        ? "compiling search kernels, first use only (cached for later)…" : "still thinking…";
      if (s.provisional && s.provisional.suggestion) {  // a quick first answer meanwhile
        const q = s.provisional.suggestion;
        $("suggestion").replaceChildren("so far: ", el("strong", { text: q.text, id: "provisional" }), " ",
          el("button", { type: "button", text: "Use", onclick: () => useQuery(q) }), ` — ${note}`);
      } else {
        $("suggestion").textContent = note;
      }
    }
    if (stale()) return;
    if (!s.suggestion) { $("suggestion").textContent = s.note || ""; return; }
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
