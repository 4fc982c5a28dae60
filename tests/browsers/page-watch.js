// page-watch.js: the first script of every page the browser suite opens (sites.mjs puts it at the top of each page's
// head). It records what the page reports, since WebKitWebDriver returns no console log: console.error calls, errors
// that reach window, unhandled rejections, and every <arc-scope> event with its detail and time. The suite reads
// window.pageWatch.
(() => {
  const watch = { errors: [], events: [] };
  window.pageWatch = watch;
  const text = (v) => (v instanceof Error ? `${v.name}: ${v.message}` : typeof v === 'string' ? v : String(v));
  const consoleError = console.error.bind(console);
  console.error = (...args) => {
    watch.errors.push(`console.error: ${args.map(text).join(' ')}`);
    consoleError(...args);
  };
  window.addEventListener('error', (e) => watch.errors.push(`error: ${e.message} (${e.filename}:${e.lineno})`));
  window.addEventListener('unhandledrejection', (e) => watch.errors.push(`unhandled rejection: ${text(e.reason)}`));
  // The element's events do not bubble: listen in the capture phase, which every event passes through.
  for (const type of ['arcscope-ready', 'arcscope-rendered', 'arcscope-error']) {
    document.addEventListener(type, (e) => watch.events.push({ type, id: e.target.id,
      detail: JSON.parse(JSON.stringify(e.detail)), at: performance.now() }), true);
  }
})();
