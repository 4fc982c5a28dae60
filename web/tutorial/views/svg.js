// svg.js: the page's charts make their SVG elements with the library's maker (lib/views/svg-element.js), as el().
export { svgElement as el } from '../../lib/views/svg-element.js';
