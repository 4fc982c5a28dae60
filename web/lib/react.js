// react.js: the entry point `arcscope/react`: defines <arc-scope> (as `arcscope/element` does) and, for TypeScript,
// types it in React's JSX (types/react.d.ts). In a React app: import 'arcscope/react'; then <arc-scope text="..." />.
import './element.js';
