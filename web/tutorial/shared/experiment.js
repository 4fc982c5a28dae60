// experiment.js: the article's experiment, in arcscope's TransformerLens-named API. The tutorial's worker runs this
// very function on the loaded model, and the page shows this file's text beside the Python, so what you read is what
// runs.
export const TROPHY = "The trophy didn't fit in the bag because it was too big";

export function whatDoesItAttendTo(model, { sentence = TROPHY, layer = 8, head = 5, word = 'it', k = 5 } = {}) {
  const tokens = model.toTokens(sentence);         // <|endoftext|> first, as TransformerLens's to_tokens
  const tokenStrings = model.toStrToks(tokens);
  const name = `blocks.${layer}.attn.hook_pattern`;
  const { cache } = model.runWithCache(tokens, { names: [name] });
  const { data, shape: [, T] } = cache[name];       // [n_head, T, T]: query rows, key columns
  // The token that is the word itself: a substring test ('it' in t) would also match ' fit', earlier in the text.
  const pos = tokenStrings.findIndex((t) => t.trim().toLowerCase() === word);
  if (pos < 0) throw new Error(`"${word}" is not a token of the sentence`);
  const row = data.subarray((head * T + pos) * T, (head * T + pos + 1) * T);
  const top = Array.from(row, (score, idx) => ({ idx, token: tokenStrings[idx], score }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k);
  return { layer, head, pos, token: tokenStrings[pos], tokens: tokenStrings, top };
}
