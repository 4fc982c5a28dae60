// engine.d.ts: the types of engine.js (and of arcscope.js, its first path), the engine API (with model.js's Model
// and tokenizer.js's tokenizer).
// tests/js/declarations.test.mjs checks that the names here match the JavaScript.
//
// Layouts: every array is flat and row-major. Attention is [n_layer, n_head, T, T]: layer l, head h, query i,
// key j is attention[((l * n_head + h) * T + i) * T + j], and each row (fixed l, h, i) sums to 1.

// ---- inputs ----

/** Numbers as a plain array or any typed array (not BigInt64Array / BigUint64Array). */
export type NumberArray =
  | readonly number[]
  | Int8Array | Uint8Array | Uint8ClampedArray | Int16Array | Uint16Array | Int32Array | Uint32Array
  | Float32Array | Float64Array;

/**
 * Token ids: integers in [0, n_vocab), as a plain array or a typed array (encode()'s Int32Array included).
 * Each is checked by the engine: a non-number, a fraction or an id outside the vocabulary is an Error.
 */
export type TokenIds = NumberArray;

/** Nested arrays of numbers, read in row-major order (e.g. [[1, 2], [3, 4]]). */
export type NestedNumbers = readonly (number | NestedNumbers)[];

/** Values of a tensor: a Float32Array (used as is), another typed array, or (nested) plain arrays, flattened. */
export type TensorValues = NumberArray | NestedNumbers;

/** Bytes of a file. */
export type Bytes = Uint8Array | ArrayBuffer;

// ---- results ----

/** A tensor: `data` in row-major order, `shape` its dimensions (the product of shape is data.length). */
export interface Tensor {
  data: Float32Array;
  shape: number[];
}

/** A model's hyperparameters. */
export interface ModelConfig {
  /** the family the file was converted from (Hugging Face's model_type) */
  architecture: 'gpt2' | 'gpt_neox' | 'llama' | 'qwen2' | 'qwen3';
  /** layers */
  n_layer: number;
  /** attention (query) heads per layer */
  n_head: number;
  /** key/value heads per layer: n_head, or fewer in grouped-query attention (query head h reads h / (n_head / n_kv_head)) */
  n_kv_head: number;
  /** a head's width */
  d_head: number;
  /** embedding width (the residual stream) */
  n_embd: number;
  /** the MLP's hidden width */
  d_mlp: number;
  /** context length: the most tokens one sequence may hold */
  n_ctx: number;
  /** vocabulary size (50257 for GPT-2) */
  n_vocab: number;
  norm: 'layernorm' | 'rmsnorm';
  norm_eps: number;
  positions: 'learned' | 'rotary';
  /** rotating dimensions of each head (rotary positions only) */
  rotary_dim?: number;
  rope_theta?: number;
  rope_scaling?: 'none' | 'llama3';
  /** 'gelu_tanh' (GPT-2), 'gelu_erf' (GPT-NeoX) or 'swiglu' (Llama, Qwen) */
  mlp: 'gelu_tanh' | 'gelu_erf' | 'swiglu';
  /** attention and MLP side by side on the same stream (GPT-NeoX): no hook_resid_mid */
  parallel_residual: boolean;
  /** the LM head is the token embedding */
  tied_head: boolean;
  /** Qwen3's RMSNorm of each query and key head */
  qk_norm: boolean;
  /** the hooks attentionPattern takes, per layer: ['attn.hook_q', 'attn.hook_k'], or the rotated ones */
  patternHooks: [string, string];
  /**
   * how the weight matrices are stored: 'q8' int8 and 'q16' 14-bit (GPT-2) or 16-bit (every other architecture)
   * integers in int16, each with one float32 scale per 32 weights, or 'f32' float32
   */
  dtype: 'q8' | 'q16' | 'f32';
  /** the bits kept of each weight: 8 (q8), 14 or 16 (q16), 32 (f32) */
  weightBits: number;
  /** the bits kept of each activation entering a matrix product: 14 (q8, GPT-2's q16), 16 (other q16), 32 (f32) */
  activationBits: number;
  /** how the KV cache stores keys and values (engine.loadModel's kvCache option) */
  kvCache: 'f32' | 'f16';
  /** the file's checksum (FNV-1a 64, decimal): the same model file, the same checksum */
  checksum: string;
  /**
   * whose tokenizer reads the model's text: 'gpt2' (built in), 'carried' (the tokenizer.json the file carries), or
   * 'none' (the file carries none: token ids only)
   */
  tokenizer: 'gpt2' | 'carried' | 'none';
}

export interface LoadModelOptions {
  /**
   * 'f32' (default), or 'f16': half the KV cache's memory (38 MB less for GPT-2 small at 1,024 tokens), for results
   * that move about as much as int8 weights already move them.
   */
  kvCache?: 'f32' | 'f16';
}

/** The assets beside the library: the wasm module, GPT-2's tokenizer file and the default model. */
export interface Assets {
  /** wasm/arcscope_core.wasm */
  wasm: URL;
  /** wasm/arcscope_core_threads.wasm: the same engine with worker threads, for cross-origin isolated pages */
  wasmThreads: URL;
  /** models/gpt2-tokenizer.bin */
  tokenizer: URL;
  /** models/shakespeare-4l.q8.arcs, the shipped 4-layer model */
  model: URL;
}

