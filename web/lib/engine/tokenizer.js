// tokenizer.js: GPT-2's tokenizer (the wasm core's Tokenizer) as plain JavaScript values.
//
//   const tok = createTokenizer(core, await readBytes(defaultAssets.tokenizer));
//   tok.tokenize('Hello world')   // {ids: [15496, 995], tokens: ['Hello', ' world']}
//   tok.decode([15496, 995])      // 'Hello world'
//
// Text goes into wasm as TextEncoder's UTF-8 (a lone surrogate becomes U+FFFD, as in every JavaScript GPT-2
// tokenizer) and comes back through TextDecoder. A token's display text is its bytes decoded alone: a token
// holding only part of a character shows U+FFFD; tokenSpans() groups such tokens into whole characters.

const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder('utf-8', { ignoreBOM: true });  // keep a leading U+FEFF: decode(encode(s)) == s

export function createTokenizer(core, tokenizerBytes) {
  const handle = core.Tokenizer.fromBytes(tokenizerBytes);
  const vocabSize = handle.vocabSize;
  const texts = new Array(vocabSize);  // display text per id, filled on first use

  const checkText = (text) => {
    if (typeof text !== 'string') throw new TypeError(`expected a string to tokenize, got ${typeof text}`);
  };
  // The engine checks ids; only a valid one (a number: texts['7'] would be texts[7]) is remembered.
  const tokenText = (id) => (typeof id === 'number' ? texts[id] ??= handle.tokenText(id) : handle.tokenText(id));

  return {
    vocabSize,
    eotId: handle.eotId,
    // text -> Int32Array of ids (the fast path: no per-token strings)
    encode(text) {
      checkText(text);
      return handle.encode(utf8Encoder.encode(text));
    },
    // text -> {ids: number[], tokens: string[]} with each token's display text
    tokenize(text) {
      const ids = Array.from(this.encode(text));
      return { ids, tokens: ids.map(tokenText) };
    },
    decode(ids) {
      return utf8Decoder.decode(handle.decode(ids));
    },
    tokenText,
    // text -> the one token it is (' Mary'); an Error naming `what` if it is not exactly one
    singleToken(text, what) {
      checkText(text);
      return handle.singleToken(text, what);
    },
    // ids -> [{first, count, text}]: runs of tokens whose bytes make whole characters together
    tokenSpans(ids) {
      return handle.tokenSpans(ids);
    },
    free() {
      if (!handle.isDeleted()) handle.delete();
    },
  };
}
