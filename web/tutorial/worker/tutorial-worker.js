// tutorial-worker.js: the engine worker of the tutorial page: the library's worker (lib/worker/worker.js) with the
// article's experiments added as operations. The library itself knows nothing of the tutorial.
import { ops, withEngine, withModel } from '../../lib/worker/worker.js';
import * as demos from './demos.js';
import { headsOps } from './heads-worker.js';
import { whatDoesItAttendTo } from '../shared/experiment.js';

Object.assign(ops, {
  singleHead: (args) => withEngine('running the single-head demo', (e) => demos.singleHead(e, args)),
  multiHead: (args) => withEngine('running the multi-head demo', (e) => demos.multiHead(e, args)),
  causalMask: (args) => withEngine('making a causal mask', (e) => demos.causalMask(e, args)),
  positional: (args) => withEngine('computing the positional encoding', (e) => demos.positional(e, args)),
  rotary: (args) => withEngine('turning vectors by position', (e) => demos.rotary(e, args)),
  rotaryInModel: (args, ctx) => withModel(args.model, ctx, "reading the model's rotated queries",
    ({ model }, e) => demos.rotaryInModel(e, model, args)),
  costExperiment: (args, ctx) => withEngine('timing attention', (e) => demos.costExperiment(e, args, ctx.progress)),
  itExperiment: (args, ctx) => withModel(args.model, ctx, "running the article's experiment",
    ({ model }) => whatDoesItAttendTo(model)),
});
// Section 7's interventions (patching, the logit lens, attribution, one head knocked out): heads-worker.js.
Object.assign(ops, headsOps);
