// embed.js: the embed page's small behaviours: copy the snippet, drive an example's layer attribute, and say which
// build of the engine the examples run on.
import { sharedEngine } from '../lib/worker-client.js';

const $ = (id) => document.getElementById(id);

$('copy-snippet').addEventListener('click', async () => {
  try {
    await navigator.clipboard.writeText($('snippet').textContent);
    $('copy-snippet').textContent = 'Copied';
  } catch {
    $('copy-snippet').textContent = 'Select the text above to copy it';
  }
});

const example = $('example-arcs');
example.addEventListener('arcscope-ready', (e) => { $('example-layer').max = String(e.detail.config.n_layer - 1); });
// An emptied field means the default layer (an empty attribute would be an error).
$('example-layer').addEventListener('input', ({ target: { value } }) => {
  if (value === '') example.removeAttribute('layer'); else example.setAttribute('layer', value);
});

// The examples' shared worker (the same one: sharedEngine() makes one a page): its module and threads, and why one.
sharedEngine().ready.then(({ build }) => { $('engine-build').textContent = `The examples run on the engine's ${build.summary}.`; },
  (e) => { $('engine-build').textContent = `The engine could not start: ${e.message}`; });
