// Section 7, "Which heads matter": the numbers the page shows (ablation, patching, the logit lens, direct logit
// attribution) against the engine module run independently in the page (import('/lib/arcscope.js'), not the worker
// or the page's code); a clicked head's arcs; cancel; bad input; the URL hash; the GPT-2 small preset; exports.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { COMPUTE_TIMEOUT, FIXTURE_GPT2_SHAPED, waitForRender, watchConsole } from './helpers.mjs';

const SHIPPED = '/models/shakespeare-4l.q8.arcs';
const LINE = ' the quick brown fox jumps over the lazy dog.';
const PROMPT = `${LINE} the quick brown fox jumps over the lazy`;
const CORRUPTED = `${LINE.replace('dog', 'cat')} the quick brown fox jumps over the lazy`;
const IOI = 'When Mary and John went to the store, John gave a drink to';

// Opens the page (hash optional), scrolls to the section and waits for its run to end.
async function openSection(page, hash = '') {
  await page.goto(`./${hash}`);
  await waitForRender(page);
  await page.locator('#which-heads').scrollIntoViewIfNeeded();
  await finished(page);
}
const finished = (page) => expect(page.locator('#hm-status')).toHaveAttribute('data-state', 'done', { timeout: COMPUTE_TIMEOUT });

// Everything the section computes, with the engine module in the page's main thread, on the model at url.
function reference(page, url, { prompt, corrupted, answer, wrong, kind = 'zero' }) {
  return page.evaluate(async ({ url, prompt, corrupted, answer, wrong, kind }) => {
    const { createEngine } = await import('/lib/arcscope.js');
    const engine = await createEngine();
    const model = engine.loadModel(new Uint8Array(await (await fetch(url)).arrayBuffer()));
    const { ids } = model.tokenize(prompt);
    // the page reads the prompts as engine.tokenize does, without <|endoftext|>
    const ablation = model.ablationSweep({ input: prompt, answer, wrong, kind, prependBos: false });
    const patching = corrupted ? model.patchingSweep({ clean: prompt, corrupted, answer, wrong, prependBos: false }) : null;
    const lens = model.logitLens(ids, { k: 3, target: answer });
    const dla = model.directLogitAttribution(ids, { token: answer });
    const all = model.forward(ids, { attention: true, allLogits: true });
    const V = model.config.n_vocab, T = ids.length, answerId = model.tokenize(answer).ids[0];
    const nextTop = Array.from({ length: T }, (_, t) => model.topk(all.logits.subarray(t * V, (t + 1) * V), 1)[0].token);
    const out = {
      ids, T, shape: ablation.heads.shape, baseline: ablation.baseline, metric: Array.from(ablation.heads.data),
      patching: patching && { clean: patching.clean, heads: Array.from(patching.heads.data) },
      lensTop: lens.top.map((l) => l.map((t) => t[0].token)), nextTop,
      logit: dla.logit, answerLogit: all.logits[(T - 1) * V + answerId], parts: dla.parts,
      attention: Array.from(all.attention),
    };
    model.free();
    return out;
  }, { url, prompt, corrupted, answer, wrong, kind });
}

const cellValues = (page, grid) => page.locator(`#${grid} rect.cell`).evaluateAll((rects) =>
  rects.map((r) => ({ layer: +r.dataset.layer, head: +r.dataset.head, value: +r.dataset.value, neg: r.classList.contains('neg') })));

