// main.js: wires the tutorial page together. One shared engine worker; the default model loads on open; the view
// state lives in the URL hash.
import { worker } from './boot.js';
import { parseHash, formatHash, defaults } from './state.js';
import { DEFAULT_MODEL } from '../shared/default-model.js';
import { Explorer } from './explorer.js';
import { setupExperiment } from './experiment-panel.js';
import { HeadsMatter } from './heads-matter.js';
import { setupTutorial } from './tutorial.js';
import { setupCost } from './cost.js';
import { setupLoader, checkpointSource, nameFromUrl } from './loader-ui.js';
import { formatBytes } from '../../lib/shared/downloads.js';
import { isCached, nameOf, parseConvertedKey } from '../../lib/shared/model-cache.js';

const $ = (id) => document.getElementById(id);
const isStateHash = (hash) => hash.includes('=');

// A link's settings that are not valid keep their defaults, and the page says which (never silently): those the hash
// alone shows, and those only the model or the text can (a layer past the model's, a token past the text's).
let linkErrors = [];
function showLinkNotice() {
  $('link-notice').hidden = !linkErrors.length;
  $('link-notice').textContent = linkErrors.length ? `This link's ${linkErrors.join('; ')}. The default is used instead.` : '';
}
function readHash() {
  const { state: next, errors } = parseHash(location.hash);
  linkErrors = errors;
  showLinkNotice();
  return next;
}
const state = isStateHash(location.hash) ? readHash() : defaults();
let writtenHash = '';
let heads = null; // section 7 (heads-matter.js): its settings follow the explorer's in the hash
const writeHash = (s) => {
  writtenHash = formatHash(s) + (heads?.hashPart() ?? '');
  if (location.hash !== writtenHash) history.replaceState(null, '', writtenHash);
};
const explorer = new Explorer(worker, state, writeHash, (error) => { linkErrors.push(error); showLinkNotice(); });
heads = new HeadsMatter(worker, { onChange: () => writeHash(state), openLoader: () => $('open-loader').click() });

function status(text, kind) {
  const el = $('model-status');
  el.textContent = text;
  el.className = `status ${kind || ''}`;
}

function showModel(info) {
  const c = info.config;
  const notes = (info.notes ?? []).map((n) => ` (${n})`).join('');  // what the worker chose for it, e.g. an f16 KV cache
  status(`${info.name}: ${c.n_layer} layers × ${c.n_head} heads, width ${c.n_embd}, ${c.dtype}, ${formatBytes(info.size)}` +
    notes, 'ok');
}

// Loads the model a key names (an .arcs URL, a checkpoint URL to convert, or a cached local file); a conversion's
// key may name its format ('q16:' + the URL: lib/shared/model-cache.js's convertedKey), else it is q8.
async function openModel(key) {
  status(`Loading ${nameOf(key)}…`, 'busy');
  const onProgress = (p) => status(`${p.stage}: ${formatBytes(p.loaded)}${p.total ? ` of ${formatBytes(p.total)}` : ''}`, 'busy');
  const { key: checkpoint, dtype } = parseConvertedKey(key);
  const source = checkpointSource(checkpoint);
  const info = source ? await worker.convertModel(source, checkpoint, nameFromUrl(checkpoint), onProgress, { dtype })
    : await worker.loadModel(key, onProgress);
  return info;
}

// The last model the user loaded comes back on the next visit, if its conversion is still in the cache.
const REMEMBER = 'arcscope-last-model';
function remember(key) {
  try { if (key === DEFAULT_MODEL) localStorage.removeItem(REMEMBER); else localStorage.setItem(REMEMBER, key); } catch { /* storage off */ }
}
async function rememberedModel() {
  try {
    const key = localStorage.getItem(REMEMBER);
    return key && await isCached(key) ? key : null;
  } catch {
    return null;
  }
}

// A model the user picked from disk is named local:NAME:SIZE (loader-ui.js), after its format if converted to q16 or
// f32. Its bytes never leave the browser that picked it, so a link to it opens only where the pick is still in
// Cache Storage.
const LOCAL = /^local:(.*):(\d+)$/;
const isLocal = (key) => LOCAL.test(parseConvertedKey(key).key);
async function pickedFileMessage(key) {
  const [, name, size] = LOCAL.exec(parseConvertedKey(key).key) ?? [];
  if (!name || await isCached(key).catch(() => false)) return null;
  return `This link names ${name} (${formatBytes(Number(size))}), a model file picked from a disk on another visit ` +
    'or in another browser. Files picked from disk are never uploaded, and this browser has no copy of it, so the ' +
    'link cannot open it: pick the file again, or load the default model.';
}

