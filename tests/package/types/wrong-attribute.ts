// wrong-attribute.ts: misuses of <arc-scope> that the declarations must refuse. tsc -p tsconfig.wrong-attribute.json
// must fail with exactly these three errors (and uses-api.ts, the right uses, must pass):
//   wrong-attribute.ts(9,1): error TS2322: Type '"pie"' is not assignable to type 'ArcScopeMode | null | undefined'.
//   wrong-attribute.ts(10,1): error TS2322: Type '"high"' is not assignable to type 'ArcScopeNumber | null | undefined'.
//   wrong-attribute.ts(11,70): error TS2339: Property 'count' does not exist on type 'ArcScopeRenderedDetail'.
import 'arcscope/element';

const el = document.createElement('arc-scope');
el.mode = 'pie';
el.threshold = 'high';
el.addEventListener('arcscope-rendered', (e) => console.log(e.detail.count));
