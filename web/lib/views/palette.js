// palette.js: the colours of the drawings: one colour per head, chosen to stay apart for colour-blind readers
// (Okabe-Ito, then Paul Tol's muted), and the light and dark palettes of the views.
export const HEAD_COLORS = [
  '#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00',
  '#882255', '#44AA99', '#999933', '#AA4499', '#332288', '#DDCC77',
];

export function headColor(head) {
  return head < 0 ? null : HEAD_COLORS[head % HEAD_COLORS.length];
}

// The views' colours, light and dark. css/views.css defines them as its custom properties (--ink, ...) for the
// drawings on the page and in <arc-scope>, light and dark, and tests/js/palette.test.mjs checks that it holds
// exactly these; the standalone exports (SVG and PNG, always light) and the canvases write them from here.
// token-hot is the rgb of the highlight behind tokens, as numbers for rgba().
export const THEME_COLORS = {
  light: {
    ink: '#1d2430', muted: '#5f6b7a', paper: '#ffffff', panel: '#f5f7fa', line: '#d9dee5', accent: '#0b63c4',
    'accent-ink': '#ffffff', heat: '#0b63c4', 'heat-neg': '#c2410c', 'heat-bg': '#ffffff', 'token-bg': '#eef2f7',
    'token-hot': '11, 99, 196',
  },
  dark: {
    ink: '#e6eaf0', muted: '#9aa5b4', paper: '#12161c', panel: '#1a2029', line: '#2d3642', accent: '#6cb4ff',
    'accent-ink': '#0b1220', heat: '#6cb4ff', 'heat-neg': '#ff9a5c', 'heat-bg': '#12161c', 'token-bg': '#222a35',
    'token-hot': '108, 180, 255',
  },
};