test('the repeated line: ablating layer 1 head 0 takes the metric from 11.9 to 2.4, as model.ablationSweep says', async ({ page }) => {
  const errors = watchConsole(page);
  await openSection(page);
  const ref = await reference(page, SHIPPED, { prompt: PROMPT, corrupted: CORRUPTED, answer: ' dog', wrong: ' cat' });
  // The headline's claim: the induction head, its numbers from the run, written to one decimal.
  const claim = page.locator('#hm-headline .hm-claim');
  const shown = await claim.evaluate((e) => ({ ...e.dataset, text: e.textContent }));
  expect([+shown.layer, +shown.head]).toEqual([1, 0]);
  expect(+shown.baseline).toBe(ref.baseline);
  expect(+shown.ablated).toBe(ref.metric[4]);
  expect(shown.text).toBe(`metric ${ref.baseline.toFixed(1)} → ${ref.metric[4].toFixed(1)} without layer 1 head 0`);
  expect(shown.text).toBe('metric 11.9 → 2.4 without layer 1 head 0');
  console.log(`page: ${shown.text}; largest drop layer 0 head 0 to ${ref.metric[0].toFixed(2)}`);
  // Every cell of the ablation grid: the metric's change, coloured by its sign.
  const cells = await cellValues(page, 'hm-ablation');
  expect(cells).toHaveLength(16);
  cells.forEach((c, i) => {
    expect(c.value).toBeCloseTo(ref.metric[i] - ref.baseline, 5);
    expect(c.neg).toBe(c.value < 0);
  });
  // Patching: layer 1 head 0 alone brings back nearly all of the clean metric.
  const patched = await cellValues(page, 'hm-patching');
  expect(patched.map((c) => c.value)).toEqual(ref.patching.heads);
  expect(ref.patching.heads[4]).toBeGreaterThan(0.9);
  await expect(page.locator('#hm-patching-note')).toContainText('Patching layer 1 head 0 (taught: induction) alone recovers 99%');
  // The picked head (the claim's) and the second copy's prediction without it.
  await expect(page.locator('#hm-head-title')).toHaveText('layer 1 head 0 (taught: induction)');
  const last = page.locator('#hm-knockout table tr').nth(3).locator('td').last();
  const [withIt, without] = await Promise.all([page.locator('#hm-knockout table tr').nth(2).locator('td').last(), last]
    .map((l) => l.getAttribute('data-prob').then(Number)));
  console.log(`P(' dog') after the second ' lazy': ${(100 * withIt).toFixed(1)}% with every head, ${(100 * without).toFixed(2)}% without layer 1 head 0`);
  expect(withIt).toBeGreaterThan(0.3);
  expect(without).toBeLessThan(0.05);
  expect(errors).toEqual([]);
});

test('clicking a head draws its arcs on the prompt and lists what the last token attends to', async ({ page }) => {
  await openSection(page);
  const ref = await reference(page, SHIPPED, { prompt: PROMPT, corrupted: '', answer: ' dog', wrong: ' cat' });
  await page.locator('#hm-ablation rect[data-layer="0"][data-head="2"]').click();
  await expect(page.locator('#hm-head-title')).toHaveText('layer 0 head 2');
  await expect(page.locator('#hm-ablation rect.marked')).toHaveAttribute('data-head', '2');
  await expect(page.locator('#hm-patching rect.marked')).toHaveAttribute('data-layer', '0');
  const T = ref.T, H = 4, at = (q, k) => ref.attention[((0 * H + 2) * T + q) * T + k];
  const arcs = await page.locator('#hm-head-view path[data-from]').evaluateAll((ps) =>
    ps.map((p) => ({ from: +p.dataset.from, to: +p.dataset.to, head: +p.dataset.head, weight: +p.dataset.weight })));
  let expected = 0;
  for (let q = 0; q < T; q++) for (let k = 0; k <= q; k++) if (at(q, k) >= 0.02) expected++;
  expect(arcs).toHaveLength(expected);
  for (const a of arcs) {
    expect(a.head).toBe(2);
    expect(Math.abs(a.weight - at(a.from, a.to))).toBeLessThan(1e-5 * Math.max(1, at(a.from, a.to)));
  }
  // The top 5 for the last token, in order.
  const row = Array.from({ length: T }, (_, k) => [at(T - 1, k), k]).sort((a, b) => b[0] - a[0]).slice(0, 5);
  const listed = await page.locator('#hm-top tbody tr').evaluateAll((trs) => trs.map((tr) => [+tr.dataset.index, tr.cells[1].textContent]));
  expect(listed).toEqual(row.map(([w, k]) => [k, w.toFixed(3)]));
  await expect(page.locator('#hm-top-token')).toHaveText('·lazy');
  // The pick is in the hash, and the prompt ran again without that head.
  await expect.poll(() => new URL(page.url()).hash).toContain('hm-layer=0&hm-head=2');
  await expect(page.locator('#hm-knockout')).toHaveAttribute('data-head', '2');
  // The keyboard does what the mouse does (heatmap.js's grid(), which <arc-scope mode="ablation"> shares): the picked
  // cell is the selected gridcell and the grid's stop in the Tab order; arrows move, Enter and Space pick.
  const grid = page.locator('#hm-ablation').getByRole('grid');
  await expect(grid.getByRole('gridcell')).toHaveCount(16);
  await expect(grid.getByRole('gridcell', { selected: true })).toHaveAccessibleName(/^layer 0 head 2: logit\(·dog\)/);
  await page.locator('#hm-ablation rect[tabindex="0"]').focus();
  await expect(page.locator('#hm-ablation rect[tabindex="0"]')).toHaveAttribute('data-head', '2');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Enter');
  await expect(page.locator('#hm-head-title')).toHaveText('layer 1 head 1');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press(' ');
  await expect(page.locator('#hm-head-title')).toHaveText(/^layer 1 head 0/);
  await expect(page.locator('#hm-patching rect.marked')).toHaveAttribute('data-layer', '1');
  await expect(page.locator('#hm-ablation rect[aria-selected="true"]')).toHaveAttribute('data-head', '0');
});

