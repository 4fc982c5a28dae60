// crafted-files.mjs: model files an attacker would write, built in the tests (never committed).
//   checkpoint(config, {seed, headerOnly})  Hugging Face model.safetensors bytes (F32, Conv1D weights (in, out)) for
//                                           a GPT-2 of that shape; headerOnly: the header and no data
//   tensorAt(arcs, name)                    {entry, offset, size, rows, cols}: where a tensor lives in an .arcs file
//   reseal(arcs)                            recomputes the .arcs checksum after an edit, so the loader's other
//                                           checks are what fire
// The .arcs layout is models/README.md's: an 80-byte header, 96-byte table entries, data from the header's offset.

// The tensors of a GPT-2 with this config, in Hugging Face's names and shapes.
export function hfTensors({ n_layer, n_embd: C, n_positions, vocab_size }) {
  const list = [['wte.weight', [vocab_size, C]], ['wpe.weight', [n_positions, C]]];
  for (let l = 0; l < n_layer; l++) {
    const p = `h.${l}.`;
    list.push([`${p}ln_1.weight`, [C]], [`${p}ln_1.bias`, [C]], [`${p}attn.c_attn.weight`, [C, 3 * C]],
      [`${p}attn.c_attn.bias`, [3 * C]], [`${p}attn.c_proj.weight`, [C, C]], [`${p}attn.c_proj.bias`, [C]],
      [`${p}ln_2.weight`, [C]], [`${p}ln_2.bias`, [C]], [`${p}mlp.c_fc.weight`, [C, 4 * C]],
      [`${p}mlp.c_fc.bias`, [4 * C]], [`${p}mlp.c_proj.weight`, [4 * C, C]], [`${p}mlp.c_proj.bias`, [C]]);
  }
  list.push(['ln_f.weight', [C]], ['ln_f.bias', [C]]);
  return list;
}

export function checkpoint(config, { seed = 1, headerOnly = false } = {}) {
  const tensors = hfTensors(config);
  const header = {};
  let at = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + (headerOnly ? 0 : at));
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  if (!headerOnly) {
    // Small deterministic values; LayerNorm gains near 1 so the model is well behaved.
    const view = new DataView(out.buffer, 8 + json.length);
    let state = seed >>> 0 || 1;
    const next = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5);
    let offset = 0;
    for (const [name, shape] of tensors) {
      const n = shape.reduce((a, b) => a * b, 1);
      const gain = /ln_.\.weight|ln_f\.weight/.test(name);
      for (let i = 0; i < n; i++, offset += 4) view.setFloat32(offset, gain ? 1 + 0.1 * next() : 0.2 * next(), true);
    }
  }
  return out;
}

export function tensorAt(arcs, name) {
  const view = new DataView(arcs.buffer, arcs.byteOffset, arcs.byteLength);
  const count = view.getUint32(40, true);
  const dataOffset = Number(view.getBigUint64(48, true));
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    const entry = 80 + 96 * i;
    const raw = arcs.subarray(entry, entry + 64);
    if (decoder.decode(raw.subarray(0, raw.indexOf(0))) !== name) continue;
    return {
      entry,
      offset: dataOffset + Number(view.getBigUint64(entry + 80, true)),
      size: Number(view.getBigUint64(entry + 88, true)),
      rows: view.getUint32(entry + 72, true),
      cols: view.getUint32(entry + 76, true),
    };
  }
  throw new Error(`no tensor ${name} in this file`);
}

// FNV-1a 64 over everything after the header, as 64-bit little-endian words, stored at byte 64.
export function reseal(arcs) {
  const view = new DataView(arcs.buffer, arcs.byteOffset, arcs.byteLength);
  const prime = 0x100000001b3n, mask = (1n << 64n) - 1n;
  let h = 0xcbf29ce484222325n;
  for (let i = 80; i + 8 <= arcs.length; i += 8) h = ((h ^ view.getBigUint64(i, true)) * prime) & mask;
  view.setBigUint64(64, h, true);
  return arcs;
}
