// load-gpt2-button.js: the "Load GPT-2 small…" button that a notice about GPT-2 small ends with (section 5's
// experiment on another model, the heads grid's taught heads), opening the model loader: one button, built here.
export function loadGpt2Button(onClick) {
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'secondary';
  button.textContent = 'Load GPT-2 small…';
  button.addEventListener('click', onClick);
  return button;
}
