// embed.js: the embed page's two small behaviours: copy the snippet, and drive an example's layer attribute.
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
