// experiment-panel.js: section 5's "the article's experiment" panel. The button runs experiment.js in the tutorial's
// worker on the loaded model, shows its top 5, and sets the explorer to the same sentence, layer and head with " it"
// pinned; the panel shows experiment.js's own text beside the Python. It needs a layer 8, head 5, and the article's
// claim is about GPT-2 small's: on another model the result says so.
import { TROPHY } from '../shared/experiment.js';
import { isGpt2SmallShaped, notGpt2Small } from './gpt2-small.js';
import { loadGpt2Button } from '../views/load-gpt2-button.js';

const $ = (id) => document.getElementById(id);
const LAYER = 8, HEAD = 5;

export function setupExperiment(worker, explorer, openLoader) {
  fetch(new URL('../shared/experiment.js', import.meta.url))
    .then((r) => (r.ok ? r.text() : Promise.reject(new Error(`HTTP ${r.status}`))))
    .then((code) => { $('experiment-js').textContent = code.trim(); },
      (e) => { $('experiment-js').textContent = `(experiment.js could not be shown: ${e.message})`; });

  $('experiment-run').addEventListener('click', async () => {
    const model = explorer.model;
    const needs = $('experiment-needs');
    if (!model || model.config.n_layer <= LAYER || model.config.n_head <= HEAD) {
      needs.replaceChildren(`${notGpt2Small(`The experiment reads layer ${LAYER}, head ${HEAD} of`, model)}. `);
      needs.append(loadGpt2Button(openLoader));
      needs.hidden = false;
      return;
    }
    needs.hidden = true;
    try {
      const r = await worker.call('itExperiment', { model: model.key });
      show(r, model.name);
      // Another model has a layer 8, head 5 too (GPT-2 XL: one of 1,200 heads), but the article's claim is not about
      // it: say so where the result is.
      const other = !isGpt2SmallShaped(model.config);
      $('experiment-other').hidden = !other;
      $('experiment-other').textContent = other ? `${notGpt2Small("The article's claim is about", model)}: its ` +
        `layer ${LAYER}, head ${HEAD} is another head, with no known role, so what it attends to below says nothing ` +
        'about the claim. Load GPT-2 small to test it.' : '';
      // The explorer shows the same head on the sentence as typed, " it" pinned: without the BOS toTokens put first
      // where the model's tokenizer has one (GPT-2's <|endoftext|>, Llama's <s>; Qwen's and Pythia's have none).
      const { ids } = await worker.call('tokenize', { model: model.key, text: TROPHY, labels: false });
      await explorer.show({ text: TROPHY, layer: LAYER, head: HEAD, token: r.pos - (r.tokens.length - ids.length) });
    } catch (e) {
      needs.textContent = `The experiment failed: ${e.message}`;
      needs.hidden = false;
    }
  });
}

function show({ layer, head, pos, token, top }, name) {
  $('experiment-caption').textContent =
    `${name}, layer ${layer}, head ${head}: token '${token}' at position ${pos} attends most to`;
  $('experiment-top').tBodies[0].replaceChildren(...top.map(({ token: key, idx, score }) => {
    const tr = document.createElement('tr');
    for (const text of [`'${key}'`, String(idx), score.toFixed(3)]) {
      const td = document.createElement('td');
      td.textContent = text;
      tr.append(td);
    }
    return tr;
  }));
  $('experiment-result').hidden = false;
}