test('the logit lens: the last layer\'s top token at each position is the model\'s own next token', async ({ page }) => {
  await openSection(page);
  const ref = await reference(page, SHIPPED, { prompt: PROMPT, corrupted: '', answer: ' dog', wrong: ' cat' });
  const rows = await page.locator('#hm-lens tbody tr').evaluateAll((trs) => trs.map((tr) =>
    [...tr.querySelectorAll('td')].map((td) => td.dataset.top)));
  expect(rows).toEqual(ref.lensTop);
  expect(rows.at(-1)).toEqual(ref.nextTop);
  expect(rows.at(-1).at(-1)).toBe(' dog');
  // The answer's probability is highlighted: the last column says it, and a cell whose top token is it is marked.
  const lastCell = page.locator('#hm-lens tbody tr').last().locator('td').last();
  await expect(lastCell).toHaveClass(/hit/);
  await expect(lastCell.locator('.target')).toHaveText(/^·dog \d+%$/);
});

test('the attribution bars add up to the logit shown, which is the model\'s own logit', async ({ page }) => {
  await openSection(page);
  const ref = await reference(page, SHIPPED, { prompt: PROMPT, corrupted: '', answer: ' dog', wrong: ' cat' });
  const values = await page.locator('#hm-dla rect.bar').evaluateAll((rs) => rs.map((r) => +r.dataset.value));
  expect(values).toHaveLength(1 + 4 * 5 + 1); // the embedding, 4 heads and the MLP per layer, the biases
  const sum = values.reduce((s, v) => s + v, 0);
  const shown = await page.locator('#hm-dla-sum').evaluate((e) => ({ logit: +e.dataset.logit, sum: +e.dataset.sum, text: e.textContent }));
  expect(shown.logit).toBe(ref.logit);
  expect(Math.abs(ref.logit - ref.answerLogit)).toBeLessThan(1e-4 * Math.abs(ref.logit));
  expect(shown.sum).toBeCloseTo(sum, 9);
  expect(shown.text).toContain(`= ${ref.logit.toFixed(2)}`);
  // On an int8 model the parts add up within its rounding (on f32 models to 1e-4: tests/js/interventions.test.mjs).
  console.log(`logit ${ref.logit.toFixed(4)}, bars add up to ${sum.toFixed(4)} (${ref.parts.length} parts)`);
  expect(Math.abs(sum - ref.logit)).toBeLessThan(0.02 * Math.abs(ref.logit));
  const head = await page.locator('#hm-dla rect[data-part="blocks.1.attn.head.0"]').getAttribute('data-value');
  expect(+head).toBe(ref.parts.find((p) => p.name === 'blocks.1.attn.head.0').value);
});

