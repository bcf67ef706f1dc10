#!/usr/bin/env bash
# The browser call test (web/e2e/call.ts; docs/appointments.md, "Tests"): a direct call, then one
# relayed through a local coturn (iceTransportPolicy: relay) when `turnserver` is installed (Debian:
# coturn; CI installs it when apt can). Needs web/dist (`npm run build:web`) and Chromium.
#   bash scripts/call-e2e.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v turnserver >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  timeout 120 env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq coturn >/dev/null 2>&1 || true
fi
if ! command -v turnserver >/dev/null 2>&1; then
  echo "turnserver (coturn) is not installed: the direct call only"
  exec npm --prefix web run test:call
fi
port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
secret=$(node -e "console.log(require('crypto').randomBytes(24).toString('hex'))")
log=$(mktemp)
# Loopback only, shared-secret credentials (what the service mints), relaying to loopback peers.
turnserver -n --listening-ip=127.0.0.1 --relay-ip=127.0.0.1 --listening-port="$port" \
  --use-auth-secret --static-auth-secret="$secret" --realm=call-e2e.local --allow-loopback-peers \
  --no-cli --no-tls --no-dtls --min-port=49160 --max-port=49260 --log-file=stdout >"$log" 2>&1 &
turn_pid=$!
trap 'kill "$turn_pid" 2>/dev/null || true; rm -f "$log"' EXIT
sleep 0.5
kill -0 "$turn_pid" 2>/dev/null || { cat "$log"; echo "turnserver did not start"; exit 1; }
E2E_TURN_URLS="turn:127.0.0.1:$port?transport=udp" E2E_TURN_SECRET="$secret" npm --prefix web run test:call