// ---- tokenizer ----

/** Text split into tokens. */
export interface Tokenization {
  ids: number[];
  /** each token's display text (its bytes decoded alone; part of a multi-byte character shows U+FFFD) */
  tokens: string[];
}

/** A run of tokens whose bytes make whole characters together. */
export interface TokenSpan {
  /** index of the run's first token */
  first: number;
  /** tokens in the run */
  count: number;
  /** the run's text */
  text: string;
}

/** GPT-2's byte-level BPE tokenizer (engine.tokenizer). */
export interface Tokenizer {
  /** ids are 0 to vocabSize - 1 */
  readonly vocabSize: number;
  /** <|endoftext|> (50256) */
  readonly eotId: number;
  /** the token a text begins with (TransformerLens's prepend_bos): <|endoftext|>, as eotId */
  readonly bosId: number;
  /** the token that ends a text (generation stops there): <|endoftext|>, as eotId */
  readonly eosId: number;
  /** text -> ids (the fast path: no per-token strings) */
  encode(text: string): Int32Array;
  /**
   * text -> ids and each token's display text; options as HfTokenizer's, where GPT-2 has no special tokens to add
   * (its post-processor adds none, as Hugging Face's GPT-2 tokenizer's)
   */
  tokenize(text: string, options?: { addSpecialTokens?: boolean }): Tokenization;
  /** ids -> text (UTF-8 decoded; bytes that make no character become U+FFFD) */
  decode(ids: TokenIds): string;
  /** one token's display text */
  tokenText(id: number): string;
  /** The one token text is (' Mary'); an Error naming `what` if it is not exactly one token. */
  singleToken(text: string, what: string): number;
  /** ids -> runs of tokens that make whole characters */
  tokenSpans(ids: TokenIds): TokenSpan[];
  /** Frees the tokenizer's wasm memory; idempotent. The engine's methods stop working after it. */
  free(): void;
}

/** tokenizer.json and tokenizer_config.json, each as its text, its parsed object or its bytes. */
export interface HfTokenizerFiles {
  json: string | object | Bytes;
  config?: string | object | Bytes | null;
}

/**
 * A tokenizer read from Hugging Face's tokenizer.json (engine.loadTokenizer): byte-level or SentencePiece-style BPE,
 * ids equal to Hugging Face's tokenizers'. Special tokens written in the text are always matched.
 */
export interface HfTokenizer {
  /** one more than the largest id */
  readonly vocabSize: number;
  /** tokenizer_config.json's bos_token id, or -1 */
  readonly bosId: number;
  /** tokenizer_config.json's eos_token id, or -1 */
  readonly eosId: number;
  /** text -> ids; addSpecialTokens adds the post-processor's tokens (Llama 2's <s>), as Hugging Face's */
  encode(text: string, options?: { addSpecialTokens?: boolean }): Int32Array;
  /** text -> ids and each token's display text */
  tokenize(text: string, options?: { addSpecialTokens?: boolean }): Tokenization;
  /** ids -> text, through the file's decoder */
  decode(ids: TokenIds): string;
  /** one token's display text (' world', a SentencePiece token's '▁' as a space) */
  tokenText(id: number): string;
  /** The one token text is (' Mary'); an Error naming `what` if it is not exactly one token. */
  singleToken(text: string, what: string): number;
  /** ids -> runs of tokens that make whole characters (a byte-fallback '<0xE4>' holds part of one) */
  tokenSpans(ids: TokenIds): TokenSpan[];
  /** Frees the tokenizer's wasm memory; idempotent. */
  free(): void;
}

// ---- the article's attention blocks ----

/** A causal or other mask for a block's forward: causalMask(T)'s result, or T * T values (1 keep, 0 block). */
export type Mask = { data: NumberArray } | TensorValues;

/** SingleHeadAttention's forward: x [B, T, d_model] -> these, each a Tensor. */
export interface SingleHeadOutput {
  /** [B, T, d_head] */
  out: Tensor;
  /** [B, T, T], each row sums to 1 */
  weights: Tensor;
  /** [B, T, d_head]: the projections */
  q: Tensor;
  k: Tensor;
  v: Tensor;
  /** [B, T, T]: q kᵀ / sqrt(d_head) before the softmax, -Infinity where masked */
  scores: Tensor;
}

/** MultiHeadAttention's forward: x [B, T, d_model] -> these, each a Tensor. */
export interface MultiHeadOutput {
  /** [B, T, d_model] */
  out: Tensor;
  /** [B, H, T, T] */
  weights: Tensor;
  /** [B, H, T, d_head]: the projections after the split into heads */
  q: Tensor;
  k: Tensor;
  v: Tensor;
  /** [B, T, d_model]: the heads concatenated, before W_o */
  merged: Tensor;
}

/** An attention block backed by wasm memory. */
export interface AttentionBlock<Output, WeightName extends string, Config> {
  readonly config: Config;
  /** x: [batch, seq, d_model] values; shape: its dimensions; mask: [seq, seq] or null for none. */
  forward(x: TensorValues, shape: NumberArray, options?: { mask?: Mask | null }): Output;
  /** A weight matrix as {data, shape: [rows, cols]}, applied as X · W. */
  weight(name: WeightName): Tensor;
  /** Replaces a weight matrix; values must have the same rows * cols. */
  setWeight(name: WeightName, values: TensorValues): void;
  /** Frees the block's wasm memory; idempotent (a forgotten block is freed by a FinalizationRegistry). */
  free(): void;
}

