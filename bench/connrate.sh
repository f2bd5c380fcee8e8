#!/bin/bash
# bench/connrate.sh: requests per second with ab, 16 concurrent clients,
# 1 KiB bodies: a new connection per request, and keep-alive (-k), direct
# (the gate's upstream leg alone), through the gate (plain HTTP proxy, and
# the capture path) and through squid with the same allowlist.  Each
# figure is the median of RUNS runs of SECS seconds, interleaved.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
secs=5 runs=3
[ -n "$QUICK" ] && { secs=1; runs=1; }
bl_setup connrate
command -v ab >/dev/null || bl_skip connrate "ab missing (apt-get install apache2-utils)"
bl_gate || bl_fail connrate "the gate did not start: $(bl_gate_why)"
paths=(direct gate-http gate-capture)
if bl_squid; then
	paths+=(squid-http)
else
	echo "connrate: SKIP squid: $SQUID_WHY"
fi
url=http://svc.test:$BL_PORT/bytes/1024

run_ab() { # PATH KA
	local ka=() t=$((secs + 20))
	[ "$2" = ka ] && ka=(-k)
	set -- "$1" -q -c 16 -t "$secs" -n 10000000 -s 10 "${ka[@]}"
	case "$1" in
	direct) timeout "$t" ab "${@:2}" "http://$ORIGIN/bytes/1024" ;;
	gate-http) tgin "$t" ab "${@:2}" -X 127.0.0.1:3128 "$url" ;;
	gate-capture) tgin "$t" ab "${@:2}" "http://$SYNTH:$BL_PORT/bytes/1024" ;;
	squid-http) timeout "$t" ab "${@:2}" -X "127.0.0.1:$BL_SQUID_PORT" "$url" ;;
	esac
}

declare -A res
rc=0
for ((r = 0; r < runs; r++)); do
	for ka in new ka; do
		for p in "${paths[@]}"; do
			out=$(run_ab "$p" "$ka" 2>&1)
			rps=$(awk '/^Requests per second:/ {print $4}' <<< "$out")
			bad=$(awk '/^(Failed requests|Non-2xx responses):/ {s += $NF} END {print s + 0}' <<< "$out")
			if [ -z "$rps" ] || [ "$bad" != 0 ]; then
				echo "connrate: $p $ka: failed ($bad errors): $(tail -3 <<< "$out" | tr '\n' ' ')"
				rc=1
			fi
			res[$p.$ka]+=" ${rps:-0}"
		done
	done
done
kill -0 "$GATE_PID" 2>/dev/null || { echo "connrate: the gate died: $(tail -3 "$W/gate.log")"; rc=1; }

# shellcheck disable=SC2086 # the list splits into numbers
med() { bl_median ${res[$1]:-0}; }
div() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }
echo "ab -c 16, 1 KiB bodies, ${secs} s per run, median of $runs (requests/s)"
printf '%-14s %12s %9s %12s %9s\n' path "new conn/s" "x direct" "keep-alive/s" "x direct"
for p in "${paths[@]}"; do
	printf '%-14s %12.0f %9s %12.0f %9s\n' "$p" "$(med "$p.new")" \
	    "$(div "$(med "$p.new")" "$(med direct.new)")" "$(med "$p.ka")" \
	    "$(div "$(med "$p.ka")" "$(med direct.ka)")"
done
rd=$(div "$(med gate-http.new)" "$(med direct.new)")
line="targets: new connections through the gate >= 0.50 x direct: $rd ($(awk -v r="$rd" 'BEGIN {print (r >= 0.5 ? "met" : "MISSED")}'))"
if [ -n "${res[squid-http.new]:-}" ]; then
	rs=$(div "$(med gate-http.new)" "$(med squid-http.new)")
	line="$line; >= 2 x squid: $rs ($(awk -v r="$rs" 'BEGIN {print (r >= 2 ? "met" : "MISSED")}'))"
	line="$line; keep-alive gate/squid: $(div "$(med gate-http.ka)" "$(med squid-http.ka)")"
fi
echo "$line"
exit $rc
