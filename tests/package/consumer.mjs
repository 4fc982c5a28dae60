// consumer.mjs: a fresh project that installs the packed tarball the way a user does (`npm install <file>.tgz`, no
// network: the package has no dependencies), for the package tests in Node (consumer.test.mjs) and Chromium
// (tests/package/package.spec.mjs). Also a small static server that serves a folder under a path prefix, with CORS when
// asked: the self-host folder on "another origin".
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(fileURLToPath(new URL('../../', import.meta.url)));
export const { version } = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
export const tarball = join(repoRoot, 'dist', `arcscope-${version}.tgz`);
export const selfHostFolder = join(repoRoot, 'dist', `arcscope-${version}`);
export const consumerDir = join(repoRoot, 'build', 'consumer');

// The consumer project with the tarball installed; made again when the tarball is newer than the install.
export function installedConsumer() {
  if (!existsSync(tarball)) throw new Error(`no ${tarball}: run node scripts/package.mjs (scripts/test.sh does)`);
  const marker = join(consumerDir, 'node_modules', 'arcscope', 'package.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(tarball).mtimeMs) return consumerDir;
  rmSync(consumerDir, { recursive: true, force: true });
  mkdirSync(consumerDir, { recursive: true });
  writeFileSync(join(consumerDir, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball],
    { cwd: consumerDir, stdio: 'pipe' });
  return consumerDir;
}

const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
};

// Serves dir at prefix (e.g. '/blog/assets/arcscope/'); cors adds Access-Control-Allow-Origin: *; headers(path) adds
// more (a Content-Security-Policy for some pages). -> {server, url}
export function serveFolder(dir, { prefix = '/', cors = false, headers: more = () => ({}), port = 0 } = {}) {
  dir = resolve(dir);
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.startsWith(prefix) ? normalize(join(dir, path.slice(prefix.length) || 'index.html')) : null;
    const headers = { ...(cors ? { 'Access-Control-Allow-Origin': '*' } : {}), ...more(path) };
    if (!file || (file !== dir && !file.startsWith(dir + sep)) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { ...headers, 'Content-Type': types[extname(file)] ?? 'application/octet-stream',
      'Content-Length': statSync(file).size });
    createReadStream(file).pipe(res);
  });
  return new Promise((ok) => server.listen(port, '127.0.0.1', () =>
    ok({ server, url: `http://127.0.0.1:${server.address().port}${prefix}` })));
}