/** W_q, W_k, W_v each [d_model, d_head]. */
export type SingleHeadAttention = AttentionBlock<SingleHeadOutput, 'W_q' | 'W_k' | 'W_v',
  { d_model: number; d_head: number }>;

/** W_q, W_k, W_v, W_o each [d_model, d_model]; d_head = d_model / n_heads. */
export type MultiHeadAttention = AttentionBlock<MultiHeadOutput, 'W_q' | 'W_k' | 'W_v' | 'W_o',
  { d_model: number; d_head: number; n_heads: number }>;

/** The sinusoidal positional encoding. */
export interface PositionalEncoding {
  /** [maxSeqLen, d_model]: pe[pos, 2i] = sin(pos / 10000^(2i / d_model)), pe[pos, 2i + 1] = cos(same) */
  table(): Tensor;
  /** x [B, T, d_model] -> x + pe[:T] */
  forward(x: TensorValues, shape: NumberArray): Tensor;
  /** Frees its wasm memory; idempotent. */
  free(): void;
}

/** Rotary positions (RoPE): pairs of dimensions (i, i + rotaryDim / 2) turned by position, the decoders' rotation. */
export interface RotaryEmbedding {
  readonly dHead: number;
  /** the leading dimensions that turn (all of dHead unless asked otherwise) */
  readonly rotaryDim: number;
  readonly maxSeqLen: number;
  readonly theta: number;
  /** cos and sin of each position's angles, each [maxSeqLen, rotaryDim / 2] */
  table(): { cos: Tensor; sin: Tensor };
  /** x [..., T, dHead] -> x with row t turned by positions[t] (default t), each in [0, maxSeqLen) */
  forward(x: TensorValues, shape: NumberArray, positions?: NumberArray | null): Tensor;
  /** Frees its wasm memory; idempotent. */
  free(): void;
}

/** One measured sequence length of the cost experiment. */
export interface CostPoint {
  seqLen: number;
  /** milliseconds per forward pass */
  ms: number;
}

/** ms ≈ a n² + b n + c, n the sequence length. */
export interface QuadraticFit {
  a: number;
  b: number;
  c: number;
}

export interface AttentionCostOptions {
  /** sequence lengths to time (default [128, 256, 512, 1024]) */
  lengths?: NumberArray;
  /** default 768 */
  dModel?: number;
  /** default 12 */
  nHeads?: number;
  /** timings per length, 1 to 100; the fastest is kept (default 3) */
  repeats?: number;
}

export interface AttentionCost {
  points: CostPoint[];
  /** null when fewer than 3 lengths were timed */
  fit: QuadraticFit | null;
}

// ---- models ----

export interface ForwardOptions {
  /** capture every head's attention (default true) */
  attention?: boolean;
  /** logits for every position instead of the last only (default false) */
  allLogits?: boolean;
}

/** model.forward's result. */
export interface ForwardResult {
  /** [rows, n_vocab] flat: rows is 1 (the last position) unless allLogits, then T */
  logits: Float32Array;
  logitsShape: [rows: number, n_vocab: number];
  /** [n_layer, n_head, T, T] flat (see the layout at the top), or null without `attention` */
  attention: Float32Array | null;
  attentionShape: [n_layer: number, n_head: number, queries: number, keys: number] | null;
}

/** model.forward's result when attention was captured (the default). */
export interface ForwardResultWithAttention extends ForwardResult {
  attention: Float32Array;
  attentionShape: [n_layer: number, n_head: number, queries: number, keys: number];
}

/** model.append's result: one position through the KV cache. */
export interface AppendResult {
  /** n_vocab values */
  logits: Float32Array;
  logitsShape: [rows: 1, n_vocab: number];
  /** the new position's attention row for every layer and head: [n_layer, n_head, length] flat, or null */
  attention: Float32Array | null;
  attentionShape: [n_layer: number, n_head: number, length: number] | null;
}

export interface AppendResultWithAttention extends AppendResult {
  attention: Float32Array;
  attentionShape: [n_layer: number, n_head: number, length: number];
}

/** A likely next token. */
export interface TopToken {
  id: number;
  /** its display text */
  token: string;
  /** softmax probability, 0 to 1 */
  prob: number;
}

/** What onToken sees for each generated token. */
export interface GeneratedToken {
  id: number;
  /** its display text */
  token: string;
  /** 0 for the first generated token */
  index: number;
  /** with `attention`: its row for every layer and head, [n_layer, n_head, length] flat; else null */
  attention: Float32Array | null;
  attentionShape: [n_layer: number, n_head: number, length: number] | null;
}

export interface GenerateOptions {
  /** the prompt: at least one id */
  ids: TokenIds;
  /** the most tokens to add, an integer >= 0 (default 20) */
  maxTokens?: number;
  /** >= 0; 0 always picks the most likely token (default 1) */
  temperature?: number;
  /** sample among the k most likely; 0 means all (default 0) */
  topK?: number;
  /** nucleus sampling: the smallest set with this much probability, in (0, 1] (default 1) */
  topP?: number;
  /** an integer from 0 to 2^53 - 1; the same seed draws the same tokens (default 0) */
  seed?: number;
  /** pass each token's attention rows to onToken (default false) */
  attention?: boolean;
  /**
   * called after each token; returning false (or a promise of false) stops the generation. Until generate() returns,
   * the model's methods that run or change it (forward, append, reset, runWithCache, runWithHooks, the sweeps, the
   * lens, attribution, headScores, perplexity, generate, free) throw "model.<method>: the model is generating", and
   * the generation goes on unchanged.
   */
  onToken?: ((token: GeneratedToken) => boolean | void | Promise<boolean | void>) | null;
}

