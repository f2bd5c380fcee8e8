#!/bin/bash
# bench/lib.sh: the test bed the gate benchmarks share (sourced).
#
#   host netns                       netns aisbinet-bch1 (tests/lib/internet.sh)
#   aisb-gate (user tbch1) ──veth──► benchnet origin on $INET_ADDR_SVC:27080
#   squid 127.0.0.1:27128  ──veth──►   (the same origin)
#   direct clients         ──veth──►
#   gatedrv's netns (only lo, the session's nftables with capture):
#     clients of the gate: 127.0.0.1:3128 proxy, :53 stub, 198.18/15 capture
#
# The direct baseline crosses exactly the gate's upstream leg (host netns,
# veth, origin netns); the gated paths add the sandbox's loopback and the
# gate.  Squid's clients use the host's loopback the same way.  Addresses:
# 198.51.100.0/24 (internet.sh) and loopback only.
# Every process started here is killed by PID at exit (bl_cleanup).
# shellcheck disable=SC2034 # the variables are for the sourcing scripts

BL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${BUILD:=$(cd "$BL_DIR/.." && pwd)/build}"
QUICK=${QUICK:-}
BL_USER=tbch1
BL_INET=bch1
BL_PORT=27080
BL_SQUID_PORT=27128
BENCHNET=$BUILD/bench/benchnet
BL_CLEAN=()
BL_PIDS=()

bl_at_exit() { BL_CLEAN=("$1" "${BL_CLEAN[@]}"); }

bl_cleanup() {
	local c p
	for p in "${BL_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${BL_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	[ -n "${W:-}" ] && [ -f "$W/syslog.pid" ] && kill "$(cat "$W/syslog.pid")" 2>/dev/null
	for c in "${BL_CLEAN[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
	BL_CLEAN=()
	BL_PIDS=()
}

# bl_skip NAME REASON: the whole script cannot run here.
bl_skip() {
	echo "$1: SKIP: $2"
	exit 0
}

bl_wait_port() { # NETNS|- ADDR PORT
	local ns=()
	[ "$1" != - ] && ns=(ip netns exec "$1")
	for _ in $(seq 100); do
		"${ns[@]}" ss -Hltn "src $2 and sport = :$3" 2>/dev/null |
		    grep -q . && return 0
		sleep 0.05
	done
	return 1
}

