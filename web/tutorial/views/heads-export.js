// heads-export.js: section 7's results as files: the whole run as JSON, and a layer x head heatmap as a standalone
// SVG (colours written into it, no stylesheet) or a PNG drawn on a canvas with the same geometry (no image decoding
// of the SVG, so it works under a strict Content-Security-Policy). The light palette (lib/views/palette.js), as
// export.js.
import { THEME_COLORS } from '../../lib/views/palette.js';
import { svgElement } from '../../lib/views/svg-element.js';
import { standaloneSvg, pngCanvas } from './export.js';

const { heat: pos, 'heat-neg': neg, ink, muted, paper } = THEME_COLORS.light;
const COLORS = { pos, neg, ink, muted, paper };
const CELL = 30, LEFT = 64, TOP = 64, RIGHT = 16, BOTTOM = 40;

// grid: {values (rows * cols), rows, cols, rowLabels, colLabels, scale (|value| drawn at full colour), title, note}
function layout(grid) {
  return { width: LEFT + grid.cols * CELL + RIGHT, height: TOP + grid.rows * CELL + BOTTOM };
}
const opacity = (v, scale) => 0.04 + 0.96 * Math.min(1, Math.abs(v) / (scale || 1));

export function heatmapSvg(grid) {
  const { width, height } = layout(grid);
  const svg = standaloneSvg(width, height, { 'font-family': 'system-ui, sans-serif', 'font-size': 11 }, COLORS.paper);
  const add = (name, a, text) => svgElement(name, a, svg, text);
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
      svgElement('title', {}, r, `${grid.rowLabels[i]}, ${grid.colLabels[j]}: ${v.toFixed(3)}`);
    }
  }
  add('text', { x: 10, y: height - 14, fill: COLORS.muted }, grid.note);
  return svg;
}

export function heatmapPng(grid, scale = 2) {
  const { width, height } = layout(grid);
  const { canvas, ctx } = pngCanvas(width, height, scale, COLORS.paper);
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
