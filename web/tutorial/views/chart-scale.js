// chart-scale.js: where a chart's value axis ends: the smallest of 1, 2, 2.5, 5 or 10 times a power of ten that is
// at least the largest value (charts.js's cost chart and heads-views.js's attribution bars share it).
export function niceCeil(v) {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}
