// arc-scope.js: the <arc-scope> element module's first path, kept because self-hosted pages load it by URL
// (<script type="module" src=".../lib/arc-scope.js">). The module is element.js (its declarations,
// types/element.d.ts); importing this file defines the element too.
export * from './element.js';