/** Why a generation stopped. */
export type StopReason = 'max_tokens' | 'end_of_text' | 'context_full' | 'callback';

export interface GenerateResult {
  /** the new ids only, not the prompt */
  ids: number[];
  /** the new ids decoded */
  text: string;
  stop: StopReason;
}

export interface HeadScoresOptions {
  /** an integer >= 0 (default 0) */
  seed?: number;
  /** random tokens, then repeated: 2 to n_ctx / 2; 0 or less (the default 0) means min(50, n_ctx / 2) */
  length?: number;
  /** ids to draw the random tokens from (default: every id but <|endoftext|>) */
  candidates?: TokenIds | null;
}

/** Scores per head, each n_layer * n_head values in [0, 1], head h of layer l at [l * n_head + h]. */
export interface HeadScores {
  /** mean attention from position i to i - 1 */
  previousToken: Float32Array;
  /** mean attention from position i to position 0 (the "sink") */
  firstToken: Float32Array;
  /** mean attention from each token of the second copy to the token that followed its first copy */
  induction: Float32Array;
  shape: [n_layer: number, n_head: number];
  /** the random sequence's length (repeated twice) */
  length: number;
}

export interface Perplexity {
  /** mean negative log-likelihood, nats per predicted token */
  nll: number;
  /** exp(nll) */
  perplexity: number;
  /** tokens scored: ids.length - 1 (each token after the first, once) */
  predicted: number;
}

/** A TransformerLens hook name: blocks.{l}.hook_resid_pre, blocks.{l}.attn.hook_pattern, ln_final.hook_normalized, ... */
export type HookName =
  | `blocks.${number}.${'hook_resid_pre' | 'hook_resid_mid' | 'hook_resid_post' | 'hook_attn_out' | 'hook_mlp_out'}`
  | `blocks.${number}.attn.${'hook_q' | 'hook_k' | 'hook_v' | 'hook_z' | 'hook_pattern'}`
  | `blocks.${number}.mlp.hook_post`
  | 'ln_final.hook_normalized';

/**
 * How the analyses that take a text (the sweeps, the logit lens, the attribution) tokenize it: as toTokens does, with
 * the tokenizer's BOS (GPT-2's <|endoftext|>) first unless prependBos is false, as TransformerLens's prepend_bos=True
 * default does. Ids are
 * taken as they are (engine.tokenize and the page's and the element's analyses give none).
 */
export interface TextInputOptions {
  /** <|endoftext|> before a text's tokens (default true); ignored for ids */
  prependBos?: boolean;
}

export interface RunWithCacheOptions {
  /** the names to record: an array, or a filter over hookNames (default: every name) */
  names?: readonly (HookName | string)[] | ((name: HookName) => boolean) | null;
  /** every position's logits (default true, as TransformerLens), or only the last position's */
  allLogits?: boolean;
  /**
   * keep up to this many leading positions from the KV cache where the model's last passes left these very tokens
   * (default 0: none), and run only the rest; the result's first says how many were kept
   */
  reuse?: number;
}

export interface RunWithCacheResult {
  logits: Float32Array;
  /** [T - first, n_vocab], or [1, n_vocab] without allLogits */
  logitsShape: [number, number];
  /** each name asked for: its values over positions first..T, row-major in its shape ([T - first, ...]; the pattern [H, T - first, T]) */
  cache: Record<string, Tensor>;
  /** the positions kept from the KV cache (0 without reuse): the logits and the cache begin there */
  first: number;
}

/** A change to the pass at a hook point: ablation (zero, or the mean over positions), or values put in. */
export interface HookIntervention {
  hook: HookName | string;
  /** for attn.hook_q/k/v/z/pattern: the heads changed (left out: every head; an empty list is an error) */
  heads?: readonly number[];
  /** the positions changed (left out: every position; an empty list is an error) */
  positions?: readonly number[];
  ablate?: 'zero' | 'mean';
  /** instead of ablate: the activation to put in, row-major in the hook's full shape */
  values?: NumberArray;
}

export interface LogitsResult {
  logits: Float32Array;
  logitsShape: [number, number];
}

/** A (rows x cols) grid, row-major. */
export interface Grid {
  data: Float32Array;
  shape: [number, number];
}

/** How far a sweep by layer got: layersDone of layers. */
export interface SweepProgress {
  layersDone: number;
  layers: number;
}

export interface PatchingResult {
  /** the metric on each prompt */
  clean: number;
  corrupted: number;
  /** the first position where the prompts differ; nothing changes before it */
  firstDifference: number;
  /** [n_layer, n_head]: one head's hook_z from the clean run */
  heads: Grid;
  /** [n_layer, T]: hook_resid_pre of one layer at one position from the clean run */
  resid: Grid;
}

