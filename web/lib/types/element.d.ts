// element.d.ts: the types of element.js (and of arc-scope.js, its first path), the <arc-scope> element. Importing
// the module defines the element.
// tests/js/declarations.test.mjs checks that the names here match the JavaScript.
import type { EngineBuild, ModelConfig, NumberArray } from './engine.js';

/** An integer layer from 0 to n_layer - 1, or every layer combined. */
export type ArcScopeLayer = number | 'mean' | 'max';
/** An integer head from 0 to n_head - 1, every head in its own colour ('all'), or every head combined. */
export type ArcScopeHead = number | 'all' | 'mean' | 'max';
/** Attention as arcs or a matrix, or (ablation) the head-effect heatmap of an ablation sweep. */
export type ArcScopeMode = 'arcs' | 'matrix' | 'ablation';
/** How mode="ablation" removes a head: its output set to zero, or to its mean over the positions. */
export type ArcScopeAblationKind = 'zero' | 'mean';
export type ArcScopeTheme = 'light' | 'dark' | 'auto';
export type ArcScopeLoading = 'eager' | 'lazy';
export type ArcScopeSink = 'auto' | 'shown' | 'hidden';

/**
 * Attention computed elsewhere (arcscope run --out, TransformerLens, Hugging Face), for the `data` property and the
 * JSON file at `src`. Weights are finite numbers from 0 to 1.
 */
export interface ArcScopeData {
  /** each token's text, as the tokenizer split it (T tokens, at least one) */
  tokens: readonly string[];
  /**
   * [layer][head][query][key] nested arrays ([L][H][T][T]), or the same numbers flat and row-major (a plain array
   * or a typed array, e.g. a Float32Array) with `shape`. Rows need not sum to 1 nor be causal.
   */
  attention: readonly (readonly (readonly (readonly number[])[])[])[] | NumberArray;
  /** [n_layer, n_head, T, T]: needed with flat attention, checked against nested attention */
  shape?: readonly [n_layer: number, n_head: number, queries: number, keys: number] | null;
  /** one non-negative integer id per token */
  ids?: readonly number[] | null;
  /** a name for the caption */
  model?: string | null;
}

/** mode="ablation": the metric logit(answer) - logit(wrong) after the text, with each head ablated alone. */
export interface ArcScopeAblation {
  /** the metric with every head */
  baseline: number;
  /** [n_layer, n_head] flat: the metric with layer l, head h ablated at l * n_head + h */
  metric: Float32Array;
  /** metric - baseline, in the same layout: what each cell is coloured by */
  effect: Float32Array;
  shape: [n_layer: number, n_head: number];
  /** the answer and wrong attributes, as given */
  answer: string;
  wrong: string;
  kind: ArcScopeAblationKind;
}

/** One arc drawn: query token `from` attends to key token `to` with `weight` in `head` (-1: a mean or max). */
export interface ArcScopeArc {
  from: number;
  to: number;
  head: number;
  weight: number;
}

/** What the element drew last (the layer, head and mode as read from the attributes). */
export interface ArcScopeResult {
  /** each token's label as drawn (leading spaces as '·', '…' for the rest of a character split over tokens) */
  tokens: string[];
  /** the token ids; null for data or src without "ids" */
  ids: number[] | null;
  /**
   * [n_layer, n_head, T, T] flat: layer l, head h, query i, key j at ((l * n_head + h) * T + i) * T + j. Always for
   * src and data; for a model's text only while the whole tensor is at most 16 MB (GPT-2 small: up to 166 tokens),
   * else null: use pattern().
   */
  attention: Float32Array | null;
  shape: [n_layer: number, n_head: number, queries: number, keys: number];
  layer: ArcScopeLayer;
  head: ArcScopeHead;
  mode: ArcScopeMode;
  /** whether attention to the first token was drawn (modes "arcs" and "matrix"): the sink attribute, or what "auto" chose */
  sink?: 'shown' | 'hidden';
  /**
   * The exact [T, T] weights (query rows) of one layer and head, or of a mean or max over layers or heads (layers
   * combined first), whatever the text's length: computed in the engine's worker when needed. Do not change it.
   */
  pattern(layer: number | 'mean' | 'max', head: number | 'mean' | 'max'): Promise<Float32Array>;
  /** The arcs drawn (mode "arcs"; empty otherwise), as SVG paths or on the canvas that many arcs are drawn on. */
  drawnArcs(): ArcScopeArc[];
  /** mode="ablation" only: the sweep drawn (tokens, ids and attention are then the text's, as in the other modes) */
  ablation?: ArcScopeAblation;
}

