// loader-ui.js: the model loader dialog. A GPT-2 of the family (gpt2-family.js, its sizes and what may stand in the
// way said before the download), or any Hugging Face checkpoint from URLs or local files (picker or
// drag-and-drop) is converted in the worker to the format picked (q16, q8 or f32: model-formats.js; unless one is
// picked, the model's default: q16, or q8 for gpt2-xl and any checkpoint whose q16 file would pass 2 GiB) with a progress
// bar; an .arcs file loads directly. On success onLoaded(info) switches the page to the new model; on failure the
// message stays here and the current model stays.
import { formatBytes } from '../../lib/shared/downloads.js';
import { MODEL_FORMATS, defaultFormat } from './model-formats.js';
import { GPT2_FAMILY, checkpointUrls, loadingLimits } from './gpt2-family.js';
import { DECODER_MODELS } from './decoder-models.js';

// Every model the menu lists: the GPT-2 family, then the other decoders.
const LISTED = [...GPT2_FAMILY, ...DECODER_MODELS];

const $ = (id) => document.getElementById(id);

// One radio button a format, with its line from MODEL_FORMATS, in the fieldset #src-formats.
function renderFormats(fieldset) {
  for (const { dtype, line } of MODEL_FORMATS) {
    const label = document.createElement('label');
    const input = Object.assign(document.createElement('input'), {
      type: 'radio', name: 'src-format', value: dtype, checked: dtype === MODEL_FORMATS[0].dtype,
    });
    const name = Object.assign(document.createElement('strong'), { textContent: dtype });
    const text = Object.assign(document.createElement('span'), { className: 'format-line', textContent: line });
    label.append(input, name, text);
    fieldset.append(label);
  }
}
const pickedFormat = () => document.querySelector('input[name="src-format"]:checked')?.value;
const familyModel = () => LISTED.find((m) => m.id === $('src-family').value);
// The format to convert to: the one picked, or the family model's default (shown checked) for its URLs; for another
// checkpoint or picked files with none picked, undefined: the engine chooses by the config.json (q16, or q8 where
// q16's file would pass 2 GiB).
const formatToConvert = (fromFamily) => ($('src-formats').dataset.picked || fromFamily ? pickedFormat() : undefined);
// Until a format is picked, the radio buttons show the family model's default.
function showDefaultFormat() {
  const model = familyModel();
  if ($('src-formats').dataset.picked || !model) return;
  document.querySelector(`input[name="src-format"][value="${defaultFormat(model.arcs)}"]`).checked = true;
}

// One option a model of the family, GPT-2 small picked, then the other decoders (their downloads estimated: "about");
// "other" for a URL typed in.
function renderFamily(select) {
  const option = (m) => Object.assign(document.createElement('option'), { value: m.id, selected: m.id === 'gpt2',
    textContent: `${m.id} (${m.layers} layers × ${m.heads} heads${m.shape ? `, ${m.architecture}` : ''}): ` +
      `${m.shape ? 'about ' : ''}${formatBytes(m.download)} download, ` +
      `${formatBytes(m.arcs[defaultFormat(m.arcs)])} in ${defaultFormat(m.arcs)}` });
  const group = (label, models) => {
    const g = Object.assign(document.createElement('optgroup'), { label });
    g.append(...models.map(option));
    return g;
  };
  select.append(group('GPT-2', GPT2_FAMILY), group('Other decoders (with their tokenizers)', DECODER_MODELS));
  select.append(Object.assign(document.createElement('option'), { value: '', textContent: 'another checkpoint (its URLs below)' }));
}