export interface AblationResult {
  baseline: number;
  /** [n_layer, n_head]: the metric with that head ablated */
  heads: Grid;
}

export interface LogitLensResult {
  /** [n_layer, T, k] */
  shape: [number, number, number];
  topIds: Int32Array;
  topProbs: Float32Array;
  top: { id: number; token: string; prob: number }[][][];
  /** [n_layer * T] probabilities of the target, or null without one */
  target: Float32Array | null;
}

export interface AttributionResult {
  logit: number;
  /** "embed", "blocks.{l}.attn.head.{h}", "blocks.{l}.attn.bias", "blocks.{l}.mlp", "ln_final.bias" */
  parts: { name: string; value: number }[];
}

/** An analysed text's queries and keys in the engine's memory, from model.keepQueries(). */
export interface KeptQueries {
  /** positions held */
  readonly length: number;
  /** what they take in wasm memory, room for more positions included */
  readonly bytes: number;
  /** false once freed */
  readonly live: boolean;
  /** the holder's Embind object (internal: use free()) */
  readonly handle: unknown;
  free(): void;
}

/**
 * A loaded GPT-2 (.arcs file) in wasm memory, with its KV cache. From engine.loadModel(). Every numeric argument
 * must be a number: null, booleans, strings such as '5', arrays such as [7] and objects with valueOf are refused
 * with an Error naming the argument, never read as numbers.
 */