/** arcscope-ready's detail: a model or attention data has loaded (fired again each time the source changes). */
export interface ArcScopeReadyDetail {
  /** the model's name (its file name), or data's / src's "model" field, null when it has none */
  model: string | null;
  /** the model's config; null for data and src */
  config: ModelConfig | null;
  /** n_layer */
  layers: number;
  /** n_head */
  heads: number;
  /**
   * the engine's build, as engine.build (which module runs, on how many threads and why, e.g. summary "SIMD128, one
   * thread: this page is not cross-origin isolated …"); null for data and src, which need no engine
   */
  build: EngineBuild | null;
}

/** arcscope-rendered's detail: a view was drawn (element.result holds it). */
export interface ArcScopeRenderedDetail {
  /** how many tokens */
  tokens: number;
  layer: ArcScopeLayer;
  head: ArcScopeHead;
  mode: ArcScopeMode;
}

/** arcscope-error's detail: what is wrong, as the element shows it (fired once per failed render). */
export interface ArcScopeErrorDetail {
  message: string;
}

/** A number, or the same written as a string ('0.5'). */
export type ArcScopeNumber = number | `${number}`;

/**
 * <arc-scope>: a text's attention as arcs or a matrix.
 *
 * Each attribute has a property of its name that reads the attribute's string, or null when it is absent, and sets
 * it: null or undefined removes it, anything else is set as its string (`el.layer = 3` sets layer="3", and
 * `el.layer` then reads '3'). A value that is not valid shows an error inside the element and fires arcscope-error.
 * The attention comes from one of `data`, `src` or `model` (giving two is an error), and text goes with a model only.
 */
export declare class ArcScopeElement extends HTMLElement {
  static observedAttributes: string[];

  // attributes: written by scripts/attributes.mjs from web/lib/element/arc-scope-attributes.js
  /**
   * the text to run through the model (default: the element's text content; needed when the element has child elements,
   * its fallback: see Fallback children)
   */
  get text(): string | null;
  set text(value: string | null | undefined);
  /** URL of an `.arcs` model file (default: the model shipped in `lib/models/`) */
  get model(): string | null;
  set model(value: string | URL | null | undefined);
  /** URL of precomputed attention as JSON: drawn without the worker, the wasm or a model */
  get src(): string | null;
  set src(value: string | URL | null | undefined);
  /** an integer from 0 to n_layer - 1, or `mean` / `max` over layers (default: the last layer) */
  get layer(): string | null;
  set layer(value: ArcScopeLayer | `${number}` | null | undefined);
  /**
   * an integer from 0 to n_head - 1, `all` (each head in its own colour), or `mean` / `max` over heads (default: `all`)
   */
  get head(): string | null;
  set head(value: ArcScopeHead | `${number}` | null | undefined);
  /** `arcs`, `matrix`, or `ablation`: the effect of each head on the answer (default: `arcs`) */
  get mode(): string | null;
  set mode(value: ArcScopeMode | null | undefined);
  /** with `mode="ablation"`, and needed there: the answer, one token as text (`" dog"`) */
  get answer(): string | null;
  set answer(value: string | null | undefined);
  /** with `mode="ablation"`, and needed there: the wrong answer, one token as text (`" cat"`) */
  get wrong(): string | null;
  set wrong(value: string | null | undefined);
  /**
   * with `mode="ablation"`: `zero`, or `mean` (each head's output replaced by its mean over the positions) (default:
   * `zero`)
   */
  get ablate(): string | null;
  set ablate(value: ArcScopeAblationKind | null | undefined);
  /**
   * at most this many arcs per token, an integer from 0 (0: all), or `auto`: all of them on a text of up to 64 tokens,
   * each token's 3 strongest past that (default: `auto`)
   */
  get topk(): string | null;
  set topk(value: ArcScopeNumber | 'auto' | null | undefined);
  /** only weights at or above it, a number from 0 to 1 (default: `0.02`) */
  get threshold(): string | null;
  set threshold(value: ArcScopeNumber | null | undefined);
  /**
   * attention to the first token: `shown`, `hidden` (each row rescaled without it), or `auto`: hidden where it takes
   * more than half of the rows drawn, as many decoders' heads do, and the caption says so (default: `auto`)
   */
  get sink(): string | null;
  set sink(value: ArcScopeSink | null | undefined);
  /** `auto` (the reader's `prefers-color-scheme`), `light` or `dark` (default: `auto`) */
  get theme(): string | null;
  set theme(value: ArcScopeTheme | null | undefined);
  /** `eager`, or `lazy`: nothing is fetched until the element is within 200px of the viewport (default: `eager`) */
  get loading(): string | null;
  set loading(value: ArcScopeLoading | null | undefined);
  // /attributes

