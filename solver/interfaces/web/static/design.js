// The design view: `sleuth analyse` as jobs, with progress, charts and a cancel button.
"use strict";

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

