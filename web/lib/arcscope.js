// arcscope.js: the engine module's first path, kept because self-hosted pages and scripts load it by URL. The module
// is engine.js (its declarations, types/engine.d.ts); this file only re-exports it.
export * from './engine.js';
