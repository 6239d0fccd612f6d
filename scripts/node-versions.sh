#!/usr/bin/env bash
# The tests on each Node line CI covers besides the machine's own: the lowest version package.json's
# engines field allows (20.18.0), and the current lines 22 and 24, as exact Node binaries from the npm
# registry (scripts/node-versions, own lock file; linux x64 and arm64). On each: the unit tier; on the
# lowest also the built CLI end to end (test/cli/e2e.test.ts spawns dist/cli.js on the Node running it).
# vite 8, which vitest 4 runs on, declares node ^20.19.0 || >=22.12.0 while vitest 4 itself allows any
# 20.x: the unit tier runs on 20.18.0 regardless, and the end-to-end run holds the shipped bundle there.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=scripts/node-versions

[[ -f dist/cli.js ]] || { echo "node versions: dist/cli.js is missing: run npm run build" >&2; exit 1; }
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 ;;
  Linux-aarch64 | Linux-arm64) platform=linux-arm64 ;;
  *) echo "node versions: $DIR pins Node for linux x64 and arm64 only, not $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
timeout 600 npm ci --prefix "$DIR" --no-audit --no-fund --loglevel=error

# The lowest pinned version must be the one the engines field names (">=20.18" -> 20.18.x).
engines=$(node -p 'require("./package.json").engines.node')
lowest=$(node -p "require('./$DIR/package.json').optionalDependencies['node-20.18-$platform'].split('@').pop()")
if [[ "$engines" != ">=${lowest%.*}" ]]; then
  echo "node versions: package.json engines is '$engines' but $DIR pins $lowest as the lowest: update one" >&2
  exit 1
fi

failed=()
for line in 20.18 22 24; do
  bin="$DIR/node_modules/node-$line-$platform/bin"
  version=$("$bin/node" --version)
  echo "Node $version: unit tier"
  if ! PATH="$PWD/$bin:$PATH" timeout 900 node node_modules/vitest/vitest.mjs run --project unit --reporter=dot; then
    failed+=("$version unit")
  fi
  if [[ "$line" == 20.18 ]]; then
    echo "Node $version: the built CLI end to end (test/cli/e2e.test.ts)"
    if ! PATH="$PWD/$bin:$PATH" timeout 300 node node_modules/vitest/vitest.mjs run --project e2e --reporter=dot test/cli/e2e.test.ts; then
      failed+=("$version e2e")
    fi
  fi
done

if ((${#failed[@]})); then
  echo "node versions: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "node versions: ok"
