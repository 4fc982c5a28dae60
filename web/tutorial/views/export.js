// export.js: the current arcs as a standalone SVG (for papers and posts) and as a PNG. Both are built from the same
// geometry as the live view, with token text set as text, and need no network or inline script to open.
import { ROW, arcPath, arcWidth, arcOpacity } from '../../lib/views/arcs.js';
import { HEAD_COLORS, THEME_COLORS } from '../../lib/views/palette.js';
import { SVG_NS, svgElement } from '../../lib/views/svg-element.js';
import { plainLabel } from '../../lib/shared/token-text.js';

const COL = 150, GAP = 220, TOP = 36;
const { accent: ACCENT, ink: INK, paper: PAPER } = THEME_COLORS.light; // exports are light, whatever the page's theme

function colorOf(head, accent) {
  return head < 0 ? accent : HEAD_COLORS[head % HEAD_COLORS.length];
}

// The root of a standalone SVG of width x height, its background painted.
export function standaloneSvg(width, height, attrs, paper) {
  const svg = svgElement('svg', { xmlns: SVG_NS, width, height, viewBox: `0 0 ${width} ${height}`, ...attrs });
  svgElement('rect', { width, height, fill: paper }, svg);
  return svg;
}

// labels: token labels; arcs: [{from, to, head, weight}]; title: a caption line.
export function buildSvg(labels, arcs, title, { accent = ACCENT, ink = INK, paper = PAPER } = {}) {
  const width = COL * 2 + GAP, height = TOP + labels.length * ROW + 12;
  const svg = standaloneSvg(width, height, { 'font-family': 'DejaVu Sans Mono, Menlo, Consolas, monospace',
    'font-size': 13 }, paper);
  svgElement('text', { x: 12, y: 22, fill: ink, 'font-family': 'system-ui, sans-serif', 'font-size': 14 }, svg, title);
  const g = svgElement('g', { transform: `translate(${COL} ${TOP})`, fill: 'none' }, svg);
  for (const a of arcs) {
    svgElement('path', { d: arcPath(a.from, a.to, GAP), stroke: colorOf(a.head, accent),
      'stroke-width': arcWidth(a.weight).toFixed(2), 'stroke-opacity': arcOpacity(a.weight).toFixed(3),
      'data-from': a.from, 'data-to': a.to, 'data-head': a.head, 'data-weight': a.weight.toPrecision(6) }, g);
  }
  labels.forEach((label, i) => {
    const y = TOP + (i + 0.5) * ROW + 4.5;
    const s = plainLabel(label);
    svgElement('text', { x: COL - 8, y, 'text-anchor': 'end', fill: ink, 'data-token-index': i }, svg, s);
    svgElement('text', { x: COL + GAP + 8, y, fill: ink, 'data-token-index': i }, svg, s);
  });
  return svg;
}

// XML 1.0 allows no C0 control but tab, newline and return, no U+FFFE or U+FFFF and no lone surrogate; a browser's
// serializer writes them anyway, and the file then does not parse. C0 controls become their Control Pictures
// (U+0000 -> U+2400), the rest U+FFFD, so the file shows what the text held.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
export function xmlSafe(text) {
  return text.replace(NOT_XML, (c) => (c < '\u0020' ? String.fromCharCode(0x2400 + c.charCodeAt(0)) : '\uFFFD'));
}

export function svgText(svg) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xmlSafe(new XMLSerializer().serializeToString(svg))}\n`;
}

// A canvas for a PNG of width x height CSS pixels at scale, its background painted: -> {canvas, ctx}, ctx in CSS
// pixels. (Drawn directly, no image decoding of an SVG, so it works under a strict CSP.)
export function pngCanvas(width, height, scale, paper) {
  const canvas = document.createElement('canvas');
  canvas.width = width * scale; canvas.height = height * scale;
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  ctx.fillStyle = paper;
  ctx.fillRect(0, 0, width, height);
  return { canvas, ctx };
}

// Draws the same picture on a canvas.
export function drawPng(labels, arcs, title, { accent = ACCENT, ink = INK, paper = PAPER, scale = 2 } = {}) {
  const width = COL * 2 + GAP, height = TOP + labels.length * ROW + 12;
  const { canvas, ctx } = pngCanvas(width, height, scale, paper);
  ctx.fillStyle = ink;
  ctx.font = '14px system-ui, sans-serif';
  ctx.fillText(title, 12, 22);
  ctx.save();
  ctx.translate(COL, TOP);
  ctx.lineCap = 'round';
  for (const a of arcs) {
    ctx.strokeStyle = colorOf(a.head, accent);
    ctx.globalAlpha = arcOpacity(a.weight);
    ctx.lineWidth = arcWidth(a.weight);
    ctx.stroke(new Path2D(arcPath(a.from, a.to, GAP)));
  }
  ctx.restore();
  ctx.globalAlpha = 1;
  ctx.font = '13px "DejaVu Sans Mono", Menlo, Consolas, monospace';
  labels.forEach((label, i) => {
    const y = TOP + (i + 0.5) * ROW + 4.5, s = plainLabel(label);
    ctx.textAlign = 'right'; ctx.fillText(s, COL - 8, y);
    ctx.textAlign = 'left'; ctx.fillText(s, COL + GAP + 8, y);
  });
  return canvas;
}

// Saves a Blob as a file: the browser offers it as a download (the page fetches nothing).
export function saveFile(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}

// Saves an SVG element, or a canvas as a PNG, as a file.
export const saveSvg = (svg, name) => saveFile(new Blob([svgText(svg)], { type: 'image/svg+xml' }), name);
export const savePng = (canvas, name) => canvas.toBlob((blob) => saveFile(blob, name), 'image/png');
