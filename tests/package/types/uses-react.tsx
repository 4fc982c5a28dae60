// uses-react.tsx: <arc-scope> in a React component as a TypeScript user writes it, under strict. It must type-check
// with React's automatic runtime (tsconfig.react.json) and the classic one (tsconfig.react-classic.json).
// wrong-react.tsx is its counterpart that must not.
import * as React from 'react';
import { useEffect, useRef } from 'react';
import 'arcscope/react';
import type { ArcScopeElement } from 'arcscope/element';

export function Figure({ text, layer }: { text: string; layer: number }) {
  const ref = useRef<ArcScopeElement>(null);
  useEffect(() => {
    const el = ref.current;
    const drawn = () => console.log(el?.result?.tokens);
    el?.addEventListener('arcscope-rendered', drawn);
    return () => el?.removeEventListener('arcscope-rendered', drawn);
  }, []);
  return (
    <figure>
      <arc-scope ref={ref} text={text} layer={layer} head="all" mode="matrix" topk="auto" threshold={0.05}
        theme="dark" loading="lazy" className="figure" style={{ maxWidth: '40rem' }} />
      <arc-scope model={new URL('/models/gpt2.q8.arcs', location.href)} layer="mean" head={5} />
      <arc-scope src="/attention.json" mode="arcs" onClick={(e) => console.log(e.currentTarget.result)} />
      <arc-scope mode="ablation" answer=" dog" wrong=" cat" ablate="mean">
        <img src="fallback.png" alt="the figure, drawn" />
      </arc-scope>
    </figure>
  );
}

void React;