export interface Model {
  /** the engine's Emscripten module (internal) */
  readonly core: unknown;
  /** the model's Embind object in wasm memory (internal: use free(), never its own delete()) */
  readonly handle: unknown;
  /**
   * the tokenizer the model's text goes through (config.tokenizer): GPT-2's for a GPT-2 model, the one its file
   * carries for the others (read on first use, freed with the model), or null (a model that carries none: ids only)
   */
  readonly tokenizer: Tokenizer | HfTokenizer | null;
  readonly config: ModelConfig;
  /** size of the .arcs file in bytes */
  readonly fileBytes: number;
  /** false once freed */
  readonly live: boolean;
  /** positions in the KV cache */
  readonly length: number;
  /** text -> ids and display texts, with GPT-2's tokenizer */
  tokenize(text: string): Tokenization;
  /**
   * Runs ids (at most n_ctx) and restarts the KV cache with them, so append() continues after them.
   * Attention is captured unless `attention: false`.
   */
  forward(ids: TokenIds, options?: ForwardOptions & { attention?: true }): ForwardResultWithAttention;
  forward(ids: TokenIds, options?: ForwardOptions): ForwardResult;
  /** One more token through the KV cache. Attention rows unless `attention: false`. */
  append(id: number, options?: { attention?: true }): AppendResultWithAttention;
  append(id: number, options?: { attention?: boolean }): AppendResult;
  /** Empties the KV cache. */
  reset(): void;
  /**
   * The k most likely next tokens (k >= 1, default 10), most likely first. logits: n_vocab values, or a forward
   * result's logits (a Float32Array: its last row is used).
   */
  topk(logits: Float32Array | readonly number[], k?: number): TopToken[];
  /**
   * Samples up to maxTokens tokens after ids through the KV cache; stops early at the end of a text (the tokenizer's
   * eosId: GPT-2's <|endoftext|>; none for a model without a tokenizer) or n_ctx.
   */
  generate(options: GenerateOptions): Promise<GenerateResult>;
  /** Scores every head on random tokens repeated twice. Restarts the KV cache. */
  headScores(options?: HeadScoresOptions): HeadScores;
  /** ids (2 or more) -> how well the model predicts them, in windows of n_ctx tokens (or `window`). Restarts the
   * KV cache. */
  perplexity(ids: TokenIds, options?: { window?: number }): Perplexity;
  /** Every TransformerLens hook name of this model, in the order the forward pass reaches them. */
  readonly hookNames: HookName[];
  /**
   * As TransformerLens's run_with_cache: one pass recording the activations named (an array, or a filter; default
   * every one). Shapes drop the batch: hook_pattern [H, T, T]; hook_q, hook_rot_q and hook_z [T, H, d_head];
   * hook_k, hook_v and hook_rot_k [T, n_kv_head, d_head]; resid, attn_out, mlp_out and ln_final.hook_normalized
   * [T, C]; mlp.hook_post [T, d_mlp]. Logits are every position's unless
   * allLogits is false. Restarts the KV cache.
   */
  runWithCache(ids: TokenIds, options?: RunWithCacheOptions): RunWithCacheResult;
  /**
   * One layer's attention recomputed from that layer's queries and keys, the data of config.patternHooks (hook_q and
   * hook_k, or hook_rot_q and hook_rot_k where positions rotate; T x n_head d_head and T x n_kv_head d_head): head's [T, T]
   * probabilities (query rows, zeros above the diagonal), or with head omitted every head's [H, T, T]. The same bits
   * as forward(ids, {attention: true}) gives for that layer.
   */
  attentionPattern(q: Float32Array, k: Float32Array, head?: number | null): Float32Array;
  /**
   * One head of that layer's attention max-pooled to size x size (1 <= size <= T), for a thumbnail: cell (r, c) is
   * the largest probability of query rows i and keys j with floor(i * size / T) = r and floor(j * size / T) = c.
   */
  attentionThumbnail(q: Float32Array, k: Float32Array, head: number, size: number): Float32Array;
  /**
   * An empty holder of this model's queries and keys in the engine, for runKeepingQueries: a viewer keeps each text's
   * (2 T (n_head + n_kv_head) d_head floats a layer, 75 MB for GPT-2 small at 1,024 tokens) rather than every head's
   * T x T, and asks for the views it shows. Free it when done.
   */
  keepQueries(): KeptQueries;
  /**
   * One pass over ids that writes every layer's queries and keys (config.patternHooks) into kept, in place. With
   * reuse: n, up to n leading positions are kept from the KV cache where the last passes left these very tokens and
   * from kept's own rows, which must be those of these ids' first n (kept held a text sharing them: an edit of it);
   * first says how many. Restarts the KV cache.
   */
  runKeepingQueries(ids: TokenIds, kept: KeptQueries, options?: { reuse?: number }): LogitsResult & { first: number };
  /**
   * kept's [T, T] attention at layer and head, each an index or 'mean' / 'max' over all of them (layers first, then
   * heads; the same aggregate over both takes every head of every layer at once), computed in the engine in one
   * call: query rows, zeros above the diagonal.
   */
  keptAttention(kept: KeptQueries, layer: number | 'mean' | 'max', head: number | 'mean' | 'max'): Float32Array;
  /** One head of kept's layer max-pooled to size x size, as attentionThumbnail. */
  keptThumbnail(kept: KeptQueries, layer: number, head: number, size: number): Float32Array;
  /**
   * As TransformerLens's to_tokens: the ids of text, with the tokenizer's BOS first unless prependBos is false (GPT-2's
   * <|endoftext|> 50256, Llama's <s> or <|begin_of_text|>; none where the tokenizer has none, as Qwen's)
   */
  toTokens(text: string, options?: { prependBos?: boolean }): number[];
  /** As TransformerLens's to_str_tokens: each token's text, for ids or for a text (tokenized as toTokens does). */
  toStrToks(input: string | TokenIds, options?: { prependBos?: boolean }): string[];
  /**
   * ids through the model with hooks that change it, inside the engine's pass. Mean ablation uses each column's mean
   * over a clean run's positions. Logits as forward's (the last row unless allLogits).
   */
  runWithHooks(ids: TokenIds, hooks: readonly HookIntervention[], options?: { allLogits?: boolean }): LogitsResult;
  /**
   * Activation patching from clean into corrupted (same length), metric logit(answer) - logit(wrong) at the last
   * position; effects normalised so that clean = 1 and corrupted = 0.
   */
  patchingSweep(options: { clean: string | TokenIds; corrupted: string | TokenIds; answer: string | number;
    wrong: string | number } & TextInputOptions): PatchingResult;
  /** The metric with each head ablated alone at hook_z. */
  ablationSweep(options: { input: string | TokenIds; answer: string | number; wrong: string | number;
    kind?: 'zero' | 'mean' } & TextInputOptions): AblationResult;
  /**
   * patchingSweep a step (a batch of one layer's variants) at a time: after each step, onStep sees how far it got and
   * may return false to stop (the
   * promise then gives null) or throw to stop with that error. The model is the sweep's until the promise settles.
   */
  patchingSweepInSteps(options: { clean: string | TokenIds; corrupted: string | TokenIds; answer: string | number;
    wrong: string | number } & TextInputOptions, onStep?: ((progress: SweepProgress) => boolean | void | Promise<boolean | void>) | null):
    Promise<PatchingResult | null>;
  /** ablationSweep a step at a time, as patchingSweepInSteps. */
  ablationSweepInSteps(options: { input: string | TokenIds; answer: string | number; wrong: string | number;
    kind?: 'zero' | 'mean' } & TextInputOptions, onStep?: ((progress: SweepProgress) => boolean | void | Promise<boolean | void>) | null):
    Promise<AblationResult | null>;
  /**
   * Each layer's residual stream (hook_resid_post) through ln_final and the unembedding. k: 1 to 100 (default 5);
   * target: one token (id or text) whose probability to report, or null (the default) for none.
   */
  logitLens(input: string | TokenIds, options?: { k?: number; target?: string | number | null } & TextInputOptions):
    LogitLensResult;
  /**
   * The token's logit at a position split into parts that add up to it (TransformerLens's apply_ln_to_stack): exactly
   * up to float rounding in f32; q8 and q16 round each part's activations on their own, so there the parts miss the
   * logit by a little (measured: at most 9e-5 on GPT-2-small-shaped q8 weights, 5e-6 on the default model).
   */
  directLogitAttribution(input: string | TokenIds, options: { token: string | number; position?: number } &
    TextInputOptions): AttributionResult;
  /** The KV cache's format from now on ('f16' halves its memory); the cached positions are cleared. */
  setKVCache(format: 'f32' | 'f16'): void;
  /**
   * The model's .arcs file, read from wasm memory a chunk (default 4 MB) at a time as the stream is pulled: for
   * Cache Storage, new Response(model.fileStream()). It errors if the model is freed before the end.
   */
  fileStream(options?: { chunkBytes?: number }): ReadableStream<Uint8Array>;
  /** Frees the model's wasm memory; idempotent. Other methods then throw "this model has been freed". */
  free(): void;
}

