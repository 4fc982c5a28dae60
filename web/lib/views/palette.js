// palette.js: one colour per head, chosen to stay apart for colour-blind readers (Okabe-Ito, then Paul Tol's muted).
export const HEAD_COLORS = [
  '#0072B2', '#E69F00', '#009E73', '#CC79A7', '#56B4E9', '#D55E00',
  '#882255', '#44AA99', '#999933', '#AA4499', '#332288', '#DDCC77',
];

export function headColor(head) {
  return head < 0 ? null : HEAD_COLORS[head % HEAD_COLORS.length];
}
