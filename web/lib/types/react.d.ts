// react.d.ts: the types of react.js: <arc-scope> in React's JSX, its attributes typed (ArcScopeAttributes), for
// React 19's React.JSX (the automatic runtime and the classic one) and the global JSX namespace of older React types.
// Only `import 'arcscope/react'` reads React's declarations (@types/react): the package's other entries do not.
import type { DetailedHTMLProps, HTMLAttributes } from 'react';
import type { ArcScopeAttributes, ArcScopeElement } from './element.js';

/** <arc-scope>'s props in JSX: an HTML element's (className, style, ref, onClick, ...) and its attributes. */
export type ArcScopeProps = DetailedHTMLProps<HTMLAttributes<ArcScopeElement>, ArcScopeElement> & ArcScopeAttributes;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'arc-scope': ArcScopeProps;
    }
  }
}

declare global {
  namespace JSX {
    interface IntrinsicElements {
      'arc-scope': ArcScopeProps;
    }
  }
}
