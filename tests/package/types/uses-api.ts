// uses-api.ts: the package's API as a TypeScript user writes it; it must type-check against the package's
// declarations (tsc -p tsconfig.json). wrong-attribute.ts is its counterpart that must not.
import { createEngine, defaultAssets, readBytes, version } from 'arcscope';
import type { Engine, GenerateResult, HeadScores, HookName, Model, StopReason, TopToken } from 'arcscope';
import { analysisCache, ArcScopeElement } from 'arcscope/element';
import type { ArcScopeResult } from 'arcscope/element';
import { sharedEngine } from 'arcscope/worker-client';
import type { ModelInfo } from 'arcscope/worker-client';

const release: string = version;

// ---- the engine, in Node or a page ----
const engine: Engine = await createEngine({ tokenizerUrl: defaultAssets.tokenizer });
const { ids, tokens } = engine.tokenize("The trophy didn't fit");
const firstToken: string = tokens[0];
const text: string = engine.decode(engine.encode('Hello world'));
const model: Model = engine.loadModel(await readBytes(defaultAssets.model));
const { n_layer, n_head, n_ctx, dtype } = model.config;
const q8: boolean = dtype === 'q8';

// Attention is captured by default: [n_layer, n_head, T, T], flat.
const out = model.forward(ids);
const [L, H, T] = out.attentionShape;
const lastHeadSelf: number = out.attention[(((L - 1) * H + (H - 1)) * T + (T - 1)) * T + (T - 1)];
const withoutAttention = model.forward(new Int32Array(ids), { attention: false, allLogits: true });
const nothing: Float32Array | null = withoutAttention.attention;
const next: TopToken[] = model.topk(out.logits, 5);
const likely: string = next[0].token;
const step = model.append(next[0].id);
const row: Float32Array = step.attention;
const cached: number = model.length;

const generated: GenerateResult = await model.generate({
  ids, maxTokens: 8, temperature: 0.8, topK: 40, topP: 0.95, seed: 1, attention: true,
  onToken: ({ id, token, index, attention, attentionShape }) => {
    console.log(index, id, token, attention?.length, attentionShape?.[2]);
    return index < 4;
  },
});
const stop: StopReason = generated.stop;
if (stop === 'callback' || stop === 'max_tokens') console.log(generated.text, generated.ids.length);
await model.generate({ ids, onToken: async () => { await Promise.resolve(); } });

const scores: HeadScores = model.headScores({ seed: 1, length: 20 });
const withBos: number[] = model.toTokens("The trophy didn't fit", { prependBos: true });
const strToks: string[] = model.toStrToks(withBos);
const { cache } = model.runWithCache(withBos, { names: (n) => n.endsWith('attn.hook_pattern') });
const pattern: Float32Array = cache['blocks.0.attn.hook_pattern'].data;
const firstName: HookName = model.hookNames[0];
void [strToks, pattern, firstName];
const [scoreLayers, scoreHeads] = scores.shape;
const induction: number = scores.induction[(scoreLayers - 1) * scoreHeads];
const perplexity: number = model.perplexity(ids, { window: n_ctx }).perplexity;

// The article's blocks.
const x = engine.randomNormal([2, 8, 64], { seed: 42 });
const single = engine.singleHeadAttention(64, 16, { seed: 42 });
const { weights, scores: raw } = single.forward(x.data, x.shape, { mask: engine.causalMask(8) });
const wq: number[] = single.weight('W_q').shape;
single.setWeight('W_v', new Float32Array(64 * 16));
const multi = engine.multiHeadAttention(64, 4);
const merged = multi.forward([[[...x.data.subarray(0, 64)]]], [1, 1, 64]).merged;
const cost = engine.attentionCost({ lengths: [16, 32, 64], repeats: 1 });
const a: number | undefined = cost.fit?.a;
single.free();
multi.free();
model.free();

// ---- the worker client (a page) ----
const client = sharedEngine();
const info: ModelInfo = await client.loadModel(defaultAssets.model.href, (p) => console.log(p.stage, p.loaded));
const analyzing = client.call('analyze', { model: info.key, text: 'Hello world', topk: 5 });
const callId: number = analyzing.id;
const analysis = await analyzing;
const [aL, aH, aT] = analysis.shape;
const label: string = analysis.labels[0].text;
client.cancel(analyzing);
const custom = await client.call<{ answer: number }>('myOwnOp', { question: 1 });
const answer: number = custom.answer;

// ---- <arc-scope> ----
const el = document.createElement('arc-scope');
const typed: ArcScopeElement = el;
el.text = 'The trophy did not fit in the bag because it was too big';
el.model = defaultAssets.model;
el.layer = 3;
el.layer = 'mean';
el.head = 'all';
el.head = 1;
el.mode = 'matrix';
el.topk = 5;
el.threshold = 0.05;
el.threshold = '0.05';
el.theme = 'dark';
el.loading = 'lazy';
el.src = null;
const layerAttribute: string | null = el.layer;
el.data = { tokens: ['A', ' cat'], attention: [[[[1, 0], [0.4, 0.6]]]], model: 'hand-made' };
el.data = { tokens: ['A', ' cat'], attention: new Float32Array([1, 0, 0.4, 0.6]), shape: [1, 1, 2, 2] };
el.data = null;
el.addEventListener('arcscope-ready', (e) => console.log(e.detail.model, e.detail.config?.n_layer, e.detail.layers));
el.addEventListener('arcscope-rendered', (e) => {
  const count: number = e.detail.tokens;
  const result: ArcScopeResult | null = el.result;
  console.log(count, e.detail.layer, e.detail.head, e.detail.mode, result?.attention?.length, result?.shape[3]);
  // Long texts: no whole tensor, but any head (or a mean or max) on request, and the arcs as drawn.
  result?.pattern(0, 'mean').then((rows: Float32Array) => console.log(rows.length));
  const drawn = result?.drawnArcs() ?? [];
  console.log(drawn.length);
});
el.addEventListener('arcscope-error', (e) => console.error(e.detail.message));
document.body.append(el);

const found = document.querySelector('arc-scope');
if (found) {
  found.mode = 'arcs';
  const drawn: string[] | undefined = found.result?.tokens;
  console.log(drawn);
}
const held: number = analysisCache().bytes;

console.log(release, firstToken, text, n_layer, n_head, q8, lastHeadSelf, nothing, likely, row, cached, induction,
  perplexity, weights, raw, wq, merged, a, info.config.n_vocab, callId, aL, aH, aT, label, answer, typed,
  layerAttribute, held);
