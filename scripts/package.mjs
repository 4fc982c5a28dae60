// package.mjs: the two artifacts people install, from the staged library (build/lib, see stage.mjs):
//   dist/arcscope-<version>/     the self-host folder: copy it anywhere on a site, at any path
//   dist/arcscope-<version>.tgz  the same files as an npm package (npm pack)
//   dist/arcscope-<version>-py3-none-any.whl  the Python package for Jupyter (jupyter/), holding the folder's lib/
//                                 and the notebook bundles (notebook-bundles.mjs; the wheel by wheel.py, offline)
// The folder's package.json is the repository's, less what only the repository needs (private, devDependencies).
// The package README is the embedding guide, docs/embedding.md. Run by scripts/package.sh after the build.
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const name = `arcscope-${manifest.version}`;
const dist = join(root, 'dist');
const folder = join(dist, name);
const staged = join(root, 'build', 'lib');

for (const needed of [join(staged, 'wasm', 'arcscope_core.wasm'), join(staged, 'version.js'), join(root, 'docs', 'embedding.md')]) {
  if (!existsSync(needed)) throw new Error(`package: missing ${needed}; run ./scripts/package.sh (it builds first)`);
}

rmSync(folder, { recursive: true, force: true });
rmSync(join(dist, `${name}.tgz`), { force: true });
mkdirSync(folder, { recursive: true });
cpSync(staged, join(folder, 'lib'), { recursive: true });
cpSync(join(root, 'docs', 'embedding.md'), join(folder, 'README.md'));
for (const file of ['LICENSE', 'CHANGELOG.md']) cpSync(join(root, file), join(folder, file));
const published = { ...manifest };
delete published.private;
delete published.devDependencies;
writeFileSync(join(folder, 'package.json'), `${JSON.stringify(published, null, 2)}\n`);

// Every path the manifest names must be in the folder, or a user's import fails.
const named = [published.types, ...Object.values(published.exports).flatMap((e) => (typeof e === 'string' ? [e] : Object.values(e)))]
  .filter((p) => !p.includes('*'));
const absent = named.filter((p) => !existsSync(join(folder, p)));
if (absent.length) throw new Error(`package: package.json names files the package lacks: ${absent.join(', ')}`);

// The Python package: the library bundled for notebook outputs, then the wheel (Debian's Python, standard library).
execFileSync('node', [join(root, 'scripts', 'notebook-bundles.mjs')], { stdio: 'inherit' });
rmSync(join(dist, `${name}-py3-none-any.whl`), { force: true });
execFileSync('/usr/bin/python3', [join(root, 'scripts', 'wheel.py')], { stdio: 'inherit' });

const packed = execFileSync('npm', ['pack', folder, '--pack-destination', dist, '--json'], { encoding: 'utf8' });
const [{ filename, size, unpackedSize, entryCount }] = JSON.parse(packed);
console.log(`package: dist/${filename} (${(size / 1e6).toFixed(2)} MB packed, ${(unpackedSize / 1e6).toFixed(2)} MB ` +
  `unpacked, ${entryCount} files) and dist/${name}/`);
// arcscope is not on the npm registry yet: say how to install what was just written.
console.log(`install it in a project: npm install <this repository>/dist/${filename}\n` +
  `or copy dist/${name}/ into a site and load <script type="module" src=".../${name}/lib/element.js">\n` +
  `for Jupyter: pip install <this repository>/dist/${name}-py3-none-any.whl (docs/jupyter.md)`);
