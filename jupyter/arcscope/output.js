// output.js: what every arcscope output in a notebook runs (figure.py writes it into the output's script element, followed
// by a call with the output's spec). It finds the library in the page, starts it once per page and draws its own
// <arc-scope>. Plain script, no module: front ends run an output's inline scripts, not always its module scripts.
//
// spec: {output: the id of the output's <div>, library: payload id, model: {payload, key, name} or null (precomputed
//        attention: no worker, no wasm), attributes: {name: string}, data: {tokens, shape, attention: base64 of
//        little-endian float32} or null}
// A payload is a script element of type application/json, data-arcscope-payload="ID", holding {files: {path: {type, gzip}}}
// (gzip: the file gzipped, in base64). The library's travels in the first output of a kernel session that needs
// it, a model's in the first that draws with that model (payload.py): later outputs find it in the page. A page
// keeps what it decoded (window.arcscopeNotebook), so an output still draws after the one carrying the payload was
// cleared or re-run in a live session.

// eslint-disable-next-line no-unused-vars -- called by the script figure.py writes after this function
function arcscopeOutput(spec) {
  const started = performance.now();
  const root = document.getElementById(spec.output);
  if (!root) return;
  const state = (window.arcscopeNotebook ??= { payloads: new Map(), element: null, engine: null, models: new Map() });

  const fail = (message) => {
    root.dataset.arcscope = 'error';
    const p = document.createElement('p');
    p.setAttribute('role', 'alert');
    p.style.cssText = 'color: #b00020; font-family: sans-serif;';
    p.textContent = `arcscope: ${message}`;
    root.replaceChildren(p);
  };

  // The payload's script element, once the document has been read to its end (an earlier output may come before
  // the one that carries it: cells run out of order, then saved).
  async function payloadElement(id) {
    const find = () => document.querySelector(`script[data-arcscope-payload="${CSS.escape(id)}"]`);
    if (!find() && document.readyState === 'loading') {
      await new Promise((ok) => document.addEventListener('DOMContentLoaded', ok, { once: true }));
    }
    const found = find();
    if (!found) {
      throw new Error(`this output needs ${id}, which travels in an earlier arcscope output, and that output is not ` +
        'in this page (its cell was cleared, deleted or re-run after this one, or the front end shows each output in ' +
        'a frame of its own). Restart the kernel and run the notebook from the top, then save it.');
    }
    return found;
  }

  // A payload's files as Blobs, by path; decoded once per page.
  function payload(id) {
    if (!state.payloads.has(id)) {
      const decoding = payloadElement(id).then(async (el) => {
        const { files } = JSON.parse(el.textContent);
        const blobs = {};
        for (const [path, { type, gzip }] of Object.entries(files)) {
          const packed = await (await fetch(`data:application/gzip;base64,${gzip}`)).blob();
          const bytes = await new Response(packed.stream().pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
          blobs[path] = new Blob([bytes], { type });
        }
        return blobs;
      });
      decoding.catch(() => state.payloads.delete(id)); // a later output may bring it
      state.payloads.set(id, decoding);
    }
    return state.payloads.get(id);
  }

  // A bundle (scripts/notebook-bundles.mjs) as a module URL, with __arcscopeFile defined for it: the blob: URL of
  // each file the notebook carries, an arcscope-notebook: URL (which nothing serves) for the others.
  async function bundleUrl(blobs, bundle, paths) {
    const urls = {};
    for (const path of paths) urls[path] = URL.createObjectURL(blobs[path]);
    const prelude = `const __arcscopeFile = (path) => (${JSON.stringify(urls)})[path] ?? 'arcscope-notebook:/lib/' + path;\n`;
    return URL.createObjectURL(new Blob([prelude, await blobs[bundle].text()], { type: 'text/javascript' }));
  }

  // The library's files under their lib/ paths (the bundles are under bundle/).
  const libFiles = (blobs) => Object.keys(blobs).filter((p) => !p.startsWith('bundle/'));

  // <arc-scope> and sharedEngine, once per page.
  function element() {
    state.element ??= payload(spec.library).then(async (blobs) => import(await bundleUrl(blobs, 'bundle/element.js',
      libFiles(blobs))));
    return state.element;
  }

  // The page's engine client, its worker started from the worker bundle, once per page.
  function engine() {
    state.engine ??= Promise.all([payload(spec.library), element()]).then(async ([blobs, { sharedEngine }]) =>
      sharedEngine(await bundleUrl(blobs, 'bundle/worker.js', libFiles(blobs))));
    return state.engine;
  }

  // A model payload loaded into the worker under its key, once per page and key. The payload is the bytes' (one per
  // content), the key the file's name and size: the same bytes under another file name are another key, which the
  // worker must hold too, or the element asks for a key nobody loaded.
  function model({ payload: id, key, name }) {
    const loaded = `${id}\n${key}`;
    if (!state.models.has(loaded)) {
      const loading = Promise.all([payload(id), engine()]).then(async ([blobs, client]) => {
        const bytes = new Uint8Array(await blobs.model.arrayBuffer());
        await client.loadModelBytes(bytes, key, name);
      });
      loading.catch(() => state.models.delete(loaded));
      state.models.set(loaded, loading);
    }
    return state.models.get(loaded);
  }

  // A base64 string of little-endian float32 as a Float32Array.
  async function floats(base64) {
    const bytes = await (await fetch(`data:application/octet-stream;base64,${base64}`)).arrayBuffer();
    return new Float32Array(bytes);
  }

  async function draw() {
    root.dataset.arcscope = 'loading';
    await element();
    if (spec.model) await model(spec.model);
    const el = document.createElement('arc-scope');
    for (const [name, value] of Object.entries(spec.attributes)) el.setAttribute(name, value);
    el.addEventListener('arcscope-rendered', () => {
      root.dataset.arcscope = 'drawn';
      root.dataset.arcscopeMs = String(Math.round(performance.now() - started));
    });
    el.addEventListener('arcscope-error', () => { root.dataset.arcscope = 'error'; });
    if (spec.data) {
      const { tokens, shape, attention } = spec.data;
      el.data = { tokens, shape, attention: await floats(attention) };
    }
    root.replaceChildren(el);
  }

  draw().catch((e) => {
    const message = e instanceof Error ? e.message : String(e);
    // Chromium starts no module worker on a file:// page (a classic one it does), so the model cannot run there:
    // that is the cause, whatever the worker's own error guesses (a 404, CORS, a policy), so it comes first.
    if (spec.model && location.protocol === 'file:') {
      fail('this page was opened from a file, where the browser does not start the engine\'s worker: serve its ' +
        `folder (python3 -m http.server) and open it from there. What failed: ${message.replace(/\.?$/, '.')}`);
    } else {
      fail(message);
    }
  });
}
