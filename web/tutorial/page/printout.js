// printout.js: what the article's print() calls show, written the way PyTorch writes them, for the engine's numbers.
// Pure functions (tests/js/page-logic.test.mjs checks them in Node).

// [2, 8, 64] -> '(2, 8, 64)', as the article's comments write a shape.
export const shapeText = (shape) => `(${shape.join(', ')})`;

// A tensor as print(tensor) shows it: 'tensor([[1., 0.],\n        [1., 1.]])'. Whole numbers print as '1.', others
// with 4 decimals, every entry padded to the widest one (as PyTorch's default print options do).
export function tensorText(data, shape) {
  const values = Array.from(data);
  const whole = values.every((v) => Number.isInteger(v));
  const text = values.map((v) => (whole ? `${v.toFixed(0)}.` : v.toFixed(4)));
  const width = Math.max(...text.map((t) => t.length));
  const padded = text.map((t) => t.padStart(width));
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((a, b) => a * b, 1));
  const nest = (offset, d, indent) => {
    const items = Array.from({ length: shape[d] }, (_, i) => (d === shape.length - 1
      ? padded[offset + i] : nest(offset + i * strides[d], d + 1, indent + 1)));
    // Rows end in one newline; blocks of rows are set apart by one more per level, as PyTorch does.
    const rows = `,${'\n'.repeat(shape.length - d - 1)}${' '.repeat(indent + 1)}`;
    return `[${items.join(d === shape.length - 1 ? ', ' : rows)}]`;
  };
  return `tensor(${nest(0, 0, 'tensor('.length)})`;
}
