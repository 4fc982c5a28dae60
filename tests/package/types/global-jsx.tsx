// global-jsx.tsx: <arc-scope> through the global JSX namespace that older React types and other JSX libraries read
// (tsconfig.global-jsx.json: classic JSX with a factory of its own, so TypeScript looks the element up there).
import 'arcscope/react';

declare function h(tag: string, props: object | null, ...children: unknown[]): unknown;
void h;

export const figure = <arc-scope text="The trophy didn't fit" layer={3} head="all" mode="matrix" />;
