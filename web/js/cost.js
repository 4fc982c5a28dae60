// cost.js: section 6, the article's timing experiment run in the worker, plotted with a fitted quadratic.
import { costChart, fitQuadratic } from './charts.js';

const $ = (id) => document.getElementById(id);

export function setupCost(engine) {
  const button = $('cost-run');
  let job = null;
  costChart($('cost-chart'), [], [0, 0, 0]);
  button.addEventListener('click', async () => {
    if (job) { engine.cancel(job); return; }
    const points = [];
    const draw = () => {
      const coef = points.length >= 3 ? fitQuadratic(points) : [0, 0, 0];
      costChart($('cost-chart'), points, coef);
      $('cost-table').tBodies[0].replaceChildren(...points.map((p) => {
        const tr = document.createElement('tr');
        for (const [v, cls] of [[String(p.n), ''], [p.ms.toFixed(1), 'num-cell'],
          [points.length >= 3 ? (coef[0] + coef[1] * p.n + coef[2] * p.n * p.n).toFixed(1) : '', 'num-cell']]) {
          const td = tr.insertCell();
          td.textContent = v;
          if (cls) td.className = cls;
        }
        return tr;
      }));
      if (points.length >= 3) {
        $('cost-status').textContent = `fit: ${coef[0].toFixed(2)} + ${coef[1].toExponential(2)}·n + ${coef[2].toExponential(2)}·n² ms`;
      }
    };
    button.textContent = 'Stop';
    $('cost-status').textContent = 'running in the worker…';
    job = engine.call('costExperiment', { lengths: [128, 256, 512, 1024], repeats: 3 }, {
      onProgress: (p) => { points.push(p); draw(); },
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
