#!/usr/bin/env bash
# .qcr-device/run.sh (from bench/device/run.sh; built by bench/device/make-bundle.sh):
# the scaling curve (bench/curve.ts) on a machine with no Node, Postgres or
# Redis, as root: `QCR_BUDGET_S=500 bash .qcr-device/run.sh`. It unpacks the
# bundle (its own xz and tar), links the loader the bundle's executables name,
# creates a user for Postgres (useradd, else lines in /etc/passwd and
# /etc/group), starts Postgres and Redis on 127.0.0.1 with this project's
# machine's settings, and runs the curve within the time budget, the most
# important deployments first. Whatever happens, $OUT/summary.txt says what
# finished; $OUT/curve/curve.json holds every step.
#
# Settings (environment):
#   QCR_BUDGET_S     seconds for the whole run, setup and teardown included (500)
#   OUT              where results go ($PWD/qcr-device-out)
#   QCR_WORK         where the bundle is unpacked and the servers keep data (/opt/qcr-device)
#   QCR_PORT_BASE    Postgres on it, Redis on it + 1 (default 5432 and 6379)
#   QCR_DEPLOYMENTS  8w2a,1w2a,4w2a,2w2a,8w1a,4w1a,2w1a,1w1a (workers w, API processes a; in order of importance)
#   QCR_RATES        the grid of event rates searched: 4000:8000:…:40000 (colons)
#   QCR_START_RATE / QCR_START_POLLED_RATE  where the first deployment's searches start (20000 / 12000)
#   QCR_USERS (50000), QCR_STEP_S (8), QCR_POLL_RATE (1000), QCR_MAX_STEPS (4), QCR_WARM_POLL_RATE (5000)
#   QCR_WORLD        more --world options (key=value,...), QCR_PG_OPTS more Postgres -c settings
set -euo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
umask 022
# Sockets: the load generator's, Redis' clients (it lowers maxclients to what the limit allows), Postgres'.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

# Must match make-bundle.sh: the bundle's executables load lib/ through this link.
LOADER=/tmp/.qcr-device-ld-linux-x86-64.so.2
TEARDOWN_S=20

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T0=$SECONDS
budget=${QCR_BUDGET_S:-500}
out=${OUT:-$PWD/qcr-device-out}
work=${QCR_WORK:-/opt/qcr-device}
pg_port=${QCR_PORT_BASE:-5432}
redis_port=$((${QCR_PORT_BASE:-6378} + 1))
pg_user=${QCR_PG_USER:-qcr-postgres}
rates=${QCR_RATES:-4000:8000:12000:16000:20000:24000:28000:32000:36000:40000}
mkdir -p "$out"
: >"$out/run.log"

status='setting up'
timings=()
pg_pid='' redis_pid='' curve_pid='' watchdog_pid=''
q=$work/qcr
logs=$work/logs

log() { printf '[run %(%H:%M:%S)T +%ss] %s\n' -1 "$((SECONDS - T0))" "$*" | tee -a "$out/run.log" >&2; }
fail() {
  status="failed: $*"
  log "FAILED: $*"
  exit 1
}
timed() { timings+=("$1 $(($SECONDS - $2)) s"); }
# Waits up to $2 seconds for the command $1 (a function) to succeed.
wait_for() {
  local deadline=$((SECONDS + $2))
  until "$1"; do
    ((SECONDS < deadline)) || return 1
    sleep 0.2
  done
}
stop_process() { # pid signal seconds
  [[ -n $1 ]] && kill -0 "$1" 2>/dev/null || return 0
  kill "-$2" "$1" 2>/dev/null || true
  local deadline=$((SECONDS + $3))
  while kill -0 "$1" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  kill -KILL "$1" 2>/dev/null || true
}

finish() {
  local code=$?
  set +e
  trap - EXIT
  [[ -n $watchdog_pid ]] && kill "$watchdog_pid" 2>/dev/null
  if [[ -n $curve_pid ]] && kill -0 "$curve_pid" 2>/dev/null; then
    log "stopping the curve"
    stop_process "$curve_pid" TERM 15
  fi
  stop_process "$redis_pid" TERM 5
  stop_process "$pg_pid" INT 10
  [[ $status == 'setting up' || $status == running* ]] && status="stopped ($code) while ${status}"
  mkdir -p "$out/logs"
  for file in "$logs"/*.log; do [[ -f $file ]] && tail -n 60 "$file" >"$out/logs/${file##*/}.tail"; done
  if [[ $status != *'curve status: complete' && $status != *'curve status: budget' ]]; then
    for file in "$logs"/processes/*.log; do [[ -f $file ]] && tail -n 30 "$file" >"$out/logs/${file##*/}.tail"; done
  fi
  {
    echo "qcr device run: $status"
    echo "host: $(uname -srm 2>/dev/null), $(nproc 2>/dev/null || grep -c ^processor /proc/cpuinfo) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)"
    echo "bundle: $(head -2 "$here/BUILD" | tr '\n' ';')"
    echo "budget ${budget} s, used $((SECONDS - T0)) s: ${timings[*]/%/;}"
    echo "postgres: port $pg_port, ${pg_settings[*]:-not started}"
    echo "redis: port $redis_port, no persistence, noeviction"
    echo
    if [[ -f $out/curve/summary.txt ]]; then cat "$out/curve/summary.txt"; else echo 'no curve summary: see run.log'; fi
  } >"$out/summary.txt"
  log "summary in $out/summary.txt"
  cat "$out/summary.txt"
  exit "$code"
}
trap finish EXIT
trap 'exit 143' TERM INT

