// export.js: the current arcs as a standalone SVG (for papers and posts) and as a PNG. Both are built from the same
// geometry as the live view, with token text set as text, and need no network or inline script to open.
import { ROW, arcPath, arcWidth, arcOpacity } from '../lib/views/arcs.js';
import { HEAD_COLORS } from '../lib/views/palette.js';
import { plainLabel } from '../lib/views/token-text.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
const COL = 150, GAP = 220, TOP = 36;

function colorOf(head, accent) {
  return head < 0 ? accent : HEAD_COLORS[head % HEAD_COLORS.length];
}

// labels: token labels; arcs: [{from, to, head, weight}]; title: a caption line.
export function buildSvg(labels, arcs, title, { accent = '#0b63c4', ink = '#1d2430', paper = '#ffffff' } = {}) {
  const width = COL * 2 + GAP, height = TOP + labels.length * ROW + 12;
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('xmlns', SVG_NS);
  svg.setAttribute('width', String(width));
  svg.setAttribute('height', String(height));
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('font-family', 'DejaVu Sans Mono, Menlo, Consolas, monospace');
  svg.setAttribute('font-size', '13');
  const add = (name, attrs, text) => {
    const e = document.createElementNS(SVG_NS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  add('rect', { width, height, fill: paper });
  add('text', { x: 12, y: 22, fill: ink, 'font-family': 'system-ui, sans-serif', 'font-size': 14 }, title);
  const g = document.createElementNS(SVG_NS, 'g');
  g.setAttribute('transform', `translate(${COL} ${TOP})`);
  g.setAttribute('fill', 'none');
  svg.append(g);
  for (const a of arcs) {
    const p = document.createElementNS(SVG_NS, 'path');
    p.setAttribute('d', arcPath(a.from, a.to, GAP));
    p.setAttribute('stroke', colorOf(a.head, accent));
    p.setAttribute('stroke-width', arcWidth(a.weight).toFixed(2));
    p.setAttribute('stroke-opacity', arcOpacity(a.weight).toFixed(3));
    p.setAttribute('data-from', a.from); p.setAttribute('data-to', a.to);
    p.setAttribute('data-head', a.head); p.setAttribute('data-weight', a.weight.toPrecision(6));
    g.append(p);
  }
  labels.forEach((label, i) => {
    const y = TOP + (i + 0.5) * ROW + 4.5;
    const s = plainLabel(label);
    add('text', { x: COL - 8, y, 'text-anchor': 'end', fill: ink, 'data-token-index': i }, s);
    add('text', { x: COL + GAP + 8, y, fill: ink, 'data-token-index': i }, s);
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

// Draws the same picture on a canvas (no image decoding of the SVG, so it works under a strict CSP).
export function drawPng(labels, arcs, title, { accent = '#0b63c4', ink = '#1d2430', paper = '#ffffff', scale = 2 } = {}) {
  const width = COL * 2 + GAP, height = TOP + labels.length * ROW + 12;
  const canvas = document.createElement('canvas');
  canvas.width = width * scale; canvas.height = height * scale;
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  ctx.fillStyle = paper;
  ctx.fillRect(0, 0, width, height);
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

// Offers a Blob as a file download.
export function download(blob, name) {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 10000);
}