test('cancel stops a running sweep between two of its layers, and the page stays responsive while it runs', async ({ page }) => {
  await openSection(page);
  // About 240 tokens that differ from the first: the patching sweep reruns every (layer, position), about a second
  // of work a layer.
  const long = `A${LINE.repeat(22)} the quick brown fox jumps over the lazy`;
  await page.fill('#hm-prompt', long);
  await page.fill('#hm-corrupted', `B${long.slice(1)}`);
  await page.evaluate(() => {
    const e = window.arcscopePage.worker, call = e.call.bind(e), cancel = e.cancel.bind(e);
    window.calls = [];
    window.cancels = 0;
    e.call = (op, ...rest) => { window.calls.push(op); return call(op, ...rest); };
    e.cancel = (job) => { window.cancels++; return cancel(job); };
    // The longest wait between two timer ticks while the sweep runs: the main thread is never blocked by it.
    window.worstGap = 0;
    let last = performance.now();
    window.ticker = setInterval(() => { const now = performance.now(); window.worstGap = Math.max(window.worstGap, now - last); last = now; }, 10);
  });
  await page.click('#hm-run');
  await expect(page.locator('#hm-progress-text')).toContainText('1 of 5: patching');
  await expect(page.locator('#hm-progress-text')).toContainText('1 of 4 layers done'); // inside the sweep
  await page.locator('#hm-prompt').press('End'); // the page takes input meanwhile
  await page.click('#hm-cancel');
  // The worker is free again once the sweep stops: a call that needs the engine's turn waits only for that.
  const freeAfter = await page.evaluate(async () => {
    const t0 = performance.now();
    const { sharedEngine } = await import('/lib/worker-client.js');
    await sharedEngine().call('tokenize', { text: 'x' });
    return performance.now() - t0;
  });
  console.log(`cancelled inside the patching sweep: the engine was free again ${freeAfter.toFixed(0)} ms later`);
  const status = page.locator('#hm-status');
  await expect(status).toHaveAttribute('data-state', 'cancelled');
  await expect(status).toContainText('Cancelled after 0 of 5 steps');
  await expect(status).toContainText('ablation, attention, lens, attribution not computed');
  await expect(page.locator('#hm-progress')).toBeHidden();
  await expect(page.locator('#hm-cancel')).toBeHidden();
  // Long after the patching sweep has come back, nothing else was asked for and nothing was drawn.
  await page.evaluate(async () => { const { sharedEngine } = await import('/lib/worker-client.js'); await sharedEngine().call('tokenize', { text: 'x' }); });
  await page.waitForTimeout(500);
  const { calls, cancels, worstGap } = await page.evaluate(() => {
    clearInterval(window.ticker);
    return { calls: window.calls, cancels: window.cancels, worstGap: window.worstGap };
  });
  expect(calls.filter((op) => op !== 'tokenize')).toEqual(['patchingSweep']); // tokenize: this test's own call above
  expect(cancels).toBe(1);
  console.log(`while the sweep ran, the longest gap between 10 ms timer ticks was ${worstGap.toFixed(0)} ms`);
  expect(worstGap).toBeLessThan(250);
  await expect(page.locator('#hm-ablation rect.cell')).toHaveCount(0);
  await expect(page.locator('#hm-ablation')).toHaveText('Not computed: the run was cancelled.');
  await expect(page.locator('#hm-error')).toBeHidden();
  // Run again: it completes.
  await page.click('#hm-run');
  await finished(page);
  await expect(page.locator('#hm-ablation rect.cell')).toHaveCount(16);
});

test('bad input shows the engine\'s message in the section, never a blank', async ({ page }) => {
  await openSection(page);
  const error = page.getByRole('alert').and(page.locator('#hm-error'));
  const run = async (fields, message) => {
    for (const [id, value] of Object.entries(fields)) await page.fill(`#hm-${id}`, value);
    await page.click('#hm-run');
    await expect(error).toBeVisible();
    await expect(error).toHaveText(message);
    await expect(page.locator('#hm-ablation rect.cell')).toHaveCount(0);
    await expect(page.locator('#hm-lens table')).toHaveCount(0);
  };
  await run({ corrupted: `${CORRUPTED} and more` },
    'patching needs prompts of the same length: the clean prompt has 18 tokens, the corrupted one 20');
  await run({ corrupted: CORRUPTED, answer: ' dog and' },
    "answer ' dog and' is 2 tokens; it must be exactly one (mind the leading space: ' Mary')");
  await run({ answer: ' dog', wrong: '' }, "wrong '' is 0 tokens; it must be exactly one (mind the leading space: ' Mary')");
  await run({ wrong: ' cat', corrupted: PROMPT },
    'the clean and corrupted prompts are the same tokens: patching one into the other changes nothing');
  await run({ corrupted: CORRUPTED, answer: ' cat' },
    'the metric is the same on both prompts (0.000000): there is no difference for patching to recover; choose answers the prompts disagree on');
  await run({ answer: ' dog', prompt: '', corrupted: '' }, 'the input is empty: it has no tokens to run');
  // Fixed, it runs and the message goes.
  await page.fill('#hm-prompt', PROMPT);
  await page.click('#hm-run');
  await finished(page);
  await expect(error).toBeHidden();
  await expect(page.locator('#hm-ablation rect.cell')).toHaveCount(16);
});

