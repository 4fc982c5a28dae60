// head-groups.js: which query heads share a key/value head in a grouped-query model (Llama's, SmolLM2's, Qwen's:
// n_kv_head < n_head), for the views that name heads: the head grid, the explorer's head picker, the legend of
// every head and <arc-scope>'s caption. The rule is the engine's: query head h reads key/value head h / (H / KV)
// (integer division), so each key/value head serves H / KV consecutive query heads.

// -> [{kv, first, last}] a group per key/value head, or null when every query head has its own (GPT-2, Pythia:
// nothing to show). H: n_head; KV: n_kv_head (absent: H).
export function kvGroups(H, KV = H) {
  if (!(KV > 0 && KV < H)) return null;
  if (H % KV !== 0) throw new Error(`${H} query heads cannot share ${KV} key/value heads evenly`);
  const size = H / KV;
  return Array.from({ length: KV }, (_, kv) => ({ kv, first: kv * size, last: kv * size + size - 1 }));
}

// The key/value head query head h reads.
export const kvHeadOf = (h, H, KV = H) => Math.floor(h / (H / KV));

// "KV 1: heads 3-5"
export const groupLabel = ({ kv, first, last }) => `KV ${kv}: heads ${first}-${last}`;

// The group of query head h, or null (no grouping).
export function groupOf(h, H, KV = H) {
  const groups = kvGroups(H, KV);
  return groups ? groups[kvHeadOf(h, H, KV)] : null;
}

// A head's column label in a layer x head grid: "head 4", and in a grouped-query model "head 4·KV 1" (within the
// 12 characters a heatmap's label shows, up to head 99); short ("h4") where the cells are small.
export function headColumnLabel(h, H, KV = H, short = false) {
  if (short) return `h${h}`;
  return kvGroups(H, KV) ? `head ${h}\u00B7KV ${kvHeadOf(h, H, KV)}` : `head ${h}`;
}