let onScreen = null; // the key of the model the explorer shows
// A model that would not open: why, and a way on. With no model on screen the hash keeps naming the one that failed
// (so the link can be read and fixed) until the reader picks another; a model already on screen stays there.
function modelFailed(key, message) {
  $('model-error-text').textContent = message;
  $('model-error').hidden = false;
  $('load-default').hidden = onScreen === DEFAULT_MODEL;
  $('load-default').textContent = key === DEFAULT_MODEL ? 'Try the default model again' : 'Load the default model';
  $('model-error-pick').hidden = !isLocal(key);
  if (explorer.model) {
    state.model = onScreen; // later changes write a link to the model on screen, not to the one that failed
    showModel(explorer.model);
  } else {
    status(`No model loaded: ${key.split('/').pop()} did not open`, '');
  }
}

async function switchModel(key) {
  try {
    const picked = await pickedFileMessage(key);
    if (picked) { modelFailed(key, picked); return; }
    const info = await openModel(key);
    performance.mark('arcscope-model-loaded');
    state.model = onScreen = key;
    $('model-error').hidden = true;
    remember(key);
    showModel(info);
    await explorer.setModel(info);
    heads.setModel(info);
    tutorial.setModel(info);
  } catch (e) {
    modelFailed(key, `Could not load the model ${key}: ${withoutUrl(e.message, key)}`);
  }
}
// The worker's words start with the model's URL where the engine's did not know it (a truncated file); the line
// above names the model already, so it is not said twice.
function withoutUrl(message, key) {
  const url = new URL(key, document.baseURI).href;
  return message.startsWith(`${url}: `) ? message.slice(url.length + 2) : message;
}
$('load-default').addEventListener('click', () => switchModel(DEFAULT_MODEL));
$('model-error-pick').addEventListener('click', () => $('open-loader').click());

setupLoader(worker, (info) => {
  $('model-error').hidden = true;
  state.model = onScreen = info.key;
  remember(info.key);
  showModel(info);
  explorer.setModel(info, { keepView: false }); // GPT-2 small opens on the article's layer 8, head 5
  heads.setModel(info);
  tutorial.setModel(info);
});
setupExperiment(worker, explorer, () => $('open-loader').click());
// The explorer goes first in the worker's queue (it is what "interactive" waits for); the tutorial's small demos
// run once it has drawn, or after two seconds if a big model is still converting. Their controls work at once.
const hashNamesModel = new URLSearchParams(location.hash.slice(1)).has('model');
const opened = (hashNamesModel ? Promise.resolve(null) : rememberedModel())
  .then((key) => switchModel(key || state.model));
const demosMayStart = Promise.race([opened, new Promise((ok) => setTimeout(ok, 2000))]);
const tutorial = setupTutorial(worker, demosMayStart);
setupCost(worker);
worker.ready.then(({ build }) => {
  performance.mark('arcscope-engine-ready');
  $('engine-build').textContent = `Engine: ${build.summary}`; // which module, and why one thread where it is one
}, (e) => status(`The engine could not start: ${e.message}`, ''));

// A pasted link or back/forward: apply the new state.
window.addEventListener('hashchange', () => {
  if (!isStateHash(location.hash) || location.hash === writtenHash) return;
  const next = readHash();
  const modelChanged = next.model !== state.model, textChanged = next.text !== state.text;
  Object.assign(state, next);
  heads.applyHash(location.hash); // before the explorer writes the hash again
  explorer.syncControls();
  if (modelChanged) switchModel(next.model);
  else if (textChanged) explorer.analyze();
  else explorer.set({});
});

// Section links scroll without replacing the state in the hash.
for (const a of document.querySelectorAll('.toc a')) {
  a.addEventListener('click', (e) => {
    e.preventDefault();
    document.querySelector(a.getAttribute('href')).scrollIntoView({ block: 'start' });
  });
}

// For tests and benchmarks: the live objects (read-only use).
window.arcscopePage = { worker, explorer, state, heads };
