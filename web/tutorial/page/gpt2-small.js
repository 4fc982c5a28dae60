// gpt2-small.js: what was written for GPT-2 small (the article's layer 8, head 5, section 7's indirect-object
// preset): whether a model has its layout, and the words on a model that has not.

// GPT-2 small's layout, 12 layers × 12 heads (a narrow test model of that shape counts too).
export const isGpt2SmallShaped = (config) => config.n_layer === 12 && config.n_head === 12;

// "<written> GPT-2 small (12 layers × 12 heads); <name> has L layers × H heads": what `written` says was meant for
// GPT-2 small, and what the loaded model (or none) has instead. The caller goes on with what that means.
export function notGpt2Small(written, model) {
  const has = model ? `${model.name} has ${model.config.n_layer} layers × ${model.config.n_head} heads`
    : 'no model is loaded';
  return `${written} GPT-2 small (12 layers × 12 heads); ${has}`;
}