/** What convertCheckpoint reports, after each megabyte and at each stage. */
export interface ConvertProgress {
  stage: 'header' | 'tensors' | 'checksum' | 'done';
  /** bytes of model.safetensors read, or of every shard read so far */
  bytesDone: number;
  /**
   * the length of model.safetensors, or the sum of the shards' lengths: all of them from the start where shards is
   * an object or a Map, those reached so far where it is a function
   */
  bytesTotal: number;
  /** the .arcs file's size, known once the header is read (0 before) */
  outputBytes: number;
  /**
   * the shard being read (number from 1 to count, in the converter's order), with its own bytes read and its length;
   * null for one model.safetensors
   */
  shard: { name: string; number: number; count: number; bytesDone: number; bytesTotal: number } | null;
}

/** Chunks of model.safetensors. */
export type CheckpointChunks =
  | Bytes
  | readonly Bytes[]
  | ReadableStream<Uint8Array>
  | AsyncIterable<Bytes>
  | Iterable<Bytes>;

/** One shard file: its bytes (a stream needs totalBytes, its length), or the bytes alone. */
export type ShardSource = { chunks: CheckpointChunks; totalBytes?: number } | Bytes | readonly Bytes[];

export interface ConvertCheckpointOptions {
  /** config.json, as an object or its text */
  config: object | string;
  /**
   * model.safetensors, streamed: wasm memory holds the output and a few megabytes, never the whole input. A sharded
   * checkpoint gives index and shards instead.
   */
  chunks?: CheckpointChunks;
  /** a sharded checkpoint's model.safetensors.index.json, as text or an object: which file holds each tensor */
  index?: string | object;
  /**
   * a sharded checkpoint's files, each by its name in the index ('model-00001-of-00002.safetensors'): an object or a
   * Map of name -> ShardSource, or a function name -> ShardSource (or a promise of one), called for each shard when
   * the converter reaches it, so that a download starts only then. The converter reads them in the order of their
   * names, one after another; a shard the index lists that is not given, one given that it does not list, or one
   * whose length is not its header's is an Error naming the file
   */
  shards?: Record<string, ShardSource> | Map<string, ShardSource> |
    ((name: string) => ShardSource | Promise<ShardSource>);
  /**
   * the weights' format (ModelConfig.dtype): 'q16' 14-bit for GPT-2 and 16-bit for every other architecture,
   * attention within about 0.007 of float32 even on sharp heads (0.009 through 30 blocks of SmolLM2-135M's shape); 'q8' int8, half q16's size with a faster decode, but sharp heads' attention up to 0.2-0.4 off; 'f32'
   * float32, exact and the largest. Default: engine.defaultDtype(config), q16 unless its file would pass 2 GiB
   * (GPT-2 XL), then q8
   */
  dtype?: 'q8' | 'q16' | 'f32';
  /** the length of model.safetensors in bytes; needed for a stream or an iterable (else taken from the bytes) */
  totalBytes?: number;
  /**
   * tokenizer.json's and tokenizer_config.json's texts (or objects) for the model file to carry, so a model is one
   * file to host; any architecture but GPT-2, whose tokenizer is built in
   */
  tokenizerFiles?: { json?: string | object | null; config?: string | object | null } | null;
  onProgress?: ((progress: ConvertProgress) => void) | null;
}

// ---- the engine ----

export interface CreateEngineOptions {
  /**
   * Threads for the matrix products (default: every core, up to 4). More than 1 runs the threaded module, which needs
   * a cross-origin isolated page (see threadsAvailable()); elsewhere, and with wasmBinary or wasmUrl, the plain module
   * runs on one. Results are the same bits on any number.
   */
  threads?: number;
  /**
   * Which build's q8 kernel runs (default 'auto'): 'relaxed' relaxed SIMD's 8-bit dot product on 7-bit activation
   * parts, 'simd128' SIMD128's; 'auto' takes relaxed where the engine validates it, its sums are exact and the
   * instruction is fused (a start-up probe), else SIMD128. The same bits either way; only the chosen module is
   * fetched. 'relaxed' where it cannot run is an error saying why.
   */
  simd?: 'auto' | 'relaxed' | 'simd128';
  /** the wasm module's bytes (else fetched from wasmUrl) */
  wasmBinary?: Bytes;
  /** where the wasm module is (default: defaultAssets.wasm); relative to the page, or in Node to the cwd */
  wasmUrl?: string | URL;
  /** the tokenizer file's bytes, or a promise of them (else read from tokenizerUrl) */
  tokenizerBytes?: Bytes | Promise<Bytes>;
  /** where the tokenizer file is (default: defaultAssets.tokenizer) */
  tokenizerUrl?: string | URL;
}

/** Which build of the engine runs (engine.build). */
export interface EngineBuild {
  readonly simd: 'relaxed SIMD' | 'SIMD128';
  readonly threads: number;
  /** in words, with the reason for one thread */
  readonly summary: string;
  /** why SIMD128 runs and not relaxed SIMD; null when relaxed SIMD runs */
  readonly simdWhy: string | null;
}

