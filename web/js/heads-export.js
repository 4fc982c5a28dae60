// heads-export.js: section 7's results as files: the whole run as JSON, and a layer x head heatmap as a standalone
// SVG (colours written into it, no stylesheet) or a PNG drawn on a canvas with the same geometry (no image decoding
// of the SVG, so it works under a strict Content-Security-Policy). Same light palette as export.js.
const SVG_NS = 'http://www.w3.org/2000/svg';
const COLORS = { pos: '#0b63c4', neg: '#c2410c', ink: '#1d2430', muted: '#5f6b7a', paper: '#ffffff' };
const CELL = 30, LEFT = 64, TOP = 64, RIGHT = 16, BOTTOM = 40;

// grid: {values (rows * cols), rows, cols, rowLabels, colLabels, scale (|value| drawn at full colour), title, note}
function layout(grid) {
  return { width: LEFT + grid.cols * CELL + RIGHT, height: TOP + grid.rows * CELL + BOTTOM };
}
const opacity = (v, scale) => 0.04 + 0.96 * Math.min(1, Math.abs(v) / (scale || 1));

export function heatmapSvg(grid) {
  const { width, height } = layout(grid);
  const svg = document.createElementNS(SVG_NS, 'svg');
  const attrs = (e, a) => { for (const [k, v] of Object.entries(a)) e.setAttribute(k, String(v)); return e; };
  attrs(svg, { xmlns: SVG_NS, width, height, viewBox: `0 0 ${width} ${height}`, 'font-family': 'system-ui, sans-serif',
    'font-size': 11 });
  const add = (name, a, text) => {
    const e = attrs(document.createElementNS(SVG_NS, name), a);
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  add('rect', { width, height, fill: COLORS.paper });
  add('text', { x: 10, y: 20, fill: COLORS.ink, 'font-size': 13 }, grid.title);
  grid.colLabels.forEach((s, j) => add('text', { x: LEFT + (j + 0.5) * CELL, y: TOP - 8, fill: COLORS.muted,
    'text-anchor': 'middle' }, s));
  grid.rowLabels.forEach((s, i) => add('text', { x: LEFT - 6, y: TOP + (i + 0.5) * CELL + 4, fill: COLORS.muted,
    'text-anchor': 'end' }, s));
  for (let i = 0; i < grid.rows; i++) {
    for (let j = 0; j < grid.cols; j++) {
      const v = grid.values[i * grid.cols + j];
      const r = add('rect', { x: LEFT + j * CELL, y: TOP + i * CELL, width: CELL - 1, height: CELL - 1,
        fill: v < 0 ? COLORS.neg : COLORS.pos, 'fill-opacity': opacity(v, grid.scale).toFixed(3),
        'data-row': i, 'data-col': j, 'data-value': v });
      const t = document.createElementNS(SVG_NS, 'title');
      t.textContent = `${grid.rowLabels[i]}, ${grid.colLabels[j]}: ${v.toFixed(3)}`;
      r.append(t);
    }
  }
  add('text', { x: 10, y: height - 14, fill: COLORS.muted }, grid.note);
  return svg;
}

export function heatmapPng(grid, scale = 2) {
  const { width, height } = layout(grid);
  const canvas = document.createElement('canvas');
  canvas.width = width * scale; canvas.height = height * scale;
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  ctx.fillStyle = COLORS.paper;
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = COLORS.ink;
  ctx.font = '13px system-ui, sans-serif';
  ctx.fillText(grid.title, 10, 20);
  ctx.font = '11px system-ui, sans-serif';
  ctx.fillStyle = COLORS.muted;
  ctx.textAlign = 'center';
  grid.colLabels.forEach((s, j) => ctx.fillText(s, LEFT + (j + 0.5) * CELL, TOP - 8));
  ctx.textAlign = 'right';
  grid.rowLabels.forEach((s, i) => ctx.fillText(s, LEFT - 6, TOP + (i + 0.5) * CELL + 4));
  for (let i = 0; i < grid.rows; i++) {
    for (let j = 0; j < grid.cols; j++) {
      const v = grid.values[i * grid.cols + j];
      ctx.globalAlpha = opacity(v, grid.scale);
      ctx.fillStyle = v < 0 ? COLORS.neg : COLORS.pos;
      ctx.fillRect(LEFT + j * CELL, TOP + i * CELL, CELL - 1, CELL - 1);
    }
  }
  ctx.globalAlpha = 1;
  ctx.fillStyle = COLORS.muted;
  ctx.textAlign = 'left';
  ctx.fillText(grid.note, 10, height - 14);
  return canvas;
}

// Rows of a flat (rows * cols) array, as plain numbers.
export function rowsOf(values, rows, cols) {
  return Array.from({ length: rows }, (_, i) => Array.from(values.subarray(i * cols, (i + 1) * cols)));
}
