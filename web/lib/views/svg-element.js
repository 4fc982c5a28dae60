// svg-element.js: the one SVG element maker, of the library's drawings (heatmap.js, arcs.js) and the page's charts
// and exports: svgElement('line', {x1: 0, ...}, parent, text) -> the element, appended to parent when given, made in
// parent's document (else doc, else the page's).
export const SVG_NS = 'http://www.w3.org/2000/svg';

export function svgElement(name, attrs = {}, parent = null, text = undefined, doc = parent?.ownerDocument ?? document) {
  const e = doc.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  parent?.append(e);
  return e;
}
