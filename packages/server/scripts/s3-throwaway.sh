#!/usr/bin/env bash
# Starts a throw-away single-node Ceph cluster with a RADOS Gateway, as a real S3 server for tests: unlike
# npm's s3rver, RGW verifies SigV4 signatures (presigned URLs included) and implements ListParts and
# AbortMultipartUpload. One monitor, one OSD on memstore (objects live in the OSD's RAM, nothing to format
# and nothing that outlives the run), no ceph-mgr (RGW does not need it), radosgw with the beast frontend.
# Daemons talk to each other without cephx (auth ... = none); S3 requests are still signed and checked.
#
#   scripts/s3-throwaway.sh start DIR   prints one line of JSON:
#                                       {"endpoint":"http://127.0.0.1:PORT","accessKeyId":…,"secretAccessKey":…,"region":"us-east-1"}
#   scripts/s3-throwaway.sh stop DIR    kills the daemons it started and removes DIR
#
# Needs Debian's packages: apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw
# (Ceph 16.2 in bookworm). Clients must use path-style addressing (forcePathStyle: true).
set -euo pipefail

cmd=${1:-}
dir=${2:-}
if [[ -z "$cmd" || -z "$dir" ]]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

# Fixed credentials: the cluster lives only for one test run on loopback.
access_key=GCMTESTACCESSKEY0000
secret_key=gcm-test-secret-key-0000000000000000000
region=us-east-1

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Alive = exists and not a zombie (a daemonized ceph process is reaped by init only some time after it
# exits, and kill -0 still succeeds on it until then).
alive() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ -n "$state" && "$state" != Z ]]
}

