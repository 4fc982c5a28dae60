// tokenizer.js: GPT-2's tokenizer (the wasm core's Tokenizer) as plain JavaScript values, and one read from Hugging
// Face's tokenizer.json (createHfTokenizer, below).
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
  return wrap(handle, {
    eotId: handle.eotId,
    bosId: handle.eotId,  // GPT-2 begins a text with <|endoftext|> (TransformerLens's prepend_bos)
    eosId: handle.eotId,  // and ends one with it, as the Hugging Face tokenizer's eosId says
    // text -> Int32Array of ids (the fast path: no per-token strings)
    encode(text) {
      checkText(text);
      return handle.encode(utf8Encoder.encode(text));
    },
    decode(ids) {
      return utf8Decoder.decode(handle.decode(ids));
    },
  });
}

// A tokenizer read from Hugging Face's tokenizer.json (the wasm core's HfTokenizer) as plain JavaScript values, the
// same calls as GPT-2's where they mean the same. Special tokens (the post-processor's BOS/EOS) are added only when
// asked, as Hugging Face's add_special_tokens; special tokens written in the text are always matched.
//
//   const tok = createHfTokenizer(core, {json: tokenizerJsonText, config: tokenizerConfigText});
//   tok.encode('Hello world')                              // Int32Array [9707, 1879] (Qwen 3)
//   tok.tokenize('Hello', {addSpecialTokens: true})        // {ids: [...], tokens: [...]}
//   tok.decode(ids)                                        // through the file's decoder
//
// json and config: each a string, a parsed object or the file's bytes; config may be absent.
export function createHfTokenizer(core, { json, config = null }) {
  const text = (v) => (v === null || v === undefined || typeof v === 'string' || v instanceof Uint8Array ||
    v instanceof ArrayBuffer ? v : JSON.stringify(v));
  return wrapHfTokenizer(core.HfTokenizer.fromJson(text(json), text(config)));
}

// The core's HfTokenizer handle (fromJson's, or the one a model carries: model.js) as createHfTokenizer gives it.
export function wrapHfTokenizer(handle) {
  return wrap(handle, {
    /** tokenizer_config.json's bos_token and eos_token ids, or -1 */
    bosId: handle.bosId,
    eosId: handle.eosId,
    encode(text, { addSpecialTokens = false } = {}) {
      checkText(text);
      return handle.encode(utf8Encoder.encode(text), addSpecialTokens);
    },
    decode(ids) {
      return handle.decode(ids);  // through the file's decoder
    },
  });
}

const checkText = (text) => {
  if (typeof text !== 'string') throw new TypeError(`expected a string to tokenize, got ${typeof text}`);
};

// What both tokenizers give alike around a core handle; `own` holds their ids, encode and decode.
function wrap(handle, own) {
  const vocabSize = handle.vocabSize;
  const texts = new Array(vocabSize);  // display text per id, filled on first use
  // The engine checks ids; only a valid one (a number: texts['7'] would be texts[7]) is remembered.
  const tokenText = (id) => (typeof id === 'number' ? texts[id] ??= handle.tokenText(id) : handle.tokenText(id));
  return {
    vocabSize,
    ...own,
    // text -> {ids: number[], tokens: string[]} with each token's display text
    tokenize(text, options) {
      const ids = Array.from(this.encode(text, options));
      return { ids, tokens: ids.map(tokenText) };
    },
    tokenText,
    // text -> the one token it is (' Mary'); an Error naming `what` if it is not exactly one
    singleToken(text, what) {
      checkText(text);
      return handle.singleToken(text, what);
    },
    // ids -> [{first, count, text}]: runs of tokens whose bytes make whole characters together (a byte-level piece of
    // an emoji, a byte-fallback "<0xE4>" holds part of one)
    tokenSpans(ids) {
      return handle.tokenSpans(ids);
    },
    free() {
      if (!handle.isDeleted()) handle.delete();
    },
  };
}
