// token-text.js: how a BPE piece is shown. Leading spaces become a faint middle dot, newlines and tabs get visible
// marks, and pieces that hold only part of a UTF-8 character are merged with their neighbours into the character.

// One display piece: {text, lead} where lead is the visible-whitespace prefix shown faintly.
export function displayPiece(text) {
  let lead = '';
  let i = 0;
  while (i < text.length && text[i] === ' ') { lead += '\u00B7'; i++; }
  const body = text.slice(i).replace(/\n/g, '\u21B5').replace(/\t/g, '\u21E5').replace(/\r/g, '\u240D');
  if (!body && lead) return { lead: '', text: lead.replace(/\u00B7/g, '\u2423') };
  return { lead, text: body };
}

// Labels from the tokenizer's spans [{first, count, text}] (runs of tokens whose bytes make whole characters):
// one {lead, text, continuation, group: [start, end)} per token. The first token of a multi-token character shows
// the character; the others show a faint ellipsis.
export function spanLabels(spans, n) {
  const labels = new Array(n);
  for (const { first, count, text } of spans) {
    const shown = displayPiece(text);
    const group = [first, first + count];
    labels[first] = { ...shown, continuation: false, group };
    for (let k = first + 1; k < first + count; k++) labels[k] = { lead: '', text: '\u2026', continuation: true, group };
  }
  return labels;
}

// A model's labels for ids, as the worker sends them with an analysis: spanLabels over its tokenizer's spans
// (model.tokenizer: anything with tokenSpans(ids)); a model without a tokenizer (ids only) labels each token <id>.
export function tokenLabels(tokenizer, ids) {
  if (!tokenizer) return ids.map((id) => ({ lead: '', text: `<${id}>`, continuation: false, group: null }));
  return spanLabels(tokenizer.tokenSpans(ids), ids.length);
}

// Plain one-line label, for tables, titles, exports and result.tokens: what the drawing shows (a continuation's '…').
export function plainLabel(label) {
  return label.lead + label.text;
}
