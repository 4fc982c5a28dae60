// gpt2-small.js: what was written for GPT-2 small (the article's layer 8, head 5, section 7's indirect-object
// preset): whether a model is one, and the words on a model that is not.

// GPT-2's architecture at small's layout, 12 layers × 12 heads (a narrow test model of that shape counts too). The
// layout alone is not enough: Pythia-160m has 12 × 12 as well, and its layer 8, head 5 is not GPT-2 small's.
export const isGpt2SmallShaped = (config) =>
  (config.architecture ?? 'gpt2') === 'gpt2' && config.n_layer === 12 && config.n_head === 12;

// "<written> GPT-2 small (12 layers × 12 heads); <name> has L layers × H heads" (or "<name> is a <architecture>
// model of L layers × H heads", when it is not a GPT-2): what `written` says was meant for GPT-2 small, and what the
// loaded model (or none) has instead. The caller goes on with what that means.
export function notGpt2Small(written, model) {
  const { architecture = 'gpt2', n_layer: L, n_head: H } = model?.config ?? {};
  const has = !model ? 'no model is loaded'
    : architecture === 'gpt2' ? `${model.name} has ${L} layers × ${H} heads`
      : `${model.name} is a ${architecture} model of ${L} layers × ${H} heads`;
  return `${written} GPT-2 small (12 layers × 12 heads); ${has}`;
}
