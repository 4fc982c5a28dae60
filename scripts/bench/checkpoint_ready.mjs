// checkpoint_ready.mjs: whether DIR holds a whole checkpoint of the given shape (scripts/bench.sh asks before it
// reuses one, since another job may still be writing it): config.json with these numbers, and a model.safetensors
// exactly as long as its header says. Exits 0 when it does, 1 when not.
//   node scripts/bench/checkpoint_ready.mjs DIR N_LAYER N_HEAD N_EMBD N_CTX VOCAB
import fs from 'node:fs';
import path from 'node:path';

const [dir, ...numbers] = process.argv.slice(2);
const [nLayer, nHead, nEmbd, nCtx, vocab] = numbers.map(Number);

function ready() {
  const configFile = path.join(dir, 'config.json'), weightsFile = path.join(dir, 'model.safetensors');
  if (!fs.existsSync(configFile) || !fs.existsSync(weightsFile)) return false;
  const c = JSON.parse(fs.readFileSync(configFile, 'utf8'));
  if (c.n_layer !== nLayer || c.n_head !== nHead || c.n_embd !== nEmbd || c.n_positions !== nCtx ||
      c.vocab_size !== vocab) return false;
  // safetensors: an 8-byte little-endian header length, the JSON header, then the data its offsets end at.
  const fd = fs.openSync(weightsFile, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    if (size < 8) return false;
    const lengthBytes = Buffer.alloc(8);
    fs.readSync(fd, lengthBytes, 0, 8, 0);
    const headerLength = Number(lengthBytes.readBigUInt64LE());
    if (8 + headerLength > size) return false;
    const header = Buffer.alloc(headerLength);
    fs.readSync(fd, header, 0, headerLength, 8);
    const tensors = Object.entries(JSON.parse(header.toString('utf8'))).filter(([name]) => name !== '__metadata__');
    const dataEnd = Math.max(0, ...tensors.map(([, t]) => t.data_offsets[1]));
    return size === 8 + headerLength + dataEnd;
  } finally {
    fs.closeSync(fd);
  }
}

process.exit(ready() ? 0 : 1);
