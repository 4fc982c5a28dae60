// worker-client.d.ts: the types of worker-client.js, the page side of the engine worker (protocol: web/README.md).
// tests/js/declarations.test.mjs checks that the names here match the JavaScript.
import type { EngineBuild, HeadScores, ModelConfig, StopReason, TokenIds, TopToken } from './engine.js';

/** A loaded model, as the worker describes it. */
export interface ModelInfo {
  /**
   * the model's key: its absolute URL, the key it was loaded under, or for a conversion the key it was converted
   * under with its format before it unless q8 ('q16:' or 'f32:' + key)
   */
  key: string;
  /** the file name shown for it */
  name: string;
  /** the .arcs file's size in bytes */
  size: number;
  config: ModelConfig;
  /** what the worker chose for it that a reader should know, in words (an f16 KV cache where f32 would not fit) */
  notes: string[];
}

/** Progress of a load, a download or a conversion. */
export interface LoadProgress {
  /** what is happening, in words, e.g. 'downloading model' */
  stage: string;
  /** bytes so far */
  loaded: number;
  /** bytes in all (may be 0 or undefined before a download knows its length) */
  total: number;
}

/** A token's display label: `lead` is its leading spaces as faint marks, `text` the rest. */
export interface TokenLabel {
  lead: string;
  text: string;
  /** true for the second and later tokens of a character split over several tokens (text is then '…') */
  continuation: boolean;
  /** [start, end): the tokens that make that character together */
  group: [start: number, end: number];
}

/**
 * A checkpoint to convert: two URLs (tokenizer.json and tokenizer_config.json are read beside config.json where
 * they are; where model.safetensors is not there, a sharded checkpoint's model.safetensors.index.json beside it is
 * read, then each shard it lists, downloaded in turn), the URL of a sharded checkpoint's index, or the files
 * (model.safetensors, or model.safetensors.index.json and its shards, and config.json, and tokenizer.json and
 * tokenizer_config.json where picked, in any order). The converted model carries the tokenizer (GPT-2's is built in).
 */
export type CheckpointSource =
  | { safetensorsUrl: string; configUrl: string }
  | { indexUrl: string; configUrl: string }
  | { files: readonly File[] | FileList };

/**
 * A text run through the model. Its attention stays in the worker, as every layer's queries and keys: the
 * attention, attentionTensor and attentionThumbnails ops compute what a view shows from them.
 */
export interface AnalyzeResult {
  ids: number[];
  labels: TokenLabel[];
  /** the attention's shape, [n_layer, n_head, T, T] */
  shape: [n_layer: number, n_head: number, queries: number, keys: number];
  /** the likely next tokens, most likely first */
  next: TopToken[];
  /** leading positions not run again: an edit of a kept analysis runs from its first changed token (the same bits) */
  reused: number;
}

/** A layer of the attention op: an index, or the mean or max over layers. */
export type LayerChoice = number | 'mean' | 'max';
/** A head of the attention op: an index, or the mean or max over heads (layers are combined first). */
export type HeadChoice = number | 'mean' | 'max';

/** One generated token, as progress. */
export interface GenerateProgress {
  id: number;
  /** the prompt and the tokens so far, decoded */
  text: string;
  /** labels of the prompt and the tokens so far */
  labels: TokenLabel[];
  /** the new token's attention row for every layer and head: [n_layer, n_head, length] flat */
  row: Float32Array;
  rowShape: [n_layer: number, n_head: number, length: number];
}

/** The library worker's operations: args, result and progress of each. */
export interface WorkerOps {
  init: { args: Record<string, never>; result: { ok: true; build: EngineBuild }; progress: never };
  configure: { args: { stallSeconds: number }; result: { ok: true }; progress: never };
  prefetch: { args: { url: string }; result: undefined; progress: never };
  /** text's ids by the model's own tokenizer (a loaded model's key), or GPT-2's without model */
  tokenize: { args: { text: string; model?: string; labels?: boolean }; result: { ids: number[]; labels?: TokenLabel[] };
    progress: LoadProgress };
  loadModel: { args: { url: string }; result: ModelInfo; progress: LoadProgress };
  loadModelBytes: { args: { bytes: Uint8Array | Blob; key: string; name: string }; result: ModelInfo;
    progress: LoadProgress };
  /** dtype: the weights' format (default: the engine's for the checkpoint's shape, q16 or q8 past 2 GiB); the
   * result's key is key with the format before it unless q8 */
  convertModel: { args: { source: CheckpointSource; key: string; name: string; dtype?: ModelConfig['dtype'] };
    result: ModelInfo; progress: LoadProgress };
  /** text or ids; topk: how many next tokens (default 10) */
  analyze: { args: { model: string; text?: string; ids?: TokenIds; topk?: number }; result: AnalyzeResult;
    progress: LoadProgress };
  /** one [T, T] matrix (query rows) of analysed ids, the engine's exact weights */
  attention: { args: { model: string; ids: TokenIds; layer: LayerChoice; head: HeadChoice };
    result: { data: Float32Array; shape: [queries: number, keys: number] }; progress: LoadProgress };
  /** every head of every layer, [n_layer, n_head, T, T] flat: for short texts (GPT-2 small on 1,024 tokens is 604 MB) */
  attentionTensor: { args: { model: string; ids: TokenIds };
    result: { data: Float32Array; shape: [n_layer: number, n_head: number, queries: number, keys: number] };
    progress: LoadProgress };
  /** each head max-pooled to at most size x size (default 64), a layer at a time as progress; cancel stops it */
  attentionThumbnails: { args: { model: string; ids: TokenIds; size?: number };
    result: { shape: [n_layer: number, n_head: number, size: number, size: number] };
    progress: { layer: number; size: number; data: Float32Array } | LoadProgress };
  headScores: { args: { model: string }; result: HeadScores; progress: LoadProgress };
  /** defaults: maxTokens 20, temperature 0, topK 40, topP 1, seed 1; result ids: the prompt and the new tokens */
  generate: {
    args: { model: string; ids: TokenIds; maxTokens?: number; temperature?: number; topK?: number; topP?: number;
      seed?: number };
    result: { ids: number[]; stop: StopReason };
    progress: GenerateProgress | LoadProgress;
  };
  /** the models in wasm memory, least recently used first */
  models: { args: Record<string, never>; result: ModelInfo[]; progress: never };
  /** wasmBytes: the engine's memory (it never shrinks: the peak so far); modelBytes: the models kept in it */
  memory: { args: Record<string, never>; result: { wasmBytes: number; modelBytes: number }; progress: never };
}

