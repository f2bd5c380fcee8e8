#!/bin/bash
# shellcheck disable=SC2086 # lists of figures split into numbers on purpose
# bench/gate.sh: gate throughput.  One GET of 1 GiB (QUICK: 64 MiB)
# through a CONNECT tunnel, through the capture path (nft redirect to the
# capture port, SO_ORIGINAL_DST) and through plain HTTP proxying, against
# the same transfer direct (the gate's upstream leg alone) and against
# squid with the same allowlist, all in one run.  Each path is measured
# RUNS times, interleaved; the table has the median and the ratio to
# direct.  Client and origin: bench/benchnet (sendfile origin, one
# reused 1 MiB receive buffer).
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
size=$((1 << 30)) runs=5
[ -n "$QUICK" ] && { size=$((64 << 20)); runs=1; }
bl_setup gate
bl_gate || bl_fail gate "the gate did not start: $(bl_gate_why)"
paths=(direct gate-connect gate-capture gate-http)
if bl_squid; then
	paths+=(squid-connect squid-http)
else
	echo "gate: SKIP squid: $SQUID_WHY"
fi

get() { # PATH: one transfer, "BYTES SECONDS" on stdout
	local p=/bytes/$size h=svc.test:$BL_PORT
	case "$1" in
	direct) timeout 60 "$BENCHNET" get "$INET_ADDR_SVC" "$BL_PORT" "$h" "$p" ;;
	gate-connect) tgin 60 "$BENCHNET" get 127.0.0.1 3128 "$h" "$p" connect ;;
	gate-capture) tgin 60 "$BENCHNET" get "$SYNTH" "$BL_PORT" "$h" "$p" ;;
	gate-http) tgin 60 "$BENCHNET" get 127.0.0.1 3128 "$h" "$p" absolute ;;
	squid-connect) timeout 60 "$BENCHNET" get 127.0.0.1 "$BL_SQUID_PORT" "$h" "$p" connect ;;
	squid-http) timeout 60 "$BENCHNET" get 127.0.0.1 "$BL_SQUID_PORT" "$h" "$p" absolute ;;
	esac
}

declare -A res
rc=0
for ((r = 0; r < runs; r++)); do
	for p in "${paths[@]}"; do
		if out=$(get "$p" 2>"$W/err") && [ "${out%% *}" = "$size" ]; then
			res[$p]+=" $(awk -v s="$size" '{printf "%.1f", s / $2 / 1e6}' <<< "$out")"
		else
			echo "gate: $p failed: $(head -c 300 "$W/err")"
			rc=1
		fi
	done
done
kill -0 "$GATE_PID" 2>/dev/null || { echo "gate: the gate died: $(tail -3 "$W/gate.log")"; rc=1; }

printf '%s\n' "transfer of $((size >> 20)) MiB, median of $runs"
printf '%-14s %10s %10s\n' path "MB/s" "x direct"
# shellcheck disable=SC2086 # res[] holds a list of numbers: split on purpose
d=$(bl_median ${res[direct]:-0})
for p in "${paths[@]}"; do
	[ -n "${res[$p]:-}" ] || continue
	# shellcheck disable=SC2086 # res[] holds a list of numbers: split on purpose
	m=$(bl_median ${res[$p]})
	printf '%-14s %10.1f %10.2f\n' "$p" "$m" "$(awk -v a="$m" -v b="$d" 'BEGIN {print (b > 0 ? a / b : 0)}')"
done
# shellcheck disable=SC2086 # res[] holds a list of numbers: split on purpose
ratio() { awk -v a="$(bl_median ${res[$1]:-0})" -v b="$d" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}'; }
verdict() { awk -v r="$1" -v t="$2" 'BEGIN {print (r >= t ? "met" : "MISSED")}'; }
echo "targets: tunnel >= 0.85 x direct: connect $(ratio gate-connect) capture $(ratio gate-capture) ($(verdict "$(ratio gate-connect)" 0.85)/$(verdict "$(ratio gate-capture)" 0.85)); plain HTTP >= 0.50 x direct: $(ratio gate-http) ($(verdict "$(ratio gate-http)" 0.50))"
# shellcheck disable=SC2086 # res[] holds a list of numbers: split on purpose
[ -n "${res[squid-http]:-}" ] &&
	echo "gate vs squid: connect $(awk -v a="$(bl_median ${res[gate-connect]:-0})" -v b="$(bl_median ${res[squid-connect]})" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')x, plain HTTP $(awk -v a="$(bl_median ${res[gate-http]:-0})" -v b="$(bl_median ${res[squid-http]})" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')x"
exit $rc
