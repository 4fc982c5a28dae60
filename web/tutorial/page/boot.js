// boot.js: starts the engine worker (the tutorial's, with the article's demos) and the default model's download
// before the page's other modules have loaded, so the page is interactive sooner. main.js picks up the same worker.
import { sharedEngine } from '../../lib/worker-client.js';
import { DEFAULT_MODEL } from '../shared/default-model.js';

export const worker = sharedEngine(new URL('../worker/tutorial-worker.js', import.meta.url));

const hash = new URLSearchParams(location.hash.slice(1));
const model = hash.get('model') || DEFAULT_MODEL;
if (!/\.safetensors([?#]|$)/.test(model) && !model.startsWith('local:')) worker.prefetch(model);
