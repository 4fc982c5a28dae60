// wrong-react.tsx: misuses of <arc-scope> in JSX that the declarations must refuse (tsc -p tsconfig.wrong-react.json
// fails with these two errors, and no others):
//   wrong-react.tsx(9,16): error TS2322: Type '"pie"' is not assignable to type 'ArcScopeMode | null | undefined'.
//   wrong-react.tsx(10,16): error TS2322: Type '"high"' is not assignable to type 'ArcScopeNumber | null | undefined'.
import 'arcscope/react';

export const Figures = () => (
  <div>
    <arc-scope mode="pie" />
    <arc-scope threshold="high" />
  </div>
);
