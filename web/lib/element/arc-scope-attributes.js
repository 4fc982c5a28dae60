// arc-scope-attributes.js: every attribute of <arc-scope>, declared once. The element takes from here its
// observedAttributes, the properties of the same names, how each value is read and what an absent one means; the
// page's URL hash reads its layer, head, mode, topk and threshold with the same entries. scripts/attributes.mjs
// writes from here the attribute table of docs/embedding.md and of embed.html and the accessors of element.d.ts
// (tests/js/attributes.test.mjs fails when one of them is not what this file says).
//
// Each entry, in the order of the guide's table:
//   parse(value, context)  the attribute's string -> its value, or an Error saying what to write instead
//                          (view-options.js's readers); context: {base (URL to resolve against), layers, heads,
//                          modes}, each optional: without layers, any layer index is taken
//   default                the value of an absent attribute: a constant, or (context) => value
//   defaultDoc             how the guide says that default, where it is not the constant itself
//   doc                    what the value may be, one line of Markdown (backticks, links): the guide's table cell,
//                          and the declaration's doc comment with its default
//   type                   the TypeScript type of a value that may be set (element.d.ts's setter)
import { word, index, topK, fraction, url, LAYER_WORDS, HEAD_WORDS, ELEMENT_MODES, THEMES, LOADINGS, ABLATIONS, SINKS }
  from './view-options.js';

const MODEL_URL = 'the URL of an .arcs model file, or leave it out for the default model';
const SRC_URL = 'the URL of an attention JSON file, or leave it out to run a model on the text';
const anyText = (value) => value;

export const ATTRIBUTES = {
  text: {
    parse: anyText,
    default: null,
    defaultDoc: 'the element\'s text content; needed when the element has child elements, its fallback: see ' +
      '[Fallback children](#lazy-loading-and-fallback-children)',
    doc: 'the text to run through the model',
    type: 'string',
  },
  model: {
    parse: (value, { base } = {}) => url('model', value, base, MODEL_URL),
    default: null,
    defaultDoc: 'the model shipped in `lib/models/`',
    doc: 'URL of an `.arcs` model file',
    type: 'string | URL',
  },
  src: {
    parse: (value, { base } = {}) => url('src', value, base, SRC_URL),
    default: null,
    defaultDoc: 'none',
    doc: 'URL of [precomputed attention](#precomputed-attention) as JSON: drawn without the worker, the wasm or a model',
    type: 'string | URL',
  },
  layer: {
    parse: (value, { layers = Infinity } = {}) => index('layer', value, layers, LAYER_WORDS),
    default: ({ layers }) => layers - 1,
    defaultDoc: 'the last layer',
    doc: 'an integer from 0 to n_layer - 1, or `mean` / `max` over layers',
    type: 'ArcScopeLayer | `${number}`',
  },
  head: {
    parse: (value, { heads = Infinity } = {}) => index('head', value, heads, HEAD_WORDS),
    default: 'all',
    doc: 'an integer from 0 to n_head - 1, `all` (each head in its own colour), or `mean` / `max` over heads',
    type: 'ArcScopeHead | `${number}`',
  },
  mode: {
    // modes: the page's explorer draws arcs and matrices only (view-options.js's MODES)
    parse: (value, { modes = ELEMENT_MODES } = {}) => word('mode', value, modes),
    default: 'arcs',
    doc: '`arcs`, `matrix`, or `ablation`: [the effect of each head](#which-heads-matter-modeablation) on the answer',
    type: 'ArcScopeMode',
  },
  answer: {
    parse: anyText,
    default: null,
    defaultDoc: 'none',
    doc: 'with `mode="ablation"`, and needed there: the answer, one token as text (`" dog"`)',
    type: 'string',
  },
  wrong: {
    parse: anyText,
    default: null,
    defaultDoc: 'none',
    doc: 'with `mode="ablation"`, and needed there: the wrong answer, one token as text (`" cat"`)',
    type: 'string',
  },
  ablate: {
    parse: (value) => word('ablate', value, ABLATIONS),
    default: 'zero',
    doc: 'with `mode="ablation"`: `zero`, or `mean` (each head\'s output replaced by its mean over the positions)',
    type: 'ArcScopeAblationKind',
  },
  topk: {
    parse: (value) => topK('topk', value),
    default: 'auto',
    doc: 'at most this many arcs per token, an integer from 0 (0: all), or `auto`: all of them on a text of up to ' +
      '64 tokens, each token\'s 3 strongest past that',
    type: 'ArcScopeNumber | \'auto\'',
  },
  threshold: {
    parse: (value) => fraction('threshold', value),
    default: 0.02,
    doc: 'only weights at or above it, a number from 0 to 1',
    type: 'ArcScopeNumber',
  },
  sink: {
    parse: (value) => word('sink', value, SINKS),
    default: 'auto',
    doc: 'attention to the first token: `shown`, `hidden` (each row rescaled without it), or `auto`: hidden where it ' +
      'takes more than half of the rows drawn, as many decoders\' heads do, and the caption says so',
    type: 'ArcScopeSink',
  },
  theme: {
    // applied by the CSS (:host([theme])); read to refuse bad values
    parse: (value) => word('theme', value, THEMES),
    default: 'auto',
    doc: '`auto` (the reader\'s `prefers-color-scheme`), `light` or `dark`',
    type: 'ArcScopeTheme',
  },
  loading: {
    parse: (value) => word('loading', value, LOADINGS),
    default: 'eager',
    doc: '`eager`, or `lazy`: nothing is fetched until the element is within 200px of the viewport',
    type: 'ArcScopeLoading',
  },
};

export const ATTRIBUTE_NAMES = Object.keys(ATTRIBUTES);

// The value of attribute name given as value (null: absent, so its default), read in context.
export function readAttribute(name, value, context = {}) {
  const { parse, default: fallback } = ATTRIBUTES[name];
  if (value !== null) return parse(value, context);
  return typeof fallback === 'function' ? fallback(context) : fallback;
}

// How the guide writes attribute name's default: its defaultDoc, or the constant in backticks.
export function defaultDoc(name) {
  const a = ATTRIBUTES[name];
  return a.defaultDoc ?? `\`${a.default}\``;
}
