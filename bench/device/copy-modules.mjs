// node bench/device/copy-modules.mjs <from> <to> <scanned>...
// Copies from <from>/node_modules into <to>/node_modules the packages that the
// JavaScript files under <scanned> (files or folders) import or require by
// name, and every package they need at run time (dependencies, installed
// optionalDependencies, peerDependencies not marked optional: an optional
// peer is one the package works without, TypeScript say), each resolved
// as Node resolves it from the package that needs it, so nested copies keep
// their places. Declarations, source maps and .bin links are left out. Prints
// the packages copied. For the device bundle (bench/device/make-bundle.sh):
// a production install is 300 MB, most of it pages the bench never serves.
import { cpSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';

const [from, to, ...scanned] = process.argv.slice(2);
if (!from || !to || scanned.length === 0) {
  process.stderr.write('usage: node copy-modules.mjs <from> <to> <scanned>...\n');
  process.exit(2);
}

/** Package names imported (statically, by a literal import(), or require()) by the .js and .mjs files under `path`. */
function importedPackages(path, found = new Set()) {
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path)) importedPackages(join(path, entry), found);
    return found;
  }
  if (!/\.m?js$/.test(path)) return found;
  const source = readFileSync(path, 'utf8');
  for (const [, specifier] of source.matchAll(
    /(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|\bimport\s+)["']([^"'./][^"']*)["']/g,
  )) {
    if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) continue;
    const parts = specifier.split('/');
    found.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return found;
}
const roots = [...scanned.reduce((found, path) => importedPackages(path, found), new Set())];

/** The folder of `name` as Node finds it from `dir`: the nearest node_modules above holding it. */
function resolvePackage(name, dir) {
  for (let current = dir; ; current = dirname(current)) {
    const candidate = join(current, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (current === from || dirname(current) === current) return undefined;
  }
}

const SKIPPED = /(\.d\.[cm]?ts|\.map)$/;
const copied = new Set();
const queue = roots.map((name) => ({ name, dir: from, optional: false }));
while (queue.length > 0) {
  const { name, dir, optional } = queue.shift();
  const folder = resolvePackage(name, dir);
  if (!folder) {
    if (optional) continue;
    throw new Error(`${name} (needed from ${relative(from, dir) || '.'}) is not installed`);
  }
  if (copied.has(folder)) continue;
  copied.add(folder);
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  cpSync(folder, join(to, relative(from, folder)), {
    recursive: true,
    // The package's own node_modules are copied package by package, as they are needed.
    filter: (source) => {
      const inside = relative(folder, source);
      return !inside.split(sep).includes('node_modules') && !SKIPPED.test(source);
    },
  });
  const optionalPeers = manifest.peerDependenciesMeta ?? {};
  for (const dep of Object.keys(manifest.dependencies ?? {})) queue.push({ name: dep, dir: folder, optional: false });
  for (const dep of Object.keys(manifest.optionalDependencies ?? {})) queue.push({ name: dep, dir: folder, optional: true });
  for (const dep of Object.keys(manifest.peerDependencies ?? {}))
    if (!optionalPeers[dep]?.optional) queue.push({ name: dep, dir: folder, optional: false });
}
process.stdout.write(
  `${[...copied]
    .map((folder) => relative(from, folder))
    .sort()
    .join('\n')}\n`,
);
