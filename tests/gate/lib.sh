#!/bin/bash
# lib.sh: the loopback test bed shared by tests/gate/*.t (sourced).
#
# Origins on 127.0.0.2 (covered by allow_cidr), a canary on 127.0.0.1
# (loopback: must never be reached), a test DNS server on
# 127.0.0.1:23053 that the policy names as network.resolver, and the
# gate driven by gatedrv: the gate in the host netns as the test user,
# its sockets in gatedrv's own netns, where the clients run (gin CMD).
# Ports: 23000-23999 (the gate's range).  Nothing leaves loopback.

GT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GT_PY="$GT_DIR/servers.py"
GT_USER=${GT_USER:-tgat1}
GT_PIDS=()

gt_kill_all() {
	local p
	for p in "${GT_PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${GT_PIDS[@]}"; do wait "$p" 2>/dev/null; done
	GT_PIDS=()
}

# gt_bg CMD...: start a background server, remember its pid.
gt_bg() {
	"$@" 2>>"$T/servers.log" {GT_LOCKFD}>&- &
	GT_PIDS+=($!)
}

# Wait until something listens on ADDR:PORT (tcp) in the host netns.
gt_wait_port() {
	for _ in $(seq 1 100); do
		ss -Hltn "src $1 and sport = :$2" 2>/dev/null | grep -q . && return 0
		sleep 0.05
	done
	echo "# nothing listens on $1:$2" >&2
	return 1
}

# Several worktrees run `make check` on this machine at once: the
# same test in two of them would share users (tu_user's exit kills all
# of tgat1's processes), ports and the internet's name.  One gate test
# at a time, machine-wide.
gt_lock() {
	exec {GT_LOCKFD}>/run/aisb-tgat.lock
	flock -w 600 "$GT_LOCKFD" || skip_all "another gate test holds /run/aisb-tgat.lock"
}

gt_setup() {
	require_root
	gt_lock
	# tap_scratch: not /tmp (the policy refuses files below world-writable
	# dirs) nor /run (noexec on systemd hosts; 85-valgrind runs a wrapper).
	tap_need_exec "$TAP_SCRATCH"
	T=$(tap_scratch tgat)
	at_exit "gt_kill_all; rm -rf '$T'"
	tu_user "$GT_USER" >/dev/null || skip_all "cannot create $GT_USER"
	# A test CA and an origin certificate for origin.tgat.test.
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=tgat-ca \
	    -keyout "$T/ca.key" -out "$T/ca.pem" >/dev/null 2>&1
	openssl req -newkey rsa:2048 -nodes -subj /CN=origin.tgat.test \
	    -addext "subjectAltName=DNS:origin.tgat.test,DNS:x.wild.tgat.test" \
	    -keyout "$T/origin.key" -out "$T/origin.csr" >/dev/null 2>&1
	openssl x509 -req -in "$T/origin.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" \
	    -CAcreateserial -days 2 -copy_extensions copy \
	    -out "$T/origin.pem" >/dev/null 2>&1
	cat > "$T/dns.table" <<-T
	origin.tgat.test A 127.0.0.2
	x.wild.tgat.test A 127.0.0.2
	bad.wild.tgat.test A 127.0.0.2
	x.bad.wild.tgat.test A 127.0.0.2
	xbad.wild.tgat.test A 127.0.0.2
	loop.tgat.test A 127.0.0.1
	meta.tgat.test A 169.254.169.254
	ten.tgat.test A 10.0.0.1
	mapped.tgat.test AAAA ::ffff:127.0.0.1
	rebind.tgat.test A 127.0.0.2 127.0.0.1
	noname.tgat.test A 127.0.0.2
	T
	: > "$T/canary.log"
	: > "$T/dns.log"
	gt_bg python3 "$GT_PY" http 127.0.0.2 23080
	gt_bg python3 "$GT_PY" http 127.0.0.2 23443 --tls "$T/origin.pem" "$T/origin.key"
	gt_bg python3 "$GT_PY" banner 127.0.0.2 23022
	gt_bg python3 "$GT_PY" banner 127.0.0.2 23023
	gt_bg python3 "$GT_PY" canary 127.0.0.1 23080 "$T/canary.log"
	gt_bg python3 "$GT_PY" dns 127.0.0.1 23053 "$T/dns.table" "$T/dns.log"
	if ! { gt_wait_port 127.0.0.2 23080 && gt_wait_port 127.0.0.2 23443 &&
	    gt_wait_port 127.0.0.2 23022 && gt_wait_port 127.0.0.1 23080; }; then
		skip_all "test origins did not start"
	fi
	sleep 0.2
	gt_policy
}