/** The engine: one wasm instance with GPT-2's tokenizer. */
export interface Engine {
  /** the raw Emscripten module (internal: its members may change between versions) */
  readonly core: unknown;
  /** the threads the engine runs on: 1 with the plain module, more with the threaded one */
  readonly threads: number;
  /** the build whose q8 kernel runs (createEngine's simd option): the same bits either way */
  readonly simd: 'relaxed' | 'simd128';
  /**
   * Which build runs, for a page to say: `simd` 'relaxed SIMD' or 'SIMD128', `threads` as above, `summary` in words
   * with the reason for one thread (e.g. "SIMD128, one thread: this page is not cross-origin isolated …"), and
   * `simdWhy`, why SIMD128 runs and not relaxed SIMD (null when relaxed SIMD runs).
   */
  readonly build: EngineBuild;

  /** A single attention head: d_model -> d_head. seed: an unsigned 32-bit integer (default 42). */
  singleHeadAttention(dModel: number, dHead: number, options?: { seed?: number }): SingleHeadAttention;
  /** nHeads heads over d_model (nHeads must divide dModel). seed as above. */
  multiHeadAttention(dModel: number, nHeads: number, options?: { seed?: number }): MultiHeadAttention;
  /** maxSeqLen default 2048. */
  positionalEncoding(dModel: number, maxSeqLen?: number): PositionalEncoding;
  /** maxSeqLen default 2048, theta 10,000, rotaryDim 0 (= dHead). */
  rotaryEmbedding(dHead: number, options?: { maxSeqLen?: number; theta?: number; rotaryDim?: number }): RotaryEmbedding;
  /** [n, n]: 1 where key j <= query i, else 0 */
  causalMask(n: number): Tensor;
  /** standard normal samples of this shape (1 to 4 dimensions), the same for a seed (default 42) */
  randomNormal(shape: NumberArray, options?: { seed?: number }): Tensor;
  /** The article's cost experiment: milliseconds per MultiHeadAttention forward at each length, and the fit. */
  attentionCost(options?: AttentionCostOptions): AttentionCost;
  /** 3 or more points -> the least-squares ms ≈ a n² + b n + c (the fit attentionCost uses) */
  fitQuadratic(points: readonly CostPoint[]): QuadraticFit;

  readonly tokenizer: Tokenizer;
  /** text -> {ids, tokens} */
  tokenize(text: string): Tokenization;
  /** text -> ids */
  encode(text: string): Int32Array;
  /** ids -> text */
  decode(ids: TokenIds): string;
  /** one token's display text */
  tokenText(id: number): string;
  /** ids -> runs of tokens that make whole characters */
  tokenSpans(ids: TokenIds): TokenSpan[];
  /**
   * Another model's tokenizer, read from Hugging Face's tokenizer.json (and tokenizer_config.json): the URL of the file
   * or of its folder (ending in '/'; tokenizer_config.json is read beside it where there is one), or the files
   * themselves. What it cannot read it refuses by name ("tokenizer.json: model type Unigram is not supported
   * (supported: BPE)"). Free it when done.
   */
  loadTokenizer(source: string | URL | Bytes | HfTokenizerFiles): Promise<HfTokenizer>;

  /** An .arcs file's bytes -> Model; every field, size and the checksum are checked first. */
  loadModel(bytes: Bytes, options?: LoadModelOptions): Model;
  /**
   * An .arcs file as it arrives (a download's body, a File's stream, a cached Response's body) -> Model, written
   * straight into wasm memory, so JavaScript never holds the whole file; checked as loadModel checks.
   */
  loadModelStream(options: LoadModelStreamOptions): Promise<Model>;
  /**
   * A Hugging Face checkpoint (model.safetensors, or the shards of model.safetensors.index.json) -> the .arcs file's
   * bytes, converted in wasm as it streams in.
   */
  convertCheckpoint(options: ConvertCheckpointOptions): Promise<Uint8Array>;
  /**
   * The same conversion -> Model, run where the converter wrote it: nothing is copied, so converting holds the
   * model's size in wasm memory and a few megabytes, not twice that. model.fileStream() gives the file.
   */
  convertToModel(options: ConvertCheckpointOptions & LoadModelOptions): Promise<Model>;
  /** config.json (an object or its text) -> the dtype a conversion without one gets: 'q16', or 'q8' where q16's
   * file would pass 2 GiB (GPT-2 XL). Throws for a config the converter refuses. */
  defaultDtype(config: object | string): 'q8' | 'q16';
}

export interface LoadModelStreamOptions extends LoadModelOptions {
  /** the .arcs file: bytes, an array or (async) iterable of them, or a ReadableStream */
  chunks: CheckpointChunks;
  /** the file's length in bytes (the buffer is allocated at once); needed for a stream or an iterable */
  totalBytes?: number;
  onProgress?: ((progress: { bytesDone: number; bytesTotal: number }) => void) | null;
}

/** Starts an engine: compiles the wasm module while the tokenizer file downloads. */
export declare function createEngine(options?: CreateEngineOptions): Promise<Engine>;
/**
 * How many threads an engine can run on here: more than 1 only in a browser page (or worker) that is cross-origin
 * isolated (COOP and COEP headers), with the library on the page's own origin.
 */
export declare function threadsAvailable(): number;

/** The bytes at a URL: http(s) through fetch, file: through fs in Node. A relative URL is resolved against the page
 * (in Node: the current directory). */
export declare function readBytes(url: string | URL): Promise<Uint8Array>;

/** The wasm, the tokenizer file and the default model, beside the library. */
export declare const defaultAssets: Readonly<Assets>;

/** The package's version, e.g. '0.2.0'. */
export declare const version: string;