log "budget ${budget} s; output in $out; unpacking into $work; $(nproc 2>/dev/null || grep -c ^processor /proc/cpuinfo) CPUs"
# --- unpack, with the bundle's own xz and tar (their libraries beside them) -----------------------------
started=$SECONDS
if ! mkdir -p "$work" 2>/dev/null && [[ -z ${QCR_WORK:-} ]]; then
  log "cannot create $work: using /var/tmp/qcr-device"
  work=/var/tmp/qcr-device q=/var/tmp/qcr-device/qcr logs=/var/tmp/qcr-device/logs
  mkdir -p "$work" || fail "cannot create $work either (set QCR_WORK)"
fi
[[ -d $work ]] || fail "cannot create $work (QCR_WORK)"
chmod 755 "$work"
if [[ -x $q/bin/node && -f $q/BUILD ]] && [[ $(<"$q/BUILD") == $(<"$here/BUILD") ]]; then
  log "bundle already unpacked"
else
  rm -rf "$q" "$work/boot"
  cp -r "$here/boot" "$work/boot"
  chmod 755 "$work/boot"/*
  boot() { "$work/boot/ld-linux-x86-64.so.2" --library-path "$work/boot" "$work/boot/$@"; }
  boot xz -dc -T0 "$here/bundle.tar.xz" | boot tar -xf - -C "$work" || fail "unpacking $here/bundle.tar.xz"
fi
ln -sfn "$q/lib/ld-linux-x86-64.so.2" "$LOADER"
node_version=$("$q/bin/node" --version) || fail "the bundled node does not run (loader link $LOADER)"
timed unpack "$started"
log "unpacked: node $node_version, $("$q/bin/redis-server" --version | cut -d' ' -f3)"
mkdir -p "$logs/processes"

# --- a user for Postgres, which refuses to run as root ------------------------------------------------
account_of() { # name -> "uid gid"
  local name uid gid rest
  while IFS=: read -r name _ uid gid rest; do
    [[ $name == "$1" ]] && echo "$uid $gid" && return 0
  done </etc/passwd
  return 1
}
taken() { # id file
  local name id rest
  while IFS=: read -r name _ id rest; do [[ $id == "$1" ]] && return 0; done <"$2"
  return 1
}
if ! ids=$(account_of "$pg_user"); then
  if command -v useradd >/dev/null; then
    useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /bin/false "$pg_user" >>"$out/run.log" 2>&1 || true
  fi
  if ! ids=$(account_of "$pg_user"); then
    id=7431
    while taken "$id" /etc/passwd || taken "$id" /etc/group; do id=$((id + 1)); done
    echo "$pg_user:x:$id:$id:qcr device postgres:/nonexistent:/bin/false" >>/etc/passwd
    echo "$pg_user:x:$id:" >>/etc/group
    ids=$(account_of "$pg_user") || fail "could not add the user $pg_user"
    log "added $pg_user ($id) to /etc/passwd and /etc/group"
  fi
fi
read -r pg_uid pg_gid <<<"$ids"
# initdb runs postgres through popen(), that is /bin/sh.
if [[ ! -x /bin/sh ]]; then
  ln -s "$BASH" /bin/sh || fail "no /bin/sh, which initdb needs, and none could be linked"
  log "linked /bin/sh to $BASH (initdb runs postgres through it)"
fi
as_user() { "$q/bin/node" "$q/tools/as-user.mjs" "$pg_uid" "$pg_gid" "$@"; }
as_user -- "$q/bin/postgres" --version >/dev/null 2>>"$logs/postgres.log" ||
  fail "$pg_user ($pg_uid) cannot run $q/bin/postgres: is every folder above $work open to others (QCR_WORK)?"

# --- Postgres: this project's machine's settings, more connections for 8 workers and 2 APIs -----------
started=$SECONDS
data=$work/postgres
pg_settings=(
  -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=300 -c shared_buffers=128MB
  -c fsync=on -c synchronous_commit=on -c autovacuum=off -c max_wal_size=1GB -c min_wal_size=80MB
  -c TimeZone=Etc/UTC -c 'log_line_prefix=%m [%p] %q%u@%d '
)
# shellcheck disable=SC2206
[[ -n ${QCR_PG_OPTS:-} ]] && pg_settings+=($QCR_PG_OPTS)
if [[ ! -f $data/PG_VERSION ]]; then
  rm -rf "$data"
  mkdir -p "$data"
  chown "$pg_uid:$pg_gid" "$data"
  chmod 700 "$data"
  as_user -- "$q/bin/initdb" "--pgdata=$data" --username=postgres --auth=trust --encoding=UTF8 --locale=C --no-sync \
    >>"$logs/initdb.log" 2>&1 || fail "initdb (see $logs/initdb.log)"
fi
touch "$logs/postgres.log"
chown "$pg_uid:$pg_gid" "$logs/postgres.log"
pg_pid=$(as_user --log "$logs/postgres.log" -- "$q/bin/postgres" -D "$data" -p "$pg_port" "${pg_settings[@]}") ||
  fail "starting postgres"
pg_ready() { [[ $(<"$logs/postgres.log") == *"ready to accept connections"* ]] && kill -0 "$pg_pid" 2>/dev/null; }
wait_for pg_ready 60 || fail "postgres did not start on 127.0.0.1:$pg_port (see logs/postgres.log.tail)"
timed postgres "$started"
log "postgres ready on 127.0.0.1:$pg_port (pid $pg_pid)"

# --- Redis: as this machine's, no persistence, never evicting (BullMQ's keys) -------------------------
started=$SECONDS
mkdir -p "$work/redis"
"$q/bin/redis-server" --port "$redis_port" --bind 127.0.0.1 --protected-mode no --save '' --appendonly no \
  --maxmemory-policy noeviction --daemonize no --dir "$work/redis" --logfile "$logs/redis.log" &
redis_pid=$!
redis_ready() {
  local reply=''
  { exec 3<>"/dev/tcp/127.0.0.1/$redis_port"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&3
  read -r -t 2 reply <&3 || true
  exec 3>&-
  [[ $reply == +PONG* ]]
}
wait_for redis_ready 30 || fail "redis did not start on 127.0.0.1:$redis_port"
timed redis "$started"
log "redis ready on 127.0.0.1:$redis_port (pid $redis_pid)"

# --- the curve --------------------------------------------------------------------------------------
curve_budget=$((budget - (SECONDS - T0) - TEARDOWN_S))
((curve_budget >= 60)) || fail "only ${curve_budget} s left for the curve"
world="users=${QCR_USERS:-50000},stepS=${QCR_STEP_S:-8},pollRate=${QCR_POLL_RATE:-1000},rates=$rates,polledRates=$rates"
[[ -n ${QCR_WORLD:-} ]] && world="$world,$QCR_WORLD"
status='running the curve'
log "curve: ${curve_budget} s, --world $world"
started=$SECONDS
cd "$q/app"
env -i PATH=/usr/bin:/bin HOME="$work" LC_ALL=C \
  TEST_DATABASE_URL="postgres://postgres@127.0.0.1:$pg_port/postgres" TEST_REDIS_URL="redis://127.0.0.1:$redis_port" \
  "$q/bin/node" bench-dist/curve.mjs \
  --deployments "${QCR_DEPLOYMENTS:-8w2a,1w2a,4w2a,2w2a,8w1a,4w1a,2w1a,1w1a}" \
  --world "$world" \
  --start-rate "${QCR_START_RATE:-20000}" --start-polled-rate "${QCR_START_POLLED_RATE:-12000}" \
  --max-steps "${QCR_MAX_STEPS:-4}" --warm-poll-rate "${QCR_WARM_POLL_RATE:-5000}" \
  --budget-s "$curve_budget" --out "$out/curve" --process-logs "$logs/processes" \
  > >(tee -a "$out/run.log" >&2) 2>&1 &
curve_pid=$!
# A curve that overruns its budget (it keeps time itself) is stopped: SIGTERM writes what finished.
# Seconds slept one at a time: a watchdog stopped early leaves no sleep behind.
(
  end=$((SECONDS + curve_budget + 10))
  while ((SECONDS < end)) && kill -0 "$curve_pid" 2>/dev/null; do sleep 1; done
  kill -TERM "$curve_pid" 2>/dev/null
) &
watchdog_pid=$!
curve_code=0
wait "$curve_pid" || curve_code=$?
curve_pid=''
timed curve "$started"
status="finished (the curve exited $curve_code)"
# The curve's own status: complete, budget (stopped for time, most important deployments done), interrupted, failed.
[[ -f $out/curve/curve.json ]] && status="$status, curve status: $(sed -n 's/^  "status": "\([a-z]*\)",$/\1/p' "$out/curve/curve.json")"
log "curve exited $curve_code"
