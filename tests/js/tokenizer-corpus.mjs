// tokenizer-corpus.mjs: deterministic (seeded) strings that stress a GPT-2 tokenizer, for the parity tests and the
// benchmark. Each generator covers one kind of text; buildCorpus() mixes them with lines of Shakespeare.
import { readFileSync, existsSync } from 'node:fs';

// mulberry32: small, fast, seeded.
export function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (n) => Math.floor(next() * n);
  next.pick = (list) => list[next.int(list.length)];
  return next;
}

const words = ['the', 'of', 'and', 'attention', 'head', 'token', 'model', 'query', 'key', 'value', 'softmax', 'layer',
  'Transformer', 'GPT', 'browser', 'weights', 'matrix', 'Hello', 'world', 'naïve', 'café', 'façade', 'über', 'Ångström',
  'résumé', 'déjà', 'vu', 'coöperate', 'straße', 'ÆSIR', 'OpenAI', 'JSON', 'x', 'I', 'a', 'an'];
const punctuation = ['.', ',', '!', '?', ';', ':', '...', ' -', ' —', '"', '(', ')', '[', ']', "'", '’', '“', '”', '…'];
const whitespace = [' ', '  ', '   ', '\t', '\n', '\n\n', '\r\n', '\r\n\r\n', ' \n', '\n ', '\t\t', ' \t ', '\u00a0',
  '\u3000', '\u2028', '\u2029', '\u000b', '\f', '\r', '        ', '\n\n\n\n'];
const contractions = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"];
const scripts = [
  '日本語の文章です。', '中文字符测试，汉字。', '한국어 문장입니다', 'カタカナとひらがな', '繁體中文與简体中文',
  'مرحبا بالعالم', 'اللغة العربية جميلة', 'שלום עולם', 'नमस्ते दुनिया', 'हिन्दी भाषा', 'สวัสดีชาวโลก',
  'Привет, мир!', 'Ελληνικά γράμματα', 'Tiếng Việt có dấu', 'ქართული', 'Հայերեն', 'བོད་ཡིག', 'ᏣᎳᎩ',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢', '𝐁𝐨𝐥𝐝', '𐍈𐌰𐌹', '𠜎𠜱𠝹𠱓',
];
const emoji = ['😀', '👍🏽', '👩‍💻', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇯🇵', '🇺🇸', '1️⃣', '#️⃣', '❤️', '🤷🏾‍♀️', '🧑🏻‍🤝‍🧑🏿',
  '🫠', '✨', '☃', '🐈‍⬛', '👁️‍🗨️', '💯', '🔥🔥🔥', '👋🏻👋🏼👋🏽👋🏾👋🏿'];
const combining = ['\u0301', '\u0300', '\u0308', '\u0327', '\u0303', '\u20dd', '\u0489', '\u036f', '\u1ab0', '\ufe0f',
  '\u200d', '\u200c'];
const controls = ['\u0000', '\u0001', '\u0007', '\u0008', '\u001b', '\u001c', '\u001d', '\u001e', '\u001f', '\u007f',
  '\u0085', '\u00ad', '\ufeff', '\u200b', '\u200e', '\u200f', '\u202e', '\u2066', '\ufffd', '\ufffe', '\uffff', '\u0090'];
const numbers = () => [
  (r) => String(r.int(1e6)), (r) => (r() * 1000).toFixed(r.int(5)), (r) => r.int(1e9).toLocaleString('en-US'),
  (r) => `0x${r.int(1 << 30).toString(16)}`, (r) => `${1900 + r.int(200)}-${1 + r.int(12)}-${1 + r.int(28)}`,
  (r) => `+1 (${r.int(900) + 100}) ${r.int(900) + 100}-${r.int(9000) + 1000}`, (r) => `${r.int(100)}%`,
  (r) => `v${r.int(10)}.${r.int(20)}.${r.int(100)}`, () => '٠١٢٣٤٥٦٧٨٩', () => '०१२३४५', () => '１２３４５',
  () => '²³¹⁰', () => 'ⅫⅣ', () => '½¾⅓', () => '①②③', (r) => '9'.repeat(1 + r.int(40)), (r) => `${r.int(100)}abc${r.int(100)}`,
];

const code = [
  'function add(a, b) {\n  return a + b;\n}\n', 'def f(x):\n    if x > 0:\n        return x ** 2\n    return -x\n',
  'for (int i = 0; i < n; ++i) {\n\tsum += a[i] * b[i];\n}', '#include <vector>\nint main() { return 0; }\n',
  'const x = {a: 1, "b": [2, 3], c: null};', 'SELECT * FROM users WHERE id = 42;', '<div class="x">&nbsp;</div>',
  '    \n    \n\tindented\n', 'x=>x*2', 'if(a&&b||!c){d+=e;}', '// comment\n/* block */', 'let s = `${a}${b}`;',
  'import numpy as np\nnp.zeros((3, 4))', '$ ls -la | grep "foo" > out.txt', 'a_b_c = A_B_C', '    return;  \r\n',
];

function prose(r) {
  let s = '';
  const n = 1 + r.int(25);
  for (let i = 0; i < n; i++) {
    let w = r.pick(words);
    if (r() < 0.2) w = w[0].toUpperCase() + w.slice(1);
    if (r() < 0.1) w = w.toUpperCase();
    s += (i && r() < 0.85 ? ' ' : r() < 0.5 ? r.pick(whitespace) : '') + w;
    if (r() < 0.15) s += r.pick(punctuation);
    if (r() < 0.08) s += r.pick(contractions);
  }
  return s;
}

