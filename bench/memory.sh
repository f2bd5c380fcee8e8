#!/bin/bash
# bench/memory.sh: the gate's memory, idle and with N concurrent idle
# CONNECT tunnels (N = 1000; QUICK: 100), from /proc/PID/status VmRSS
# and Pss from /proc/PID/smaps_rollup; the per-tunnel cost is the growth
# divided by the tunnels held.  Squid's idle RSS (same allowlist, no
# cache) is the baseline, and sleep(1) the floor: the smallest
# dynamically linked program maps the same libc and loader, whose pages
# VmRSS counts in full in every process (Pss shares them out).  RssAnon
# is the process's own memory.  Every tunnel must open: a refusal is an
# error.
set -u
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
n=1000
[ -n "$QUICK" ] && n=100
bl_setup memory
bl_gate || bl_fail memory "the gate did not start: $(bl_gate_why)"
rc=0
# Warm: one request through each path, as a session's first use would.
if ! tgin 10 "$BENCHNET" get 127.0.0.1 3128 "svc.test:$BL_PORT" /bytes/1024 connect >/dev/null ||
    ! tgin 10 "$BENCHNET" get 127.0.0.1 3128 "svc.test:$BL_PORT" /bytes/1024 absolute >/dev/null; then
	echo "memory: a request through the gate failed"
	rc=1
fi
sleep 0.5
read -r rss0 pss0 anon0 <<< "$(bl_rss "$GATE_PID")"

# The holder keeps its tunnels until killed.
nsenter --net="$NS" "$BENCHNET" hold 127.0.0.1 3128 "svc.test:$BL_PORT" "$n" > "$W/hold.out" 2>&1 &
HOLD=$!
BL_PIDS+=("$HOLD")
for _ in $(seq 600); do
	grep -q '^held' "$W/hold.out" 2>/dev/null && break
	sleep 0.1
done
read -r _ held _ failed why < "$W/hold.out"
held=${held:-0} failed=${failed:-$n}
sleep 0.5
read -r rss1 pss1 anon1 <<< "$(bl_rss "$GATE_PID")"
fds=$(find "/proc/$GATE_PID/fd" -mindepth 1 -maxdepth 1 | wc -l)
[ "$held" = "$n" ] || { echo "memory: only $held of $n tunnels opened, $failed failed $why"; rc=1; }
# With the tunnels open, a new request must still work.
tgin 10 "$BENCHNET" get 127.0.0.1 3128 "svc.test:$BL_PORT" /bytes/1024 connect >/dev/null 2>"$W/after.err" ||
	{ echo "memory: with $held tunnels open, a new tunnel failed: $(cat "$W/after.err")"; rc=1; }
kill "$HOLD"
wait "$HOLD" 2>/dev/null
kill -0 "$GATE_PID" 2>/dev/null || { echo "memory: the gate died: $(tail -3 "$W/gate.log")"; rc=1; }

squid_rss=
if bl_squid; then
	sleep 1
	read -r squid_rss squid_pss squid_anon <<< "$(bl_rss "$SQUID_PID")"
else
	echo "memory: SKIP squid: $SQUID_WHY"
fi

# The floor: sleep(1), started the same way (as the bench user, env -i).
setpriv --reuid="$BL_USER" --regid="$BL_USER" --clear-groups env -i sleep 60 &
FLOOR=$!
BL_PIDS+=("$FLOOR")
sleep 0.5
read -r floor_rss floor_pss floor_anon <<< "$(bl_rss "$FLOOR")"
kill "$FLOOR"
wait "$FLOOR" 2>/dev/null

echo "gate memory (KiB), idle and with $held of $n idle CONNECT tunnels ($fds fds open)"
printf '%-22s %10s %10s %10s\n' "" "VmRSS" "Pss" "RssAnon"
printf '%-22s %10d %10d %10d\n' "gate idle" "$rss0" "$pss0" "$anon0"
printf '%-22s %10d %10d %10d\n' "gate, $held tunnels" "$rss1" "$pss1" "$anon1"
if [ "$held" -gt 0 ]; then
	per_rss=$(awk -v a="$rss1" -v b="$rss0" -v n="$held" 'BEGIN {printf "%.2f", (a - b) / n}')
	per_pss=$(awk -v a="$pss1" -v b="$pss0" -v n="$held" 'BEGIN {printf "%.2f", (a - b) / n}')
	printf '%-22s %10s %10s\n' "per tunnel" "$per_rss" "$per_pss"
fi
[ -n "$squid_rss" ] && printf '%-22s %10d %10d %10d   (gate idle = %.2f x squid)\n' "squid idle" "$squid_rss" "$squid_pss" \
	"$squid_anon" "$(awk -v a="$rss0" -v b="$squid_rss" 'BEGIN {print a / b}')"
printf '%-22s %10d %10d %10d   (gate idle = sleep + %d KiB)\n' "sleep(1), the floor" "$floor_rss" "$floor_pss" \
	"$floor_anon" "$((rss0 - floor_rss))"
echo "targets: idle RSS <= 2048 KiB: $rss0 ($(awk -v a="$rss0" 'BEGIN {print (a <= 2048 ? "met" : "MISSED")}'), floor $floor_rss); per tunnel <= 16 KiB: ${per_rss:-n/a} ($(awk -v a="${per_rss:-99999}" 'BEGIN {print (a <= 16 ? "met" : "MISSED")}')); $n tunnels with no error: $([ "$held" = "$n" ] && echo met || echo "MISSED ($failed failed)")"
exit $rc
