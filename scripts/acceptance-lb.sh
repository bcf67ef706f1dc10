#!/usr/bin/env bash
# The acceptance suite (../shared/acceptance) against TWO server processes behind HAProxy
# (round-robin, Debian's package) on one PostgreSQL database and one Redis: several processes must
# behave as one service (issue 22; docs/operations.md, "Several processes, one service").
#
#   scripts/acceptance-lb.sh            from the project root (or anywhere: it finds the root)
#
# Each process has its own DATA_DIR (nothing on disk is shared, as with replicas without a shared
# volume) except the mail directory: each DATA_DIR/outbox is a link to one directory, standing in
# for the one SMTP server both would send through (the cases read mail from files). Both processes
# start at once on a fresh database (the start-up lock serialises migrations and pg-boss's set-up).
# After the suite it uploads a file through one process and downloads it through the other
# (scripts/acceptance-lb-files.mjs), and checks from HAProxy's statistics that both processes
# answered requests.
#
# Settings (environment): PG_ADMIN_URL (a database to run `create database` from; default
# postgres://postgres@127.0.0.1:5432/postgres), REDIS_URL (default redis://127.0.0.1:6379),
# ACCEPTANCE_DIR (default ../shared/acceptance), ACCEPTANCE_GROUPS ("a b" or "all"; default: the
# project's acceptance.groups), KEEP_WORK=1 keeps the logs and configuration in the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
project=$PWD
acceptance=$(cd "${ACCEPTANCE_DIR:-$project/../shared/acceptance}" && pwd)
pg_admin=${PG_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
redis_url=${REDIS_URL:-redis://127.0.0.1:6379}
brand=acceptance-brand

command -v haproxy >/dev/null || { echo "haproxy is not installed (Debian: apt-get install -y haproxy)"; exit 1; }
command -v psql >/dev/null || { echo "psql is not installed (Debian: apt-get install -y postgresql-client)"; exit 1; }
redis-cli -u "$redis_url" ping >/dev/null 2>&1 || { echo "Redis at $redis_url cannot be reached"; exit 1; }

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

work=$(mktemp -d)
db="pts_lb_$$_$(date +%s)"
db_url=$(node -e 'const u=new URL(process.argv[1]);u.pathname="/"+process.argv[2];console.log(u.toString())' "$pg_admin" "$db")
pids=()
cleanup() {
  local code=$?
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for _ in $(seq 1 40); do
    local alive=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.25
  done
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
  psql "$pg_admin" -qc "drop database if exists $db with (force)" >/dev/null 2>&1 || true
  redis-cli -u "$redis_url" --scan --pattern "pts-acceptance-$$:*" 2>/dev/null | xargs -r redis-cli -u "$redis_url" del >/dev/null 2>&1 || true
  if [ "${KEEP_WORK:-}" = 1 ]; then echo "work directory kept: $work"; else rm -rf "$work"; fi
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Built once here (npm start would build too, but two processes must not build at once).
node scripts/build.mjs --if-stale >/dev/null

psql "$pg_admin" -v ON_ERROR_STOP=1 -qc "create database $db"
lb_port=$(free_port)
stats_port=$(free_port)
mkdir -p "$work/mail"

start() {
  local name=$1 port=$2
  mkdir -p "$work/$name"
  ln -s "$work/mail" "$work/$name/outbox"
  env -u SMTP_URL -u FILE_STORE DATABASE_URL="$db_url" REDIS_URL="$redis_url" RATE_LIMIT_KEY_PREFIX="pts-acceptance-$$" \
    PORT="$port" HOST=127.0.0.1 DATA_DIR="$work/$name" BRAND_SLUG="$brand" PUBLIC_BASE_URL="http://127.0.0.1:$lb_port" \
    GOOGLE_CLIENT_IDS=acceptance-client.apps.googleusercontent.com TRUST_PROXY=127.0.0.1 LOG_LEVEL=warn \
    node dist/main.js >"$work/$name.log" 2>&1 &
  pids+=($!)
  echo "$name: pid $! on port $port"
}
port_a=$(free_port)
port_b=$(free_port)
start a "$port_a"
start b "$port_b"

wait_ready() {
  local url=$1 what=$2
  for _ in $(seq 1 240); do
    curl -fsS --max-time 2 "$url" >/dev/null 2>&1 && return 0
    for p in "${pids[@]}"; do
      kill -0 "$p" 2>/dev/null || { echo "$what: a process exited before it was ready"; tail -n 30 "$work"/*.log; return 1; }
    done
    sleep 0.5
  done
  echo "$what: not ready after 120 s"; tail -n 30 "$work"/*.log; return 1
}
wait_ready "http://127.0.0.1:$port_a/readyz" "process a"
wait_ready "http://127.0.0.1:$port_b/readyz" "process b"

cat >"$work/haproxy.cfg" <<EOF
global
  maxconn 512
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  option forwardfor
listen stats
  bind 127.0.0.1:$stats_port
  stats enable
  stats uri /stats
frontend api
  bind 127.0.0.1:$lb_port
  default_backend pts
backend pts
  balance roundrobin
  option httpchk GET /readyz
  http-check expect status 200
  http-response set-header X-Served-By %s
  server a 127.0.0.1:$port_a check inter 1s
  server b 127.0.0.1:$port_b check inter 1s
EOF
haproxy -c -q -f "$work/haproxy.cfg"
haproxy -db -f "$work/haproxy.cfg" >"$work/haproxy.log" 2>&1 &
pids+=($!)
wait_ready "http://127.0.0.1:$lb_port/readyz" "haproxy"
# Both servers up in HAProxy's checks before the suite starts.
for _ in $(seq 1 20); do
  up=$(curl -fsS "http://127.0.0.1:$stats_port/stats;csv" | awk -F, 'NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++) col[$i] = i; next } $1 == "pts" && ($2 == "a" || $2 == "b") && $col["status"] == "UP"' | wc -l)
  [ "$up" = 2 ] && break
  sleep 0.5
done
[ "$up" = 2 ] || { echo "haproxy does not see both processes up"; curl -fsS "http://127.0.0.1:$stats_port/stats;csv"; exit 1; }
served=$(for _ in 1 2 3 4; do curl -fsS -o /dev/null -D - "http://127.0.0.1:$lb_port/readyz" | tr -d '\r' | awk -F': ' 'tolower($1) == "x-served-by" {print $2}'; done | sort -u | tr '\n' ' ')
echo "haproxy on port $lb_port, round-robin over: $served"

# The groups, as ../shared/acceptance/run selects them.
groups=${ACCEPTANCE_GROUPS:-}
if [ -z "$groups" ] && [ -f "$project/acceptance.groups" ]; then groups=$(sed 's/#.*//' "$project/acceptance.groups" | tr -s ' \n' '  '); fi
files=()
for f in "$acceptance"/cases/*.test.mjs; do
  g=$(basename "$f" .test.mjs); g=${g#zz-}
  if [ -z "${groups// /}" ] || [ "${groups// /}" = all ] || [[ " $groups " == *" $g "* ]]; then files+=("$f"); fi
done
[ ${#files[@]} -gt 0 ] || { echo "no acceptance group selected (groups: $groups)"; exit 1; }
echo "acceptance groups: $(for f in "${files[@]}"; do g=$(basename "$f" .test.mjs); printf '%s ' "${g#zz-}"; done)"

code=0
BASE_URL="http://127.0.0.1:$lb_port" BRAND_SLUG="$brand" MAIL_DIR="$work/mail" ACCEPTANCE_SKIP="$project/acceptance-skip.txt" \
  node --test --test-concurrency=1 ${ACCEPTANCE_ARGS:-} "${files[@]}" || code=$?

# The case the suite lacks for several processes: a file uploaded through one, downloaded through the other.
BASE_URL="http://127.0.0.1:$lb_port" BRAND_SLUG="$brand" MAIL_DIR="$work/mail" ACCEPTANCE_LIB="$acceptance/cases/lib.mjs" \
  PROCESS_URLS="http://127.0.0.1:$port_a http://127.0.0.1:$port_b" node --test scripts/acceptance-lb-files.mjs || code=$?

# Requests each process answered: HAProxy's per-server totals (columns found by name in the CSV header).
curl -fsS "http://127.0.0.1:$stats_port/stats;csv" | awk -F, '
  NR == 1 { sub(/^# /, ""); for (i = 1; i <= NF; i++) col[$i] = i; next }
  $1 == "pts" && ($2 == "a" || $2 == "b") { print "process " $2 ": " $col["lbtot"] " requests, " $col["hrsp_2xx"] " 2xx, " $col["hrsp_4xx"] " 4xx, " $col["hrsp_5xx"] " 5xx" }' | tee "$work/per-process.txt"
while read -r _ name requests _; do
  [ "${requests:-0}" -gt 0 ] || { echo "process ${name%:} answered no request: the load balancer did not spread the suite"; code=1; }
done <"$work/per-process.txt"
for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || { echo "a process (pid $p) exited during the suite"; code=1; }; done
if [ "$code" != 0 ]; then
  for f in a b; do echo "--- last lines of process $f's log"; tail -n 30 "$work/$f.log"; done
  echo "--- haproxy log"; tail -n 20 "$work/haproxy.log"
fi
exit "$code"
