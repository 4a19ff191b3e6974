#!/usr/bin/env bash
# Installs guacamole-lite from the npm registry into bench/target/guacamole-lite (never into git), for the relay
# benchmark's peer baseline: bench/scripts/guacamole-lite.sh && java ... RelayBenchmark --phases sweep
set -euo pipefail
cd "$(dirname "$0")/.."
command -v npm >/dev/null || { echo "npm is needed (Debian: apt-get install npm)" >&2; exit 1; }
mkdir -p target/guacamole-lite
npm install --silent --no-audit --no-fund --prefix target/guacamole-lite guacamole-lite@1.2.0 >/dev/null
echo "guacamole-lite $(node -p "require('./target/guacamole-lite/node_modules/guacamole-lite/package.json').version") in bench/target/guacamole-lite"