// What the model and format picked cost, and what may stand in the way here, before anything is downloaded.
async function describeNeeds() {
  const model = familyModel(), dtype = pickedFormat(), out = $('src-needs');
  if (!model) { out.textContent = ''; $('load-url').disabled = false; return null; }
  const estimate = await navigator.storage?.estimate?.().catch(() => null);
  const device = { memoryGB: navigator.deviceMemory,
    freeBytes: estimate?.quota !== undefined ? estimate.quota - (estimate.usage ?? 0) : undefined };
  const { blocking, notes } = loadingLimits(model, dtype, device);
  const size = model.arcs[dtype];
  out.textContent = blocking ? `Not possible here: ${blocking}.`
    : [`${model.id}: ${model.shape ? 'about ' : ''}${formatBytes(model.download)} to download, ${formatBytes(size)} ` +
        `once converted to ${dtype}${model.shape ? ', and its tokenizer files' : ''}.`,
      ...(model.gated ? [`Note: ${model.repo} is gated: Hugging Face serves its files only to an account that ` +
        'accepted its license, so download model.safetensors, config.json, tokenizer.json and tokenizer_config.json ' +
        'there and pick them below.'] : []),
      ...notes.map((n) => `Note: ${n}.`)].join(' ');
  out.classList.toggle('error', !!blocking);
  $('load-url').disabled = !!blocking;
  return blocking;
}

// The checkpoint a model key names: a .safetensors URL means "convert this checkpoint (config.json beside it)", and
// a model.safetensors.index.json URL the same of a sharded one. (The worker also finds the index where
// model.safetensors is not there: a sharded repository's loads from its model.safetensors URL too.)
export function checkpointSource(url) {
  const file = /[^/?#]+\.safetensors(\.index\.json)?(?=[?#]|$)/.exec(url);
  if (!file) return null;
  const configUrl = url.replace(file[0], 'config.json');
  return file[1] ? { indexUrl: url, configUrl } : { safetensorsUrl: url, configUrl };
}

export function setupLoader(worker, onLoaded) {
  const dialog = $('loader');
  const busy = (on) => {
    for (const id of ['load-url', 'files', 'src-formats', 'src-family']) $(id).disabled = on;
    $('progress').hidden = !on && $('progress-bar').value === 0;
    if (!on) describeNeeds(); // a format the engine cannot hold keeps the button off
  };
  const progress = ({ stage, loaded, total }) => {
    $('progress').hidden = false;
    $('progress-bar').max = total || 1;
    $('progress-bar').value = Math.min(loaded || 0, total || 1);
    $('progress-text').textContent = `${stage}: ${formatBytes(loaded)}${total ? ` of ${formatBytes(total)}` : ''}`;
  };
  const run = async (start) => {
    $('loader-error').hidden = true;
    $('progress-bar').value = 0;
    busy(true);
    try {
      const info = await start();
      $('progress-text').textContent = `Loaded ${info.name}.`;
      onLoaded(info);
      dialog.close();
    } catch (e) {
      $('loader-error').textContent = `Could not load the model: ${e.message}. The current model is still loaded.`;
      $('loader-error').hidden = false;
    } finally {
      busy(false);
    }
  };

  renderFormats($('src-formats'));
  renderFamily($('src-family'));
  // The family model last picked in the menu: kept when its URLs are replaced (a mirror of it), so that the model is
  // named after it if its config.json has its shape.
  let picked = familyModel();
  $('src-family').addEventListener('change', () => {
    const model = familyModel();
    picked = model;
    showDefaultFormat();
    if (model) {
      const { safetensorsUrl, configUrl } = checkpointUrls(model);
      $('src-weights').value = safetensorsUrl;
      $('src-config').value = configUrl;
      delete $('src-config').dataset.edited;
    }
    describeNeeds();
  });
  $('src-formats').addEventListener('change', () => { $('src-formats').dataset.picked = '1'; describeNeeds(); });
  describeNeeds();
  $('open-loader').addEventListener('click', () => dialog.showModal());
  // A new checkpoint URL brings its own config.json (the file beside it) unless the user typed another.
  $('src-weights').addEventListener('input', () => {
    const typed = $('src-weights').value.trim();
    $('src-family').value = LISTED.find((m) => checkpointUrls(m).safetensorsUrl === typed)?.id ?? '';
    showDefaultFormat();
    describeNeeds();
    const source = checkpointSource(typed);
    if (source && !$('src-config').dataset.edited) $('src-config').value = source.configUrl;
  });
  $('src-config').addEventListener('input', () => { $('src-config').dataset.edited = '1'; });
  $('load-url').addEventListener('click', () => {
    const weights = $('src-weights').value.trim(), config = $('src-config').value.trim();
    if (!weights) return;
    if (!checkpointSource(weights)) { run(() => worker.loadModel(weights, progress)); return; } // an .arcs URL
    const source = { ...checkpointSource(weights), ...(config ? { configUrl: config } : {}) };
    run(async () => {
      // Another URL than the picked model's own: a mirror of it, if its config.json says so.
      const mirror = picked && nameFromUrl(weights) !== picked.id;
      const name = checkpointName(weights, picked, mirror ? await fetchConfig(source.configUrl) : null);
      return worker.convertModel(source, weights, name, progress, { dtype: formatToConvert(!!familyModel()) });
    });
  });

  const takeFiles = (files) => {
    files = [...files];
    if (files.length === 0) return;
    const arcs = files.find((f) => f.name.endsWith('.arcs'));
    const key = (f) => `local:${f.name}:${f.size}`;
    if (arcs) {
      run(() => worker.loadModelBytes(arcs, key(arcs), arcs.name, progress));
      return;
    }
    // A sharded checkpoint is named and kept by its index, one file by its model.safetensors.
    const weights = files.find((f) => f.name === 'model.safetensors.index.json') ??
      files.find((f) => f.name.endsWith('.safetensors'));
    if (!files.some((f) => f.name.endsWith('.safetensors'))) {
      $('loader-error').textContent = 'Pick model.safetensors (or model.safetensors.index.json and every shard it ' +
        'lists) and config.json together, with tokenizer.json and tokenizer_config.json for a model other than ' +
        'GPT-2 (or one .arcs file).';
      $('loader-error').hidden = false;
      return;
    }
    run(() => worker.convertModel({ files }, key(weights), weights.name, progress, { dtype: formatToConvert(false) }));
  };
  $('files').addEventListener('change', (e) => takeFiles(e.target.files));
  const drop = $('drop');
  drop.addEventListener('dragover', (e) => { e.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => { e.preventDefault(); drop.classList.remove('over'); takeFiles(e.dataTransfer.files); });
  drop.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); $('files').click(); } });
}

