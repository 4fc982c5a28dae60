// gpt2-family.test.mjs: the loader's GPT-2 family (web/tutorial/page/gpt2-family.js). Every size it shows is the
// engine's converter's own, read from a header in the Hugging Face layout of each shape; what the loader says before a
// download follows from those sizes and what the browser reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engine } from './support.mjs';
import { checkpoint } from './crafted-files.mjs';
import { GPT2_FAMILY, checkpointUrls, loadingLimits } from '../../web/tutorial/page/gpt2-family.js';
import { formatBytes } from '../../web/lib/shared/downloads.js';
import { defaultFormat } from '../../web/tutorial/page/model-formats.js';

test('each model\'s download and .arcs sizes are the converter\'s, from a header of its shape', async () => {
  const e = await engine();
  for (const m of GPT2_FAMILY) {
    const config = { n_layer: m.layers, n_head: m.heads, n_embd: m.width, n_positions: 1024, vocab_size: 50257 };
    const header = checkpoint(config, { headerOnly: true });
    const tensors = Object.values(JSON.parse(new TextDecoder().decode(header.subarray(8))));
    const data = Math.max(...tensors.map((t) => t.data_offsets[1]));
    assert.equal(m.download, data + m.layers * 1024 * 1024 * 4, `${m.id}: the weights and one 1024 x 1024 mask a layer`);
    for (const dtype of ['q8', 'q16', 'f32']) {
      const conv = e.core.ModelConverter.create(JSON.stringify(config), dtype, header.length + data);
      try {
        if (m.arcs[dtype]) {
          conv.feed(header);
          assert.equal(conv.outputBytes(), m.arcs[dtype], `${m.id} in ${dtype}`);
        } else {
          assert.throws(() => conv.feed(header), /this build can address 4\.3 GB/, `${m.id} in ${dtype}`);
        }
      } finally {
        conv.delete();
      }
    }
    assert.match(checkpointUrls(m).safetensorsUrl, new RegExp(`^https://huggingface\\.co/${m.repo}/resolve/main/model\\.safetensors$`));
  }
  console.log(GPT2_FAMILY.map((m) => `${m.id}: ${formatBytes(m.download)} download, q8 ${formatBytes(m.arcs.q8)}`).join('; '));
});

test('the loader\'s default format for each model is the engine\'s: q16 up to gpt2-large, q8 for gpt2-xl', async () => {
  const e = await engine();
  const picked = GPT2_FAMILY.map((m) => {
    const config = { n_layer: m.layers, n_head: m.heads, n_embd: m.width, n_positions: 1024, vocab_size: 50257 };
    assert.equal(defaultFormat(m.arcs), e.defaultDtype(config), m.id);
    assert.equal(e.defaultDtype(JSON.stringify(config)), e.defaultDtype(config), `${m.id}: config as text`);
    return `${m.id} ${defaultFormat(m.arcs)}`;
  });
  assert.deepEqual(picked, ['distilgpt2 q16', 'gpt2 q16', 'gpt2-medium q16', 'gpt2-large q16', 'gpt2-xl q8']);
  // A config the converter refuses is refused here too, with the converter's words.
  assert.throws(() => e.defaultDtype({ n_layer: 0, n_head: 12, n_embd: 768, n_positions: 1024, vocab_size: 50257 }),
    /n_layer/);
  assert.throws(() => e.defaultDtype('{'), /config\.json/);
});

test('the loader says what stands in the way before anything is downloaded', () => {
  const [, small, , , xl] = GPT2_FAMILY;
  assert.equal(loadingLimits(small, 'q8', { memoryGB: 8, freeBytes: 1e10 }).notes.length, 0);
  assert.match(loadingLimits(xl, 'f32', {}).blocking,
    /^gpt2-xl in f32 would be a file of more than the 4\.3 GB .*: pick q8 \(1\.76 GB\) or q16 \(3\.31 GB\)$/);
  const [memory, kv, storage] = loadingLimits(xl, 'q8', { memoryGB: 2, freeBytes: 1e9 }).notes;
  assert.equal(memory, 'this device reports about 2 GB of memory, and gpt2-xl in q8 holds about 2.07 GB with its KV ' +
    'cache: it may fail; gpt2-medium in q8 would fit');
  assert.equal(kv, 'its KV cache is kept in f16 (314.6 MB): in f32 (629.1 MB) it would not fit beside the 1.76 GB ' +
    'model and the 1.14 GB its passes work in, in half of the 2 GB this device reports');
  assert.deepEqual(loadingLimits(xl, 'q16', {}).notes, ['its KV cache is kept in f16 (314.6 MB): in f32 (629.1 MB) it ' +
    'would not fit beside the 3.31 GB model and the 1.14 GB its passes work in, in the engine\'s 4 GB']);
  assert.equal(storage, 'the browser\'s storage has 1.00 GB free, so the 1.76 GB file will not be kept: the next visit ' +
    'converts it again');
  assert.deepEqual(loadingLimits(xl, 'q8', {}), { blocking: null, notes: [] }); // a browser that says nothing
});
