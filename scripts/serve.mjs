// serve.mjs: a small static server for the pages, from the source tree plus the build's outputs: / serves the
// tutorial (web/tutorial/) over web/ (so /embed.html is the embed example, and web/'s own paths, /tutorial/ among
// them, resolve as they do when web/ is a site's root), /lib/ serves web/lib/ over build/lib/ (the staged library:
// its wasm, tokenizer and default model; edits to web/lib/ show without restaging), /models/ serves models/.
// Usage: node scripts/serve.mjs [--port 8080] [--host 127.0.0.1] [--csp] [--isolate] [--fixtures DIR] [--test-routes]
//   --csp          adds the strict Content-Security-Policy the page must run under
//   --isolate      adds COOP/COEP headers (cross-origin isolation)
//   --fixtures     also serves DIR under /fixtures/ (test checkpoints made under build/)
//   --test-routes  adds /hostile/..., servers misbehaving the ways real ones do (for the browser tests only)
import { createServer } from 'node:http';
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { Readable } from 'node:stream';

export const STRICT_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
// [URL prefix, folders tried in order]
const mounts = [
  ['/lib/', [join(root, 'web', 'lib'), join(root, 'build', 'lib')]],
  ['/models/', [join(root, 'models')]],
  ['/', [join(root, 'web', 'tutorial'), join(root, 'web')]],
];
const fixturesAt = process.argv.indexOf('--fixtures');
if (fixturesAt >= 0) mounts.unshift(['/fixtures/', [resolve(process.argv[fixturesAt + 1])]]);
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.bin': 'application/octet-stream', '.safetensors': 'application/octet-stream',
  '.txt': 'text/plain; charset=utf-8', '.md': 'text/plain; charset=utf-8', '.ico': 'image/x-icon',
};

// --test-routes: each answers a model request badly. Matched on the raw path, before any decoding.
const hostile = {
  // accepts the request and never answers
  '/hostile/never.arcs': () => {},
  // headers and the first 64 kB of the default model, then nothing
  '/hostile/stall.arcs': (res, model) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': model.length });
    res.write(model.subarray(0, 64 << 10));
  },
  // promises the whole model, sends half, then drops the connection
  '/hostile/cut.arcs': (res, model) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': model.length });
    res.write(model.subarray(0, model.length >> 1), () => res.destroy());
  },
  // a web page where the file should be (a sign-in page, a file viewer, a single-page app's fallback)
  '/hostile/page.arcs': (res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end('<!doctype html>\n<html><head><title>Sign in</title></head><body><p>Sign in to continue</p></body></html>\n');
  },
  // a complete response of half a model file
  '/hostile/truncated.arcs': (res, model) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': model.length >> 1 });
    res.end(model.subarray(0, model.length >> 1));
  },
  // the default model under a name that is not valid percent-encoding
  '/hostile/100%ZZ.arcs': (res, model) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': model.length });
    res.end(model);
  },
  // the model's first 64 kB, then zeros for ever, with no Content-Length (ends when the client gives up)
  '/hostile/endless.arcs': (res, model) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
    const zeros = Buffer.alloc(1 << 20);
    const more = () => { while (!res.destroyed && res.write(zeros)); };
    res.on('drain', more);
    res.write(model.subarray(0, 64 << 10));
    more();
  },
  // claims 2 GB (just within what the engine can hold), sends 64 kB, then nothing
  '/hostile/claims-2gb.arcs': (res, model) => {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': 2 ** 31 });
    res.write(model.subarray(0, 64 << 10));
  },
  // a declared size past any bound: nothing needs to follow the headers
  '/hostile/huge.json': (res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': 1e8 });
    res.flushHeaders();
  },
  // a gzip bomb: about 100 kB on the wire, 100 MB of JSON-looking text once the client inflates it
  '/hostile/bomb.json': (res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
    res.flushHeaders();  // gzip would hold them back until its first output block
    const spaces = Buffer.alloc(1 << 20, 0x20);
    let left = 100;
    const text = new Readable({ read() { this.push(left-- === 100 ? Buffer.from('{"tokens": [') : left >= 0 ? spaces : null); } });
    text.pipe(createGzip({ level: 9 })).pipe(res);
    res.on('close', () => text.destroy());
  },
  // attention JSON that stalls half-way the first time each URL (query included) is asked for, and is whole after
  '/hostile/stall-once.json': (res, model, req) => {
    const json = Buffer.from(JSON.stringify({ tokens: ['a', 'b'], attention: [[[[1, 0], [0.5, 0.5]]]] }));
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': json.length });
    if (stalledOnce.has(req.url)) res.end(json);
    else { stalledOnce.add(req.url); res.write(json.subarray(0, json.length >> 1)); }
  },
};
let hostileModel = null;
const stalledOnce = new Set();

// Maps a URL path to an existing file inside one of the mounts' folders, or null (never escapes a folder).
function resolvePath(urlPath) {
  let path;
  try { path = decodeURIComponent(urlPath.split('?')[0]); } catch { return null; }
  if (path.endsWith('/')) path += 'index.html';
  const mount = mounts.find(([prefix]) => path.startsWith(prefix));
  if (!mount) return null;
  for (const dir of mount[1]) {
    const file = normalize(join(dir, path.slice(mount[0].length)));
    if (file !== dir && !file.startsWith(dir + sep)) return null;
    if (existsSync(file)) return file;
  }
  return null;
}

export function startServer({ port = 8080, host = '127.0.0.1', csp = false, isolate = false, testRoutes = false } = {}) {
  const server = createServer((req, res) => {
    const misbehave = testRoutes && hostile[req.url.split('?')[0]];
    if (misbehave) {
      hostileModel ??= readFileSync(join(root, 'models', 'shakespeare-4l.q8.arcs'));
      misbehave(res, hostileModel, req);
      return;
    }
    const file = resolvePath(req.url);
    let stat;
    try { stat = file && statSync(file); } catch { stat = null; }
    const headers = { 'Cache-Control': 'no-cache' };
    if (csp) headers['Content-Security-Policy'] = STRICT_CSP;
    if (isolate) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
    }
    if (!stat || !stat.isFile()) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' });
      res.end('not found\n');
      return;
    }
    headers['Content-Type'] = types[extname(file)] || 'application/octet-stream';
    headers['Content-Length'] = stat.size;
    res.writeHead(200, headers);
    if (req.method === 'HEAD') { res.end(); return; }
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(port, host, () => ok(server)));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name, fallback) => {
    const i = process.argv.indexOf(`--${name}`);
    return i >= 0 ? process.argv[i + 1] : fallback;
  };
  const options = {
    port: Number(arg('port', process.env.PORT || 8080)),
    host: arg('host', '127.0.0.1'),
    csp: process.argv.includes('--csp'),
    isolate: process.argv.includes('--isolate'),
    testRoutes: process.argv.includes('--test-routes'),
  };
  await startServer(options);
  console.log(`arcscope: serving on http://${options.host}:${options.port}/${options.csp ? ' (strict CSP)' : ''}`);
}