// A checkpoint's config.json, or null where it cannot be read here (the conversion then says why).
const fetchConfig = (url) => fetch(url).then((r) => (r.ok ? r.json() : null)).catch(() => null);

// What a checkpoint at the URL weights is called: the family model picked (picked) when the checkpoint's config
// (its config.json, read) has that model's shape (a mirror of it), else the name its URL gives (nameFromUrl: the
// family model's id for its own URL).
export function checkpointName(weights, picked, config) {
  const shaped = (m) => (m.shape
    ? config?.num_hidden_layers === m.layers && config?.num_attention_heads === m.heads &&
      config?.hidden_size === m.config.hidden_size && config?.vocab_size === m.config.vocab_size
    : config?.n_layer === m.layers && config?.n_head === m.heads && config?.n_embd === m.width &&
      (config?.n_positions ?? config?.n_ctx) === 1024 && config?.vocab_size === 50257);
  return picked && shaped(picked) ? picked.id : nameFromUrl(weights);
}

// A model URL's name: a Hugging Face repository's id, a GPT-2 family checkpoint's own id, else the last two parts
// of its path.
export function nameFromUrl(url) {
  const family = LISTED.find((m) => checkpointUrls(m).safetensorsUrl === url);
  if (family) return family.id;
  const m = url.match(/huggingface\.co\/([^/]+\/[^/]+)\//);
  return m ? m[1] : url.split(/[?#]/)[0].split('/').slice(-2).join('/');
}
