// sites.mjs: the servers the browser suite opens its pages on, on free ports of 127.0.0.1.
// - repo: scripts/serve.mjs's server (the tutorial at /, /embed.html, /lib/, /models/), behind a proxy that puts
//   page-watch.js first in every HTML page's head and serves float-hash.mjs, the bad models at /bad/ and a tiny
//   checkpoint at /checkpoints/tiny/; insecure: the same proxy on the machine's network address, where a page is not a secure
//   context (no Cache Storage), or null on a machine without one.
// - site and assets, two origins: a post on one (post.html; bad-models.html) that loads <arc-scope> from the
//   self-host folder scripts/package.mjs writes into dist/, served with CORS on the other.
import { createServer, request } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { checkpoint } from '../js/crafted-files.mjs';
import { startServer } from '../../scripts/serve.mjs';
import { repoRoot, selfHostFolder, serveFolder } from '../package/consumer.mjs';

export const DEFAULT_MODEL_FILE = 'shakespeare-4l.q8.arcs';
const WATCH = readFileSync(new URL('./page-watch.js', import.meta.url));
const FLOAT_HASH = readFileSync(new URL('./float-hash.mjs', import.meta.url));
const watchTag = '<script src="/page-watch.js"></script>';

// The default model with one byte changed half-way: its checksum no longer matches.
function corruptModel() {
  const bytes = readFileSync(join(repoRoot, 'models', DEFAULT_MODEL_FILE));
  bytes[bytes.length >> 1] ^= 0x55;
  return bytes;
}

// A GPT-2 of one layer, one head and width 8 in the Hugging Face layout, for the page to convert.
export const TINY_CHECKPOINT = '/checkpoints/tiny/model.safetensors';
const TINY = { n_layer: 1, n_head: 1, n_embd: 8, n_positions: 16, vocab_size: 50257 };

const listen = (server, host = '127.0.0.1') => new Promise((ok) => server.listen(0, host, () =>
  ok(`http://${host}:${server.address().port}/`)));
// The machine's first IPv4 address that is not loopback: pages there are not secure contexts.
const networkAddress = () => Object.values(networkInterfaces()).flat().find((a) => a.family === 'IPv4' && !a.internal)?.address;

// Forwards every request to the server at upstream, with page-watch.js added to HTML pages; files: path -> bytes
// served by the proxy itself.
function watchingProxy(upstream, files) {
  return createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (files[path]) {
      res.writeHead(200, { 'Content-Type': /\.m?js$/.test(path) ? 'text/javascript'
        : path.endsWith('.json') ? 'application/json' : 'application/octet-stream',
        'Content-Length': files[path].length, 'Cache-Control': 'no-cache' }).end(files[path]);
      return;
    }
    const forward = request(new URL(req.url, upstream), { method: req.method, headers: req.headers }, (answer) => {
      if (!/^text\/html/.test(answer.headers['content-type'] ?? '')) {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
        return;
      }
      const chunks = [];
      answer.on('data', (c) => chunks.push(c));
      answer.on('end', () => {
        const html = Buffer.from(Buffer.concat(chunks).toString().replace(/<head>/i, `<head>\n${watchTag}`));
        res.writeHead(answer.statusCode, { ...answer.headers, 'content-length': html.length }).end(html);
      });
    });
    forward.on('error', (e) => {
      if (res.headersSent) res.destroy(); // the answer was under way: cut it, as the server would have
      else res.writeHead(502, { 'Content-Type': 'text/plain' }).end(`${e.message}\n`);
    });
    req.pipe(forward);
  });
}

const post = (assets, body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8">${watchTag}<title>a post</title></head>
<body><h1>A post</h1>
${body}
<script type="module" src="${assets}lib/arc-scope.js"></script>
</body></html>
`;

// extra: more path -> bytes for the proxy to serve. -> {repo, insecure, site, assets (URLs ending in /), close()}
export async function startSites({ text, extra = {} }) {
  const servers = [];
  const upstream = await startServer({ port: 0 });
  servers.push(upstream);
  const corrupt = corruptModel();
  const files = { '/page-watch.js': WATCH, '/float-hash.mjs': FLOAT_HASH, '/bad/corrupt.arcs': corrupt, [TINY_CHECKPOINT]: checkpoint(TINY),
    [TINY_CHECKPOINT.replace('model.safetensors', 'config.json')]: Buffer.from(JSON.stringify(TINY)), ...extra };
  const upstreamUrl = `http://127.0.0.1:${upstream.address().port}/`;
  const proxy = watchingProxy(upstreamUrl, files);
  servers.push(proxy);
  const repo = await listen(proxy);
  let insecure = null;
  if (networkAddress()) {
    const open = watchingProxy(upstreamUrl, files);
    servers.push(open);
    insecure = await listen(open, networkAddress());
  }

  const assets = await serveFolder(selfHostFolder, { cors: true });
  servers.push(assets.server);
  // The post's own folder, one a run (its pages name this run's asset host), removed by close().
  mkdirSync(join(repoRoot, 'build', 'browsers'), { recursive: true });
  const siteDir = mkdtempSync(join(repoRoot, 'build', 'browsers', 'site-'));
  writeFileSync(join(siteDir, 'page-watch.js'), WATCH);
  writeFileSync(join(siteDir, 'corrupt.arcs'), corrupt);
  writeFileSync(join(siteDir, 'favicon.ico'), '');
  writeFileSync(join(siteDir, 'post.html'), post(assets.url,
    `<arc-scope id="figure" text="${text.replace(/'/g, '&#39;')}" layer="2" head="1" topk="0"></arc-scope>`));
  writeFileSync(join(siteDir, 'bad-models.html'), post(assets.url, [
    `<arc-scope id="missing" text="To be, or not to be" model="${assets.url}lib/models/missing.arcs"></arc-scope>`,
    '<arc-scope id="corrupt" text="To be, or not to be" model="/corrupt.arcs"></arc-scope>'].join('\n')));
  const site = await serveFolder(siteDir);
  servers.push(site.server);
  const close = async () => {
    await Promise.all(servers.map((s) => new Promise((ok) => {
      s.closeAllConnections?.();
      s.close(ok);
    })));
    rmSync(siteDir, { recursive: true, force: true });
  };
  return { repo, insecure, site: site.url, assets: assets.url, close };
}
