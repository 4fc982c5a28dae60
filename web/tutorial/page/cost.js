// cost.js: section 6, the article's timing experiment run in the worker, plotted with a fitted quadratic.
import { costChart } from '../views/charts.js';

const $ = (id) => document.getElementById(id);

export function setupCost(worker) {
  const button = $('cost-run');
  let job = null;
  costChart($('cost-chart'), [], null);
  button.addEventListener('click', async () => {
    if (job) { worker.cancel(job); return; }
    const points = [];
    let fit = null;  // the engine's least-squares ms ≈ a n² + b n + c, from the worker
    const draw = () => {
      costChart($('cost-chart'), points, fit);
      $('cost-table').tBodies[0].replaceChildren(...points.map((p) => {
        const tr = document.createElement('tr');
        for (const [v, cls] of [[String(p.n), ''], [p.ms.toFixed(1), 'num-cell'],
          [fit ? ((fit.a * p.n + fit.b) * p.n + fit.c).toFixed(1) : '', 'num-cell']]) {
          const td = tr.insertCell();
          td.textContent = v;
          if (cls) td.className = cls;
        }
        return tr;
      }));
      if (fit) {
        $('cost-status').textContent = `fit: ${fit.a.toExponential(2)}·n² + ${fit.b.toExponential(2)}·n + ${fit.c.toFixed(2)} ms`;
      }
    };
    button.textContent = 'Stop';
    $('cost-status').textContent = 'running in the worker…';
    job = worker.call('costExperiment', { lengths: [128, 256, 512, 1024], repeats: 3 }, {
      onProgress: (p) => { points.push({ n: p.n, ms: p.ms }); fit = p.fit; draw(); },
    });
    try {
      await job;
      if (points.length < 3) $('cost-status').textContent = 'stopped';
    } catch (e) {
      $('cost-status').textContent = `failed: ${e.message}`;
    } finally {
      job = null;
      button.textContent = 'Run the experiment';
    }
  });
}
