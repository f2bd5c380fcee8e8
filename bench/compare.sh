#!/bin/bash
# shellcheck disable=SC2086 # lists of figures split into numbers on purpose
# bench/compare.sh GATE_A GATE_B: two aisb-gate binaries on the same test
# bed (bench/lib.sh), alternately, ROUNDS times: CONNECT and plain HTTP
# throughput (SIZE MiB) and new connections/s through the proxy (ab -c 16,
# 1 KiB, SECS s), each as a ratio to direct measured in the same round,
# and how busy the machine's CPUs were during each CONNECT transfer (from
# /proc/stat: a relay that makes the processes wait on each other leaves
# them idle part of the time).
# For trying a change to gate/ before it lands (not part of make bench):
#   make BUILD=/tmp/b && bench/compare.sh build/libexec/aisb/aisb-gate \
#       /tmp/b/libexec/aisb/aisb-gate
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
if [ $# != 2 ] || [ ! -x "$1" ] || [ ! -x "$2" ]; then
	echo "usage: bench/compare.sh GATE_A GATE_B" >&2
	exit 2
fi
gates=("$(realpath "$1")" "$(realpath "$2")")
rounds=${ROUNDS:-4} size=$((${SIZE:-1024} << 20)) secs=${SECS:-3}
bl_setup compare
h=svc.test:$BL_PORT
mbs() { awk -v s="$size" '{printf "%.0f", s / $2 / 1e6}'; }
# jiffies: "BUSY IDLE" of all CPUs so far
jiffies() { awk '/^cpu / {print $2 + $3 + $4 + $7 + $8, $5 + $6}' /proc/stat; }
busy() { # BEFORE AFTER: percent busy between the two
	awk -v a="$1" -v b="$2" 'BEGIN {split(a, x, " "); split(b, y, " ");
	    u = y[1] - x[1]; i = y[2] - x[2]; printf "%.0f", (u + i > 0 ? 100 * u / (u + i) : 0)}'
}
rps() { awk '/^Requests per second:/ {printf "%.0f", $4}'; }
declare -A res
for ((r = 0; r < rounds; r++)); do
	d=$(timeout 60 "$BENCHNET" get "$INET_ADDR_SVC" "$BL_PORT" "$h" "/bytes/$size" | mbs)
	dn=$(timeout 60 ab -q -c 16 -t "$secs" -n 10000000 "http://$ORIGIN/bytes/1024" | rps)
	for g in 0 1; do
		export BL_GATE_BIN=${gates[g]}
		bl_gate || { echo "compare: gate $g did not start: $(bl_gate_why)"; exit 1; }
		j0=$(jiffies)
		c=$(tgin 60 "$BENCHNET" get 127.0.0.1 3128 "$h" "/bytes/$size" connect | mbs)
		cb=$(busy "$j0" "$(jiffies)")
		p=$(tgin 60 "$BENCHNET" get 127.0.0.1 3128 "$h" "/bytes/$size" absolute | mbs)
		n=$(tgin 60 ab -q -c 16 -t "$secs" -n 10000000 -X 127.0.0.1:3128 "http://$h/bytes/1024" | rps)
		bl_gate_stop
		res[$g.c]+=" $(awk -v a="$c" -v b="$d" 'BEGIN {print a / b}')"
		res[$g.p]+=" $(awk -v a="$p" -v b="$d" 'BEGIN {print a / b}')"
		res[$g.n]+=" $(awk -v a="$n" -v b="$dn" 'BEGIN {print a / b}')"
		echo "round $r gate $g: connect $c MB/s (CPUs ${cb}% busy), http $p MB/s, new $n/s (direct $d MB/s, $dn/s)"
	done
done
printf '%-8s %14s %14s %14s\n' gate "connect/direct" "http/direct" "new-conn/direct"
for g in 0 1; do
	# shellcheck disable=SC2086 # res[] holds a list of numbers: split on purpose
	printf '%-8s %14.2f %14.2f %14.2f\n' "$([ $g = 0 ] && echo A || echo B)" \
	    "$(bl_median ${res[$g.c]})" "$(bl_median ${res[$g.p]})" "$(bl_median ${res[$g.n]})"
done
echo "A = ${gates[0]}"
echo "B = ${gates[1]}"