# Every daemon writes its pid file under $dir/run; stop kills exactly those pids.
stop_daemons() {
  local pids=() f pid i
  for f in "$dir"/run/*.pid; do
    [[ -f "$f" ]] || continue
    pid=$(cat "$f" 2>/dev/null || true)
    # Only a process of this cluster (its command line names this DIR's ceph.conf), not a reused pid.
    [[ "$pid" =~ ^[0-9]+$ ]] && alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$dir/ceph.conf" &&
      pids+=("$pid")
  done
  ((${#pids[@]})) || return 0
  # SIGKILL straight away: nothing in the cluster is meant to outlive it, and radosgw's graceful
  # shutdown on SIGTERM takes ~5 s.
  kill -9 "${pids[@]}" 2>/dev/null || true
  for i in $(seq 100); do
    local any=0
    for pid in "${pids[@]}"; do alive "$pid" && any=1; done
    ((any)) || return 0
    sleep 0.05
  done
  echo "daemons still alive after SIGKILL: ${pids[*]}" >&2
}

fail() {
  echo "$1" >&2
  for f in "$dir"/log/*.log; do
    [[ -f "$f" ]] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
  done
  stop_daemons
  exit 1
}

case "$cmd" in
start)
  for b in ceph-mon ceph-osd radosgw radosgw-admin monmaptool ceph; do
    command -v "$b" >/dev/null || {
      echo "$b not found: apt-get install -y --no-install-recommends ceph-mon ceph-osd radosgw" >&2
      exit 1
    }
  done
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  mkdir -p "$dir"/{run,log,mon,osd/ceph-0,rgw}
  fsid=$(cat /proc/sys/kernel/random/uuid)
  mon_port=$(free_port)
  rgw_port=$(free_port)
  conf=$dir/ceph.conf
  cat >"$conf" <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv6 = false
ms bind msgr1 = false
# No cephx between daemons: loopback only, throw-away. RGW's S3 auth is separate and stays on.
auth cluster required = none
auth service required = none
auth client required = none
keyring = $dir/keyring
run dir = $dir/run
pid file = $dir/run/\$name.pid
admin socket = $dir/run/\$name.asok
log file = $dir/log/\$name.log
mon cluster log file = $dir/log/cluster.log
log to stderr = false
err to stderr = false
crash dir = $dir/crash
# One OSD: one replica, few placement groups (RGW makes ~7 pools; the default 32 PGs each would pass
# mon_max_pg_per_osd on a single OSD and pool creation would fail).
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon allow pool delete = true
mon max pg per osd = 1000
mon warn on pool no redundancy = false
# Every pool RGW creates is a few monitor map changes; by default each waits ~1 s for Paxos to batch
# proposals, which made start ~11 s and a first CreateBucket ~2 s. One monitor has nothing to batch.
paxos propose interval = 0.01
paxos min wait = 0.001
osd crush chooseleaf type = 0

[mon]
mon data = $dir/mon/\$cluster-\$id
mon memory target = 134217728

[osd]
osd data = $dir/osd/\$cluster-\$id
# memstore: objects kept in the OSD's memory; nothing to format, fastest start. The size is only what
# the OSD reports as capacity; memory is used as objects are written.
osd objectstore = memstore
memstore device bytes = 4294967296
osd op num shards = 1
osd op num threads per shard = 2

[client]
# radosgw's built-in defaults ask for cephx and a 'secure' monitor connection, which auth none cannot
# give (it then retries forever with "get_initial_auth_request returned -13").
ms mon client mode = crc
rgw data = $dir/rgw
# tcp_nodelay: without it small responses wait ~40 ms on Nagle + delayed ACK.
rgw frontends = beast endpoint=127.0.0.1:$rgw_port tcp_nodelay=1
rgw thread pool size = 64
rgw enable usage log = false
# Deleted objects' data is only removed by RGW's garbage collector, by default after 2 h; with memstore
# it would stay in the OSD's memory for the whole run.
rgw gc obj min wait = 5
rgw gc processor period = 5
EOF
  : >"$dir/keyring"

  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >/dev/null 2>"$dir/log/monmaptool.log" ||
    fail "monmaptool failed"
  ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" >"$dir/log/mon-mkfs.log" 2>&1 || fail "ceph-mon --mkfs failed"
  ceph-mon -c "$conf" -i a >>"$dir/log/mon-mkfs.log" 2>&1 || fail "ceph-mon failed to start"

  ceph_() { timeout 30 ceph -c "$conf" --connect-timeout 20 "$@"; }
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  osd_id=$(ceph_ osd new "$osd_uuid" 2>"$dir/log/osd-new.log") || fail "ceph osd new failed"
  [[ "$osd_id" == 0 ]] || fail "unexpected OSD id $osd_id"
  ceph-osd -c "$conf" -i 0 --mkfs --osd-uuid "$osd_uuid" >"$dir/log/osd-mkfs.log" 2>&1 || fail "ceph-osd --mkfs failed"
  ceph-osd -c "$conf" -i 0 >>"$dir/log/osd-mkfs.log" 2>&1 || fail "ceph-osd failed to start"

  # The S3 user. radosgw-admin also creates the default realm/zone and its pools, so it runs before
  # radosgw starts to avoid the two racing on that set-up.
  timeout 60 radosgw-admin -c "$conf" -n client.admin user create --uid=gcm-test --display-name=gcm-test \
    --access-key="$access_key" --secret-key="$secret_key" >"$dir/log/user-create.log" 2>&1 ||
    fail "radosgw-admin user create failed"

  # In the foreground (-f) in the background, so its pid is known at once: radosgw only daemonizes after
  # it has reached the monitor, and would block here (and be missed by stop) if it never does.
  setsid radosgw -f -c "$conf" -n client.rgw </dev/null >"$dir/log/radosgw-start.log" 2>&1 &
  echo $! >"$dir/run/radosgw.pid"

  endpoint=http://127.0.0.1:$rgw_port
  ok=0
  for _ in $(seq 600); do
    # An anonymous ListBuckets answers 200 with an empty list once RGW serves requests. Bash's
    # /dev/tcp rather than curl, which a fresh Debian machine may not have.
    alive "$(cat "$dir/run/radosgw.pid")" || fail "radosgw exited"
    if status_line=$(timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" && printf "GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" >&3 && head -n 1 <&3' _ "$rgw_port" 2>/dev/null) &&
      [[ "$status_line" == "HTTP/1."?" 200"* ]]; then
      ok=1
      break
    fi
    sleep 0.1
  done
  ((ok)) || fail "radosgw did not answer on $endpoint"
  printf '{"endpoint":"%s","accessKeyId":"%s","secretAccessKey":"%s","region":"%s"}\n' \
    "$endpoint" "$access_key" "$secret_key" "$region"
  ;;
stop)
  if [[ -d "$dir" ]]; then
    dir=$(cd "$dir" && pwd)
    stop_daemons
  fi
  rm -rf "$dir"
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac
