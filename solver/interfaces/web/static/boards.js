// The boards a spec's layout asks for (docs/api.md, `board`), one drawer per kind.
"use strict";

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