# bl_setup NAME: user, test internet, origin.  Sets W (a work dir).
bl_setup() {
	local name=$1
	[ "$(id -u)" = 0 ] || bl_skip "$name" "needs root (creates a user and network namespaces)"
	[ -x "$BENCHNET" ] || bl_skip "$name" "$BENCHNET missing (make bench builds it)"
	trap bl_cleanup EXIT
	trap 'exit 130' INT TERM
	# Not under /tmp: the policy refuses files below sticky world-writable dirs.
	W=$(mktemp -d /run/bch.XXXXXX)
	chmod 755 "$W"
	bl_at_exit "rm -rf '$W'"
	userdel -r "$BL_USER" >/dev/null 2>&1 || true
	useradd -m -s /bin/bash "$BL_USER" ||
	    bl_skip "$name" "cannot create $BL_USER"
	bl_at_exit "userdel -r $BL_USER"
	# shellcheck source=tests/lib/internet.sh
	. "$BL_DIR/../tests/lib/internet.sh"
	internet_up "$BL_INET" 2>"$W/inet.err" ||
	    bl_skip "$name" "cannot build the test internet: $(tr '\n' ' ' < "$W/inet.err")"
	bl_at_exit "internet_down $BL_INET"
	internet_spawn "$BL_INET" origin "$BENCHNET" serve "$INET_ADDR_SVC" "$BL_PORT"
	bl_wait_port "$INET_NS" "$INET_ADDR_SVC" "$BL_PORT" ||
	    bl_skip "$name" "the origin did not start: $(cat "$INET_DIR/origin.err")"
	# shellcheck disable=SC2034 # for the scripts that source this file
	ORIGIN_PID=$(cat "$INET_DIR/origin.pid")
	# The test internet's dnsmasq answers with TTL 0 (its tests change
	# records on the fly), which would make every proxied connection a
	# lookup.  Real names have TTLs: the bench's resolver, on the free
	# origin address, answers svc.test with TTL 300 (squid and the gate
	# both cache for the TTL).
	echo "$INET_ADDR_SVC svc.test" > "$W/hosts"
	internet_spawn "$BL_INET" dns dnsmasq -k --conf-file=/dev/null \
	    --user=root --group=root --no-resolv --no-hosts --no-poll \
	    --local='/#/' --listen-address="$INET_ADDR_SVC" --bind-interfaces \
	    --port=53 --addn-hosts="$W/hosts" --local-ttl=300 --pid-file=
	for _ in $(seq 100); do
		ip netns exec "$INET_NS" ss -Hlnu "src $INET_ADDR_SVC and sport = :53" |
		    grep -q . && break
		sleep 0.05
	done
	BL_DNS=$INET_ADDR_SVC
	# shellcheck disable=SC2034 # for the scripts that source this file
	ORIGIN=$INET_ADDR_SVC:$BL_PORT
	cat > "$W/aisb.conf" <<-C
	network {
	  mode = "gated"
	  allow = {"svc.test:$BL_PORT"}
	  allow_cidr = {"$INET_ADDR_SVC/32"}
	  resolver = "$BL_DNS"
	  transparent = true
	}
	C
	chmod 644 "$W/aisb.conf"
}

# bl_gate [gatedrv options]: start the gate the way a session does
# (gatedrv: the session's own nftables with the capture rule).  Sets
# DRV, GATE_PID, NS, SYNTH.
# shellcheck disable=SC2120 # callers may pass gatedrv options
bl_gate() {
	rm -f "$W/drv.out" "$W/gate.log"
	: > "$W/gate.log"
	# As on a host with syslogd: the gate's decision records go to a
	# /dev/log that reads and drops them (a private mount namespace's
	# /dev; the host's is untouched).  Without a listener glibc would
	# open and connect a socket for every record.  gatedrv also passes
	# --log-stderr, which a session's gate does not: that copy goes to
	# /dev/null unless BENCH_GATE_LOG=1 (then $W/gate.log, for debugging;
	# writing it costs the gate about as much as the records themselves).
	local glog=/dev/null
	[ -n "${BENCH_GATE_LOG:-}" ] && glog=$W/gate.log
	# shellcheck disable=SC2016 # the inner script expands its own $1
	(cd / && exec unshare -m --propagation private bash -c '
	W=$1; shift
	old=$(mktemp -d)
	mount --bind /dev "$old" && mount -t tmpfs -o mode=755 tmpfs /dev || exit 1
	for n in null zero random urandom; do
		touch "/dev/$n" && mount --bind "$old/$n" "/dev/$n"
	done
	umount -l "$old"; rmdir "$old"
	socat -u -b 65536 UNIX-RECV:/dev/log,mode=666 OPEN:/dev/null &
	echo $! > "$W/syslog.pid"
	for _ in $(seq 100); do [ -S /dev/log ] && break; sleep 0.02; done
	exec "$@"' bench "$W" env -i PATH=/usr/bin:/bin HOME=/ \
	    setpriv --reuid="$(id -u "$BL_USER")" --regid="$(id -g "$BL_USER")" \
	    --init-groups "$BUILD/tests/helpers/gatedrv" --config "$W/aisb.conf" \
	    --user "$BL_USER" --gate "${BL_GATE_BIN:-$BUILD/libexec/aisb/aisb-gate}" --nft "$@" \
	    > "$W/drv.out" 2> "$glog") &
	DRV=$!
	BL_PIDS+=("$DRV")
	for _ in $(seq "${BL_WAIT:-300}"); do
		grep -q '^ready' "$W/drv.out" 2>/dev/null && break
		sleep 0.05
	done
	grep -q '^ready' "$W/drv.out" || return 1
	# shellcheck disable=SC2034 # for the scripts that source this file
	GATE_PID=$(awk '/^ready/ {print $2}' "$W/drv.out")
	NS=/proc/$DRV/ns/net
	# The synthetic address of the origin's name, from the gate's stub.
	SYNTH=$(nsenter --net="$NS" dig +short +time=5 +tries=1 @127.0.0.1 svc.test A)
	case "$SYNTH" in 198.1[89].*) ;; *) return 1 ;; esac
}