// Contractions in every case, after letters, spaces, digits and punctuation.
function contractionCase(r) {
  const c = r.pick(contractions).split('').map((ch) => (r() < 0.5 ? ch.toUpperCase() : ch)).join('');
  const before = r.pick(['it', 'IT', 'we', 'They', 'x', '', ' ', '1', '!', 'é', '日', "'"]);
  const after = r.pick(['', ' ', 'x', 's', "'", '1', '.', '\n', 'ing']);
  return before + (r() < 0.3 ? c.replace("'", '’') : c) + after;
}

function accents(r) {
  let s = '';
  const n = 1 + r.int(8);
  for (let i = 0; i < n; i++) {
    const base = r.pick(['e', 'a', 'o', 'N', 'z', ' ', '1', 'ş', 'ı']);
    s += base + Array.from({ length: r.int(4) }, () => r.pick(combining)).join('');
    if (r() < 0.3) s += ' ';
  }
  return r() < 0.5 ? s.normalize('NFC') : s.normalize('NFD');
}

// Code points from every plane (no surrogates), assigned or not.
function codePointSoup(r) {
  let s = '';
  const n = 1 + r.int(12);
  for (let i = 0; i < n; i++) {
    const plane = r.pick([0, 0, 0, 0, 1, 2, 14, 15, 16]);
    let cp = plane * 0x10000 + r.int(0x10000);
    if (cp >= 0xd800 && cp < 0xe000) cp = 0x20;
    s += String.fromCodePoint(cp);
  }
  return s;
}

function mixture(r, pieces) {
  const kinds = [prose, contractionCase, accents, codePointSoup, () => r.pick(scripts), () => r.pick(emoji),
    () => r.pick(code), () => r.pick(whitespace), () => r.pick(controls), () => r.pick(numbers())(r)];
  let s = '';
  for (let i = 0; i < pieces; i++) s += r.pick(kinds)(r) + (r() < 0.5 ? r.pick(whitespace) : '');
  return s;
}

// [{kind, text}]: at least `count` generated strings, then Shakespeare lines and paragraphs if the file exists,
// then a few long inputs (marked long: feed them to quadratic reference tokenizers in pieces).
export function buildCorpus({ seed = 2024, count = 2400, shakespeare = null, shakespeareLines = 800 } = {}) {
  const r = rng(seed);
  const out = [];
  const kinds = {
    prose, contraction: contractionCase, accents, soup: codePointSoup,
    script: (r) => r.pick(scripts) + (r() < 0.5 ? ' ' + r.pick(scripts) : ''),
    emoji: (r) => Array.from({ length: 1 + r.int(5) }, () => r.pick(emoji)).join(r() < 0.5 ? '' : ' '),
    code: (r) => r.pick(code) + (r() < 0.3 ? r.pick(code) : ''),
    whitespace: (r) => Array.from({ length: 1 + r.int(6) }, () => r.pick(whitespace) + (r() < 0.5 ? r.pick(words) : '')).join(''),
    control: (r) => Array.from({ length: 1 + r.int(6) }, () => r.pick(controls) + (r() < 0.5 ? r.pick(words) : '')).join(''),
    numbers: (r) => Array.from({ length: 1 + r.int(4) }, () => r.pick(numbers())(r)).join(r.pick([' ', '', ', ', '\n'])),
    mixed: (r) => mixture(r, 2 + r.int(10)),
  };
  const names = Object.keys(kinds);
  for (let i = 0; i < count; i++) {
    const kind = names[i % names.length];
    out.push({ kind, text: kinds[kind](r) });
  }
  // edge cases written out
  for (const text of ['', ' ', '\n', "'", "'s", ' a', 'a ', '  ', ' \n', '\r\n', '\ud800', 'a\udc00b', '\ud83d x',
    "I'M", "DON'T", "it'S", "we'Ll", '\u0085\u001c\ufeff', 'x\u0000y', '<|endoftext|>', 'Ġ', 'ĠĠ', '\u00a0word']) {
    out.push({ kind: 'edge', text });
  }
  if (shakespeare && existsSync(shakespeare)) {
    const text = readFileSync(shakespeare, 'utf8');
    const lines = text.split('\n');
    const paragraphs = text.split('\n\n');
    for (let i = 0; i < shakespeareLines; i++) out.push({ kind: 'shakespeare', text: lines[r.int(lines.length)] });
    for (let i = 0; i < shakespeareLines / 4; i++) out.push({ kind: 'shakespeare', text: paragraphs[r.int(paragraphs.length)] + '\n\n' });
    out.push({ kind: 'long', text: text.slice(0, 120000) });
  }
  out.push({ kind: 'long', text: mixture(rng(seed + 1), 6000).slice(0, 110000) });
  out.push({ kind: 'long', text: 'a'.repeat(20000) });
  out.push({ kind: 'long', text: '日本語'.repeat(4000) });
  out.push({ kind: 'long', text: '7'.repeat(20000) + ' ' + ' '.repeat(5000) + '!'.repeat(5000) });
  return out;
}

// A few MB of mixed text for the benchmark: Shakespeare interleaved with generated multilingual text.
export function benchmarkText(bytes, { seed = 7, shakespeare = null } = {}) {
  const r = rng(seed);
  const play = shakespeare && existsSync(shakespeare) ? readFileSync(shakespeare, 'utf8').split('\n\n') : [];
  const parts = [];
  let size = 0;
  while (size < bytes) {
    const part = play.length && r() < 0.5 ? play[r.int(play.length)] + '\n\n' : mixture(r, 20) + '\n';
    parts.push(part);
    size += Buffer.byteLength(part);
  }
  return parts.join('');
}