test('the URL hash restores the section: fields, ablation kind and the picked head; bad values are named', async ({ page }) => {
  await openSection(page);
  await page.fill('#hm-prompt', ' to be or not to be, to be or not to');
  await page.fill('#hm-corrupted', '');
  await page.fill('#hm-answer', ' be');
  await page.fill('#hm-wrong', ' go');
  await page.selectOption('#hm-ablate', 'mean');
  await finished(page);
  await page.locator('#hm-ablation rect[data-layer="2"][data-head="3"]').click();
  await expect.poll(() => new URL(page.url()).hash).toContain('hm-layer=2&hm-head=3');
  const hash = new URL(page.url()).hash;
  const p = new URLSearchParams(hash.slice(1));
  expect(Object.fromEntries([...p].filter(([k]) => k.startsWith('hm')))).toEqual({ hm: 'custom',
    'hm-prompt': ' to be or not to be, to be or not to', 'hm-corrupted': '', 'hm-answer': ' be', 'hm-wrong': ' go',
    'hm-ablate': 'mean', 'hm-layer': '2', 'hm-head': '3' });
  expect(p.get('text')).toBe("The trophy didn't fit in the bag because it was too big"); // section 5's part is kept
  const numbers = await cellValues(page, 'hm-ablation');

  // A new visit with that link: the section runs (no scrolling needed) with the same settings and numbers.
  await page.goto('about:blank');
  await page.goto(`./${hash}`);
  await finished(page);
  expect(await page.inputValue('#hm-prompt')).toBe(' to be or not to be, to be or not to');
  expect(await page.inputValue('#hm-answer')).toBe(' be');
  expect(await page.inputValue('#hm-ablate')).toBe('mean');
  expect(await page.inputValue('#hm-preset')).toBe('custom');
  await expect(page.locator('#hm-patching')).toHaveText('No corrupted prompt: patching skipped.');
  expect(await cellValues(page, 'hm-ablation')).toEqual(numbers);
  await expect(page.locator('#hm-head-title')).toHaveText('layer 2 head 3');
  expect(new URL(page.url()).hash).toBe(hash);

  // Back to a preset by the hash (hashchange): only its name is written.
  await page.evaluate(() => { location.hash = '#hm=induction'; });
  await expect.poll(() => page.inputValue('#hm-prompt')).toBe(PROMPT);
  expect(await page.inputValue('#hm-ablate')).toBe('zero');
  await finished(page);

  // Bad values keep the defaults and are named.
  await page.goto('about:blank');
  await page.goto('./#hm=gpt3&hm-ablate=half&hm-layer=1.5&hm-head=0');
  await expect(page.locator('#hm-link-notice')).toHaveText('This link\'s hm "gpt3" is not valid: use "induction", ' +
    '"ioi" or "custom"; hm-ablate "half" is not valid: use "zero" or "mean"; hm-layer "1.5" is not valid: use an ' +
    'integer from 0 up. The section\'s default is used instead.');
  expect(await page.inputValue('#hm-prompt')).toBe(PROMPT);
});

