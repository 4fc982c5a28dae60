// svg.js: the page's one SVG element maker: el('line', {x1: 0, ...}, parent, text) -> the element, appended to parent.
const SVG_NS = 'http://www.w3.org/2000/svg';

export function el(name, attrs, parent, text) {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  parent?.append(e);
  return e;
}