/** call()'s arguments after op: args (optional when the op needs none) and options. */
export type CallArgs<Op extends keyof WorkerOps> = {} extends WorkerOps[Op]['args']
  ? [args?: WorkerOps[Op]['args'], options?: CallOptions<WorkerOps[Op]['progress']>]
  : [args: WorkerOps[Op]['args'], options?: CallOptions<WorkerOps[Op]['progress']>];

/** A call's promise, with the id that cancel() takes. */
export type CallPromise<T> = Promise<T> & { id: number };

export interface CallOptions<Progress = unknown> {
  /** receives each progress report before the result */
  onProgress?: (progress: Progress) => void;
  /** objects to transfer to the worker instead of copying (e.g. an ArrayBuffer) */
  transfer?: Transferable[];
}

/** The page side of one engine worker. Most pages want sharedEngine(). */
export declare class EngineClient {
  /** workerUrl: the worker script (default: the library's worker.js), relative to the document */
  constructor(workerUrl?: string | URL);
  /** the worker script's absolute URL */
  readonly workerUrl: string;
  /** null when the worker could not be started */
  readonly worker: Worker | null;
  /** why the worker cannot answer any more (later calls then fail at once), or null */
  broken: string | null;
  /** true once the worker has sent its first message */
  started: boolean;
  /** resolves when the engine in the worker has started, with its build (Engine's build: which module, threads and
   * why) */
  readonly ready: CallPromise<{ ok: true; build: EngineBuild }>;
  /** (internal) the id of the next call */
  nextId: number;
  /** (internal) calls waiting for an answer, by id */
  readonly pending: Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void;
    onProgress?: (progress: unknown) => void }>;
  /** (internal) model loads by key, shared by every caller */
  readonly models: Map<string, CallPromise<ModelInfo>>;

  /** Runs op in the worker; the promise has .id for cancel(). Ops a page's own worker adds take the second form. */
  call<Op extends keyof WorkerOps>(op: Op, ...rest: CallArgs<Op>): CallPromise<WorkerOps[Op]['result']>;
  call<T = unknown>(op: string, args?: object, options?: CallOptions): CallPromise<T>;
  /** Aborts a running call: its download, its wait for a model, or a generation after the current token. */
  cancel(promise: { id?: number } | null | undefined): void;
  /** Starts loading a model early; a later loadModel of the URL joins that load. */
  prefetch(url: string | URL): void;
  /** A model URL (relative to the document) -> its info; repeated and concurrent calls share one load. */
  loadModel(url: string | URL, onProgress?: (progress: LoadProgress) => void): CallPromise<ModelInfo>;
  /**
   * Converts a Hugging Face checkpoint in the worker to options.dtype ('q16', 'q8' or 'f32'; by default the
   * engine's choice for its shape: q16, or q8 where q16's file would pass 2 GiB, as GPT-2 XL's); key names
   * the checkpoint, and the model's key (the result's key, in the cache and in shared links) is key with the format
   * before it unless q8, as 'q16:' + key, so one checkpoint's formats never share a key.
   */
  convertModel(source: CheckpointSource, key: string, name: string,
    onProgress?: ((progress: LoadProgress) => void) | null,
    options?: { dtype?: ModelConfig['dtype'] }): CallPromise<ModelInfo>;
  /**
   * An .arcs file (a picked or dropped file): a File (or Blob) is read by the worker as it loads, so the page never
   * holds it; bytes are transferred to the worker (detached here).
   */
  loadModelBytes(bytes: Uint8Array | Blob, key: string, name: string,
    onProgress?: (progress: LoadProgress) => void): CallPromise<ModelInfo>;

  /** (internal) handles one message from the worker */
  receive(message: { id: number; progress?: unknown; result?: unknown; error?: string }): void;
  /** (internal) rejects every waiting call with message */
  failAll(message: string): void;
  /** (internal) records promise as key's model load; a failure puts back the previous one */
  track<T extends CallPromise<ModelInfo>>(key: string, promise: T): T;
}

/**
 * The page's one engine worker, shared by the page and every <arc-scope>. The first call decides the worker script
 * (the library's own, or a page's worker that adds operations); later calls return the same client.
 */
export declare function sharedEngine(workerUrl?: string | URL): EngineClient;