test('the indirect-object preset: the default model says it needs GPT-2 small and offers the loader; a 12 x 12 model runs it', async ({ page }) => {
  await openSection(page);
  await page.selectOption('#hm-preset', 'ioi');
  expect(await page.inputValue('#hm-prompt')).toBe(IOI);
  expect(await page.inputValue('#hm-answer')).toBe(' Mary');
  const needs = page.locator('#hm-needs');
  await expect(needs).toBeVisible();
  await expect(needs).toContainText('This preset is for GPT-2 small (12 layers × 12 heads)');
  await expect(needs).toContainText('shakespeare-4l.q8.arcs has 4 layers × 4 heads');
  await expect(page.locator('#hm-ablation rect.cell')).toHaveCount(0); // not run on its own
  expect(new URL(page.url()).hash).toContain('hm=ioi');
  await needs.getByRole('button', { name: 'Load GPT-2 small…' }).click();
  await expect(page.locator('dialog[open]')).toBeVisible();
  await page.click('#loader-close');

  // A model of GPT-2 small's shape (random weights, narrow): the preset runs at once, 144 heads a grid.
  const errors = watchConsole(page);
  await page.goto('about:blank');
  await page.goto(`./#model=${encodeURIComponent(FIXTURE_GPT2_SHAPED)}&hm=ioi`);
  await finished(page);
  await expect(needs).toBeHidden();
  const ref = await reference(page, FIXTURE_GPT2_SHAPED, { prompt: IOI, corrupted: IOI.replace('John gave', 'Mary gave'),
    answer: ' Mary', wrong: ' John' });
  expect(ref.shape).toEqual([12, 12]);
  const cells = await cellValues(page, 'hm-ablation');
  expect(cells).toHaveLength(144);
  cells.forEach((c, i) => expect(c.value).toBeCloseTo(ref.metric[i] - ref.baseline, 5));
  expect((await cellValues(page, 'hm-patching')).map((c) => c.value)).toEqual(ref.patching.heads);
  await expect(page.locator('#hm-lens tbody tr')).toHaveCount(12);
  await expect(page.locator('#hm-dla rect.bar')).toHaveCount(1 + 12 * 13 + 1);
  const claim = await page.locator('#hm-headline .hm-claim').evaluate((e) => ({ ...e.dataset }));
  const worst = ref.metric.indexOf(Math.min(...ref.metric));
  expect([+claim.layer, +claim.head]).toEqual([Math.floor(worst / 12), worst % 12]); // no preset head: the largest drop
  expect(errors).toEqual([]);
});

test('results export as JSON, and the heatmaps as standalone SVG and PNG', async ({ page }) => {
  await openSection(page);
  const save = async (id) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`#${id}`)]);
    return { name: download.suggestedFilename(), bytes: readFileSync(await download.path()) };
  };
  const json = await save('hm-export-json');
  expect(json.name).toBe('arcscope-heads.json');
  const out = JSON.parse(json.bytes.toString('utf8'));
  const ref = await reference(page, SHIPPED, { prompt: PROMPT, corrupted: CORRUPTED, answer: ' dog', wrong: ' cat' });
  expect(out).toMatchObject({ preset: 'induction', prompt: PROMPT, corrupted: CORRUPTED, answer: ' dog', wrong: ' cat',
    ablate: 'zero', ids: ref.ids, model: { name: 'shakespeare-4l.q8.arcs' } });
  expect(out.ablation.baseline).toBe(ref.baseline);
  expect(out.ablation.metric.flat()).toEqual(ref.metric);
  expect(out.patching.heads.flat()).toEqual(ref.patching.heads);
  expect(out.lens.top.at(-1).at(-1)[0].token).toBe(' dog');
  expect(out.attribution.parts).toEqual(ref.parts);
  for (const which of ['ablation', 'patching']) {
    const svg = await save(`hm-export-${which}-svg`);
    expect(svg.name).toBe(`arcscope-${which}.svg`);
    const text = svg.bytes.toString('utf8');
    expect(text).toMatch(/^<\?xml/);
    expect(text.match(/<rect [^>]*data-row=/g)).toHaveLength(16);
    expect(text).not.toContain('<script');
    const png = await save(`hm-export-${which}-png`);
    expect(png.name).toBe(`arcscope-${which}.png`);
    expect(png.bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  }
});

test('under the strict Content-Security-Policy the section runs, exports and reports no violation', async ({ page }) => {
  const errors = watchConsole(page); // a blocked inline style or script is a console error
  const csp = `http://127.0.0.1:${process.env.ARCSCOPE_CSP_PORT}/`;
  const response = await page.goto(csp);
  expect(response.headers()['content-security-policy']).toContain("script-src 'self' 'wasm-unsafe-eval'");
  await waitForRender(page);
  await page.locator('#which-heads').scrollIntoViewIfNeeded();
  await finished(page);
  await page.locator('#hm-patching rect[data-layer="3"][data-head="3"]').click();
  await expect(page.locator('#hm-knockout')).toHaveAttribute('data-head', '3');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#hm-export-ablation-png')]);
  expect(readFileSync(await download.path()).subarray(1, 4).toString('latin1')).toBe('PNG');
  expect(errors).toEqual([]);
});
