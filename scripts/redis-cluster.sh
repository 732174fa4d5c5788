#!/usr/bin/env bash
# A local Redis Cluster to try REDIS_CLUSTER=true with, and for the cluster
# tests: 6 nodes (3 masters, 3 replicas) of the machine's redis-server, on free
# ports, nothing persisted. State lives in a directory of its own (default
# /tmp/qcr-redis-cluster, or REDIS_CLUSTER_DIR), so `stop` finds what `start` made.
#
#   scripts/redis-cluster.sh start   # prints the REDIS_URL to use
#   scripts/redis-cluster.sh stop    # stops the nodes, removes the directory
#   scripts/redis-cluster.sh url     # prints the REDIS_URL of a running cluster
#   scripts/redis-cluster.sh down    # an outage: every node stopped, the cluster's layout kept
#   scripts/redis-cluster.sh up      # the nodes started again (empty: nothing is persisted)
set -euo pipefail

DIR="${REDIS_CLUSTER_DIR:-/tmp/qcr-redis-cluster}"
NODES=6

port_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# A port P whose cluster bus port (P + 10000) is free too; never 6379. Both stay below
# the kernel's ephemeral range (32768 and up by default), where outgoing connections
# would take them between this check and the node's start.
pick_ports() {
  local ports=() port
  while [ "${#ports[@]}" -lt "$NODES" ]; do
    port=$((12000 + RANDOM % 10000))
    [ "$port" -eq 6379 ] && continue
    [[ " ${ports[*]-} " == *" $port "* ]] && continue
    port_free "$port" && port_free $((port + 10000)) && ports+=("$port")
  done
  echo "${ports[@]}"
}

start_node() {
  mkdir -p "$DIR/$1"
  redis-server --port "$1" --bind 127.0.0.1 --dir "$DIR/$1" \
    --cluster-enabled yes --cluster-config-file "$DIR/$1/nodes.conf" --cluster-node-timeout 2000 \
    --daemonize yes --pidfile "$DIR/$1/redis.pid" --logfile "$DIR/$1/redis.log" \
    --save '' --appendonly no
}

wait_nodes() {
  local port up
  for port in $(cat "$DIR/ports"); do
    up=no
    for _ in $(seq 1 50); do
      redis-cli -p "$port" ping >/dev/null 2>&1 && { up=yes; break; }
      sleep 0.1
    done
    if [ "$up" = no ]; then
      echo "node $port did not start:" >&2
      tail -5 "$DIR/$port/redis.log" >&2 2>/dev/null || true
      return 1
    fi
  done
}

wait_ok() {
  local first
  first=$(cut -d' ' -f1 "$DIR/ports")
  for _ in $(seq 1 150); do
    redis-cli -p "$first" cluster info 2>/dev/null | grep -q 'cluster_state:ok' && return 0
    sleep 0.2
  done
  echo "cluster not ok after 30 s" >&2
  return 1
}

kill_nodes() {
  local port pid
  for port in $(cat "$DIR/ports"); do
    if [ -f "$DIR/$port/redis.pid" ]; then
      pid=$(cat "$DIR/$port/redis.pid")
      kill "$pid" 2>/dev/null || true
    fi
  done
  for port in $(cat "$DIR/ports"); do
    for _ in $(seq 1 50); do
      port_free "$port" && break
      sleep 0.1
    done
  done
}

url() {
  local urls=() port
  for port in $(cat "$DIR/ports"); do urls+=("redis://127.0.0.1:$port"); done
  (IFS=,; echo "${urls[*]}")
}

start() {
  if [ -f "$DIR/ports" ]; then
    echo "a cluster is already running (ports in $DIR/ports); stop it first" >&2
    url
    return 0
  fi
  command -v redis-server >/dev/null || { echo "redis-server not found" >&2; exit 1; }
  mkdir -p "$DIR"
  local ports port addresses=()
  ports=$(pick_ports)
  for port in $ports; do
    start_node "$port"
    addresses+=("127.0.0.1:$port")
  done
  echo "$ports" >"$DIR/ports"
  wait_nodes || { stop; exit 1; }
  redis-cli --cluster create "${addresses[@]}" --cluster-replicas 1 --cluster-yes >"$DIR/create.log" 2>&1 \
    || { cat "$DIR/create.log" >&2; stop; exit 1; }
  wait_ok
  echo "cluster of $NODES nodes up; use:" >&2
  echo "  REDIS_CLUSTER=true REDIS_URL=$(url)" >&2
  url
}

stop() {
  [ -f "$DIR/ports" ] || { echo "no cluster running in $DIR" >&2; return 0; }
  kill_nodes
  rm -rf "$DIR"
  echo "cluster stopped" >&2
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) [ -f "$DIR/ports" ] && url || { echo "no cluster running in $DIR" >&2; exit 1; } ;;
  down) [ -f "$DIR/ports" ] || { echo "no cluster in $DIR" >&2; exit 1; }; kill_nodes; echo "cluster down" >&2 ;;
  up)
    [ -f "$DIR/ports" ] || { echo "no cluster in $DIR" >&2; exit 1; }
    for port in $(cat "$DIR/ports"); do start_node "$port"; done
    wait_nodes || exit 1
    wait_ok
    echo "cluster up" >&2
    ;;
  *) echo "usage: $0 start|stop|url|down|up" >&2; exit 2 ;;
esac
