#!/usr/bin/env bash
# Three local nodes behind Debian's HAProxy, checked in both modes: round-robin (WebSockets land anywhere and
# non-owners relay them) and hint-routed (the farmgate_node cookie / node parameter sends them to the owner).
# Needs: haproxy (apt-get install haproxy). Usage: bench/scripts/haproxy-cluster.sh [SESSIONS]
set -euo pipefail
cd "$(dirname "$0")/../.."
sessions=${1:-30}
command -v haproxy >/dev/null || { echo "haproxy is not installed (apt-get install haproxy)" >&2; exit 2; }
if [ ! -f gateway-node/target/farmgate-node.jar ] || [ ! -f bench/target/farmgate-bench.jar ]; then
  mvn -B -q -DskipTests package
fi
for mode in round-robin hint; do
  java -cp bench/target/farmgate-bench.jar org.farmgate.bench.cluster.LocalClusterMain \
      --nodes 3 --haproxy "$mode" --check "$sessions"
done
