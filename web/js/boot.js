// boot.js: starts the engine worker and the default model's download before the page's other modules have
// loaded, so the page is interactive sooner. main.js picks up the same shared worker.
import { sharedEngine } from '../lib/worker-client.js';

const hash = new URLSearchParams(location.hash.slice(1));
const model = hash.get('model') || 'models/shakespeare-4l.q8.arcs';
if (!/\.safetensors([?#]|$)/.test(model) && !model.startsWith('local:')) sharedEngine().prefetch(model);