# The policy under test (root-owned, readable).
gt_policy() {
	cat > "$T/aisb.conf" <<-C
	network {
	  mode = "gated"
	  allow = {"origin.tgat.test:23080,23443,23022,23081", "loop.tgat.test:23080",
	           "meta.tgat.test:23080", "ten.tgat.test:23080",
	           "mapped.tgat.test:23080", "rebind.tgat.test:23080",
	           "*.wild.tgat.test:23080,23443"}
	  deny = {"bad.wild.tgat.test", "*.bad.wild.tgat.test"}
	  allow_cidr = {"127.0.0.2/32"}
	  ports = {23080}
	  resolver = "127.0.0.1:23053"
	}
	C
	chmod 644 "$T/aisb.conf"
}

# The gate's test build (Makefile: AISB_GATE_TEST): the release gate
# plus --debug-no-seccomp, for valgrind.  Never installed.
# shellcheck disable=SC2034 # for the tests that source this file
AISB_GATE_TEST=$AISB_HELPERS/aisb-gate-test

# gt_gate [gatedrv options]: start the gate; sets DRV, GATE_PID, NS.
# GT_GATE=PATH runs that gate binary instead of the release one.
gt_gate() {
	: > "$T/gate.log"
	: > "$T/drv.out"
	DRV='' GATE_PID=''
	as "$GT_USER" "$AISB_HELPERS/gatedrv" --config "$T/aisb.conf" \
	    --user "$GT_USER" --gate "${GT_GATE:-$AISB_GATE}" "$@" \
	    > "$T/drv.out" 2> "$T/gate.log" {GT_LOCKFD}>&- &
	DRV_WRAP=$!
	at_exit "gt_gate_stop"
	for _ in $(seq 1 300); do
		grep -q '^ready' "$T/drv.out" 2>/dev/null && break
		kill -0 "$DRV_WRAP" 2>/dev/null || break
		sleep 0.1
	done
	DRV=$(pgrep -P "$DRV_WRAP" -x gatedrv | head -1)
	if ! grep -q '^ready' "$T/drv.out" || [ -z "$DRV" ]; then
		echo "# gatedrv did not get ready:" >&2
		sed 's/^/#   /' "$T/gate.log" >&2
		return 1
	fi
	GATE_PID=$(awk '/^ready/ {print $2}' "$T/drv.out")
	NS=/proc/$DRV/ns/net
}

# gt_gate_or_bail [options]: a restart in the middle of a test.
gt_gate_or_bail() {
	gt_gate ${1:+"$@"} && return 0
	fail "the gate starts again"
	done_testing
	exit 1
}

# gt_gate_stop: SIGTERM gatedrv (which ends the gate), bounded wait.
gt_gate_stop() {
	[ -n "${DRV_WRAP:-}" ] || return 0
	[ -n "${DRV:-}" ] || DRV=$(pgrep -P "$DRV_WRAP" -x gatedrv | head -1)
	[ -n "$DRV" ] && kill "$DRV" 2>/dev/null
	for _ in $(seq 1 100); do
		kill -0 "$DRV_WRAP" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$DRV_WRAP" 2>/dev/null; then
		pkill -KILL -P "$DRV_WRAP" 2>/dev/null
		[ -n "$GATE_PID" ] && kill -KILL "$GATE_PID" 2>/dev/null
	fi
	wait "$DRV_WRAP" 2>/dev/null
	DRV='' DRV_WRAP=''
}

# gin CMD...: run CMD in the sandbox-side netns (no proxy variables).
gin() {
	nsenter --net="$NS" env -u http_proxy -u https_proxy -u HTTP_PROXY \
	    -u HTTPS_PROXY "$@"
}

# gcurl ARGS...: curl through the proxy inside the netns.
gcurl() {
	gin curl -sS --max-time 15 --proxy http://127.0.0.1:3128 "$@"
}

# quiet CMD...: CMD without its output (for ok).
quiet() { "$@" >/dev/null 2>&1; }

gt_canary_clean() {
	[ ! -s "$T/canary.log" ]
}

gt_gate_alive() {
	kill -0 "$GATE_PID" 2>/dev/null
}

gt_gate_dead() {
	! kill -0 "${1:-$GATE_PID}" 2>/dev/null
}
