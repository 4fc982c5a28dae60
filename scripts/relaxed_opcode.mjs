// Carries i32x4.relaxed_dot_i8x16_i7x16_add_s through Emscripten 3.1.6's link, whose binaryen (108) predates the
// final relaxed-SIMD opcodes: it reads the final opcode 0x113 as its own i16x8.dot_i8x16_i7x16_u, which takes two
// operands, not three, and writes a module that does not validate. Binaryen 108 knows the same three-operand dot-add
// as 0x114. So (both opcodes are 2 bytes of LEB128, so no offset or relocation moves):
//   node scripts/relaxed_opcode.mjs compile -- <compiler command>   compiles with clang 16 (Emscripten's flags,
//       EM_CLANG_ADD_VERSION=16), then writes 0x114 for 0x113 in the object's code;
//   node scripts/relaxed_opcode.mjs finish <module.wasm>             writes 0x113 back in the linked module's code.
// Each rewrite counts the byte pattern in the code section and checks the count against the instructions that wabt's
// wasm-objdump decodes there, so a constant that happened to hold the same bytes fails the build instead of being
// changed: every occurrence is an instruction, or nothing is written.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';

const FINAL = [0xfd, 0x93, 0x02];     // 0xfd 0x113: the relaxed dot-add as the standard (and clang 16, V8) number it
const BINARYEN108 = [0xfd, 0x94, 0x02];  // 0xfd 0x114: the same instruction in binaryen 108's numbering

function fail(message) {
  console.error(`relaxed_opcode: ${message}`);
  process.exit(1);
}

function readLeb(bytes, at) {
  let value = 0, shift = 0, b;
  do {
    b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
  } while (b & 0x80);
  return [value, at];
}

// [start, end) of the code section's payload.
function codeSection(bytes) {
  if (bytes.readUInt32LE(0) !== 0x6d736100) fail('not a wasm file');
  for (let at = 8; at < bytes.length;) {
    const id = bytes[at];
    const [size, payload] = readLeb(bytes, at + 1);
    if (id === 10) return [payload, payload + size];
    at = payload + size;
  }
  return [0, 0];
}

function occurrences(bytes, pattern) {
  const [start, end] = codeSection(bytes);
  const found = [];
  for (let i = bytes.indexOf(Buffer.from(pattern), start); i !== -1 && i + pattern.length <= end;
    i = bytes.indexOf(Buffer.from(pattern), i + 1)) found.push(i);
  return found;
}

// How many instructions wasm-objdump decodes as exactly these bytes (its lines read "offset: bytes | mnemonic").
async function decodedCount(file, pattern) {
  const hex = pattern.map((b) => b.toString(16).padStart(2, '0')).join(' ');
  const objdump = spawn('wasm-objdump', ['-d', file], { stdio: ['ignore', 'pipe', 'inherit'] });
  let count = 0;
  for await (const line of readline.createInterface({ input: objdump.stdout })) {
    const m = /^ *[0-9a-f]+: ([0-9a-f ]+?) *\|/.exec(line);
    if (m && m[1] === hex) ++count;
  }
  const code = await new Promise((resolve) => objdump.on('close', resolve));
  if (code !== 0) fail(`wasm-objdump -d ${file} failed (${code})`);
  return count;
}

function rewrite(file, bytes, at, to) {
  for (const i of at) Buffer.from(to).copy(bytes, i);
  fs.writeFileSync(file, bytes);
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'compile') {
  const command = rest[0] === '--' ? rest.slice(1) : rest;
  const run = spawnSync(command[0], command.slice(1), { stdio: 'inherit', env: { ...process.env, EM_CLANG_ADD_VERSION: '16' } });
  if (run.status !== 0) process.exit(run.status ?? 1);
  const out = command[command.indexOf('-o') + 1];
  const bytes = fs.readFileSync(out);
  const at = occurrences(bytes, FINAL);
  const decoded = await decodedCount(out, FINAL);
  if (decoded !== at.length) fail(`${out}: ${at.length} byte matches in the code but ${decoded} relaxed dot-adds`);
  rewrite(out, bytes, at, BINARYEN108);
} else if (mode === 'finish') {
  const file = rest[0];
  const bytes = fs.readFileSync(file);
  const at = occurrences(bytes, BINARYEN108);
  if (at.length === 0) fail(`${file}: no relaxed dot-add in the code: is the relaxed kernel linked?`);
  rewrite(file, bytes, at, FINAL);
  const decoded = await decodedCount(file, FINAL);
  if (decoded !== at.length) {
    fs.rmSync(file);
    fail(`${file}: rewrote ${at.length} byte matches but wabt decodes ${decoded} relaxed dot-adds; removed the file`);
  }
  console.log(`relaxed_opcode: ${file}: ${at.length} relaxed dot-adds`);
} else {
  fail('usage: relaxed_opcode.mjs compile -- <command> | finish <module.wasm>');
}