# gin CMD...: run CMD in the sandbox side of the gate.
gin() { nsenter --net="$NS" "$@"; }
# tgin SECS CMD...: the same, bounded in time.
tgin() { local t=$1; shift; timeout "$t" nsenter --net="$NS" "$@"; }

# bl_squid: squid with the same allowlist on 127.0.0.1:27128 (no cache,
# no logs).  Sets SQUID_PID; returns 1 (with SQUID_WHY) when it cannot.
bl_squid() {
	SQUID_PID=
	command -v squid >/dev/null || { SQUID_WHY="squid not installed"; return 1; }
	install -d -o proxy -g proxy -m 0755 "$W/squid"
	cat > "$W/squid.conf" <<-C
	http_port 127.0.0.1:$BL_SQUID_PORT
	pid_filename $W/squid/squid.pid
	cache_log $W/squid/cache.log
	access_log none
	cache_store_log none
	cache deny all
	coredump_dir $W/squid
	dns_nameservers $BL_DNS
	hosts_file none
	netdb_filename none
	shutdown_lifetime 0 seconds
	max_filedescriptors 4096
	acl allowed dstdomain svc.test
	acl allowed_port port $BL_PORT
	http_access deny !allowed_port
	http_access allow allowed
	http_access deny all
	C
	squid -N -f "$W/squid.conf" >"$W/squid/stdout" 2>&1 &
	SQUID_PID=$!
	BL_PIDS+=("$SQUID_PID")
	if ! bl_wait_port - 127.0.0.1 "$BL_SQUID_PORT"; then
		# shellcheck disable=SC2034 # for the scripts that source this file
		SQUID_WHY="squid did not start: $(tail -3 "$W/squid/cache.log" "$W/squid/stdout" 2>/dev/null | tr '\n' ' ')"
		kill "$SQUID_PID" 2>/dev/null
		SQUID_PID=
		return 1
	fi
}

# bl_rss PID: "VmRSS_KiB Pss_KiB RssAnon_KiB"
bl_rss() {
	local rss pss anon
	rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$1/status")
	anon=$(awk '/^RssAnon:/ {print $2}' "/proc/$1/status")
	pss=$(awk '/^Pss:/ {print $2}' "/proc/$1/smaps_rollup")
	echo "$rss $pss $anon"
}

# bl_median N...: the median of the numbers given.
bl_median() {
	printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {
	    if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# bl_gate_stop: end the gate as a session does (SIGTERM to gatedrv).
bl_gate_stop() {
	kill "$DRV" 2>/dev/null
	wait "$DRV" 2>/dev/null
	[ -f "$W/syslog.pid" ] && kill "$(cat "$W/syslog.pid")" 2>/dev/null
	rm -f "$W/syslog.pid"
}

# bl_gate_why: the gate's messages, or how to get them.
bl_gate_why() {
	if [ -s "$W/gate.log" ]; then
		tail -n 5 "$W/gate.log" | tr '\n' ' '
	else
		echo "(run with BENCH_GATE_LOG=1 for its messages)"
	fi
}

# bl_fail NAME REASON: an error (the gate failed where it must work).
bl_fail() {
	echo "$1: FAIL: $2"
	exit 1
}