  /** attention computed elsewhere, drawn instead of running a model (no attribute); null or undefined clears it */
  get data(): ArcScopeData | null;
  set data(value: ArcScopeData | null | undefined);
  /** what was drawn last, or null before the first drawing */
  result: ArcScopeResult | null;
}

/**
 * The element's attributes with the values each takes, as a framework's templates set them: React's JSX
 * (`arcscope/react`), or your own declarations for another framework's.
 */
export interface ArcScopeAttributes {
  // attribute values: written by scripts/attributes.mjs from web/lib/element/arc-scope-attributes.js
  /**
   * the text to run through the model (default: the element's text content; needed when the element has child elements,
   * its fallback: see Fallback children)
   */
  text?: string | null;
  /** URL of an `.arcs` model file (default: the model shipped in `lib/models/`) */
  model?: string | URL | null;
  /** URL of precomputed attention as JSON: drawn without the worker, the wasm or a model */
  src?: string | URL | null;
  /** an integer from 0 to n_layer - 1, or `mean` / `max` over layers (default: the last layer) */
  layer?: ArcScopeLayer | `${number}` | null;
  /**
   * an integer from 0 to n_head - 1, `all` (each head in its own colour), or `mean` / `max` over heads (default: `all`)
   */
  head?: ArcScopeHead | `${number}` | null;
  /** `arcs`, `matrix`, or `ablation`: the effect of each head on the answer (default: `arcs`) */
  mode?: ArcScopeMode | null;
  /** with `mode="ablation"`, and needed there: the answer, one token as text (`" dog"`) */
  answer?: string | null;
  /** with `mode="ablation"`, and needed there: the wrong answer, one token as text (`" cat"`) */
  wrong?: string | null;
  /**
   * with `mode="ablation"`: `zero`, or `mean` (each head's output replaced by its mean over the positions) (default:
   * `zero`)
   */
  ablate?: ArcScopeAblationKind | null;
  /**
   * at most this many arcs per token, an integer from 0 (0: all), or `auto`: all of them on a text of up to 64 tokens,
   * each token's 3 strongest past that (default: `auto`)
   */
  topk?: ArcScopeNumber | 'auto' | null;
  /** only weights at or above it, a number from 0 to 1 (default: `0.02`) */
  threshold?: ArcScopeNumber | null;
  /**
   * attention to the first token: `shown`, `hidden` (each row rescaled without it), or `auto`: hidden where it takes
   * more than half of the rows drawn, as many decoders' heads do, and the caption says so (default: `auto`)
   */
  sink?: ArcScopeSink | null;
  /** `auto` (the reader's `prefers-color-scheme`), `light` or `dark` (default: `auto`) */
  theme?: ArcScopeTheme | null;
  /** `eager`, or `lazy`: nothing is fetched until the element is within 200px of the viewport (default: `eager`) */
  loading?: ArcScopeLoading | null;
  // /attribute values
}

/** What the analysis cache shared by every element holds. */
export interface AnalysisCacheInfo {
  /** analyses held */
  entries: number;
  /** bytes of their attention arrays */
  bytes: number;
  /** the most bytes kept (64 MB) */
  budget: number;
  /** the most analyses kept (256) */
  maxEntries: number;
}

export declare function analysisCache(): AnalysisCacheInfo;

declare global {
  interface HTMLElementTagNameMap {
    'arc-scope': ArcScopeElement;
  }
  interface HTMLElementEventMap {
    'arcscope-ready': CustomEvent<ArcScopeReadyDetail>;
    'arcscope-rendered': CustomEvent<ArcScopeRenderedDetail>;
    'arcscope-error': CustomEvent<ArcScopeErrorDetail>;
  }
}
