// default-model.js: the tutorial's default model, where it is served and which of its heads were taught. The page's
// state, its boot and the head views all ask; none of them owns it.
export const DEFAULT_MODEL = 'models/shakespeare-4l.q8.arcs';

// The default model's two heads that a second loss on their attention taught where to look, during training
// (models/README.md, "Head drills with a head curriculum"). The .arcs file has no field that could say so
// (`arcscope info` shows the shape, dtype and checksum only), so the page knows them by the default model's URL:
// the same file under another URL, or picked from disk, is not marked.
const TAUGHT = [{ layer: 0, head: 0, pattern: 'previous token' }, { layer: 1, head: 0, pattern: 'induction' }];
export function taughtHeads(modelKey) {
  const base = globalThis.document?.baseURI;
  return base && modelKey === new URL(DEFAULT_MODEL, base).href ? TAUGHT : [];
}
