#!/bin/bash
# bench/profile.sh: where the gate's time goes, for docs/performance.md
# (not part of `make bench`: it takes a few minutes).  On the bench's test
# bed (bench/lib.sh), for fixed workloads:
#   1. perf record -e cpu-clock (a software clock: this machine's perf
#      has no hardware counters) on the gate, the top symbols, kernel
#      and user, for a CONNECT transfer, new connections and keep-alive;
#   2. strace -c on the gate: system calls per request for new
#      connections and for keep-alive requests;
#   3. valgrind --tool=callgrind on the gate (seccomp off for valgrind
#      alone, as in tests/gate/85-valgrind.t: the gate's test build,
#      BL_GATE_TEST_BIN, default build/tests/helpers/aisb-gate-test, since
#      the release gate has no such switch): user-space instructions per
#      new connection and the functions they are spent in.
# Output goes to stdout; raw files stay in $PROFILE_OUT when it is set.
set -u
export BL_WAIT=1200 # valgrind starts slowly on a busy machine
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
N=${N:-5000}
size=$((1 << 30))
[ -n "$QUICK" ] && { N=500; size=$((64 << 20)); }
bl_setup profile
command -v ab >/dev/null || bl_skip profile "ab missing"
out=${PROFILE_OUT:-$W/prof}
mkdir -p "$out"
url=http://svc.test:$BL_PORT/bytes/1024
bl_gate || bl_fail profile "the gate did not start: $(bl_gate_why)"

top() { # perf.data: the top symbols, self time
	perf report -i "$1" --stdio --no-children --sort sym 2>/dev/null |
	    grep -E '^ +[0-9.]+%' | head -"${2:-15}"
	perf report -i "$1" --stdio --no-children --sort dso 2>/dev/null |
	    grep -E '^ +[0-9.]+%' | head -5 | sed 's/^/  dso: /'
}

if [ -z "${ONLY_CALLGRIND:-}" ] && command -v perf >/dev/null; then
	for w in connect new ka; do
		perf record -q -e cpu-clock -g -p "$GATE_PID" -o "$out/perf-$w.data" >/dev/null 2>&1 &
		pp=$!
		sleep 0.5
		case $w in
		connect) tgin 60 "$BENCHNET" get 127.0.0.1 3128 "svc.test:$BL_PORT" "/bytes/$size" connect ;;
		new) tgin 60 ab -q -c 16 -n "$N" -X 127.0.0.1:3128 "$url" | grep -E '^Requests per' ;;
		ka) tgin 60 ab -q -k -c 16 -n $((N * 4)) -X 127.0.0.1:3128 "$url" | grep -E '^Requests per' ;;
		esac
		kill -INT "$pp"
		wait "$pp"
		echo "== perf, gate, workload $w (self time, cpu-clock samples)"
		top "$out/perf-$w.data"
	done
elif [ -z "${ONLY_CALLGRIND:-}" ]; then
	echo "profile: SKIP perf: not installed"
fi

if [ -z "${ONLY_CALLGRIND:-}" ] && command -v strace >/dev/null; then
	for w in new ka; do
		strace -c -f -o "$out/strace-$w.txt" -p "$GATE_PID" 2>/dev/null &
		sp=$!
		sleep 0.5
		case $w in
		new) tgin 120 ab -q -c 16 -n "$N" -X 127.0.0.1:3128 "$url" >/dev/null ;;
		ka) tgin 120 ab -q -k -c 16 -n "$N" -X 127.0.0.1:3128 "$url" >/dev/null ;;
		esac
		kill -INT "$sp"
		wait "$sp"
		echo "== strace -c, gate, $N requests ($w): calls per request"
		awk -v n="$N" '$1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" {
		    c = $4; name = $NF; printf "%-16s %8.2f\n", name, c / n; t += c }
		    END { printf "%-16s %8.2f\n", "total", t / n }' "$out/strace-$w.txt" |
		    sort -k2 -gr | head -14
	done
elif [ -z "${ONLY_CALLGRIND:-}" ]; then
	echo "profile: SKIP strace: not installed"
fi

if command -v valgrind >/dev/null; then
	# Two runs under callgrind (vgdb cannot attach to the non-dumpable
	# gate, so no callgrind_control): start, 100 warm-up connections and
	# stop; then the same plus N.  The difference is N connections.
	bl_gate_stop
	chown "$BL_USER" "$out"
	for k in 0 "$N"; do
		cat > "$W/cg" <<-E
		#!/bin/sh
		exec valgrind --tool=callgrind --callgrind-out-file=$out/callgrind.$k "\$@"
		E
		chmod 755 "$W/cg"
		BL_GATE_BIN=${BL_GATE_TEST_BIN:-$BUILD/tests/helpers/aisb-gate-test} \
		    bl_gate --no-seccomp --wrap "$W/cg" ||
		    bl_fail profile "the gate did not start under callgrind: $(bl_gate_why)"
		tgin 60 ab -q -c 4 -n 100 -X 127.0.0.1:3128 "$url" >/dev/null
		[ "$k" = 0 ] || tgin 300 ab -q -c 16 -n "$k" -X 127.0.0.1:3128 "$url" |
		    grep -E '^(Complete|Failed)'
		bl_gate_stop
	done
	t0=$(callgrind_annotate "$out/callgrind.0" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
	t1=$(callgrind_annotate "$out/callgrind.$N" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
	echo "== callgrind, gate, $N new connections (plain HTTP, 1 KiB)"
	echo "instructions: start + 100 warm-up $t0, with $N more $t1, per connection $(( (t1 - t0) / N ))"
	echo "top functions (self), the run with $N connections:"
	callgrind_annotate --inclusive=no "$out/callgrind.$N" 2>/dev/null |
	    grep -E '^ *[0-9,]+ \(' | head -20
	echo "inclusive:"
	callgrind_annotate --inclusive=yes "$out/callgrind.$N" 2>/dev/null |
	    grep -E '^ *[0-9,]+ \(' | head -25
else
	echo "profile: SKIP callgrind: valgrind not installed"
fi
