#!/bin/bash
# limits.cpu = "50%": a busy loop gets at most about half a core,
# measured from the session cgroup's own usage counter (v1 cpuacct.usage,
# v2 cpu.stat usage_usec) over several seconds.  Twin: at "150%" the same
# load gets more than 50% would allow, unless the host itself has no idle
# CPU left to give (then the twin is skipped with the measured numbers:
# a busy host can only lower usage, so the limit check stays valid).
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

lim_user tlim6 || skip_all "cannot create test user"
lim_need_sessions tlim6

# usage_ns DIR: the cgroup's CPU time in ns.
usage_ns() {
	if [ "$LIM_CG" = v2 ]; then
		echo $(( $(sed -n 's/^usage_usec //p' "$1/cpu.stat") * 1000 ))
	else
		cat "$1/cpuacct.usage"
	fi
}

# idle_ticks: idle + iowait jiffies of all CPUs.
idle_ticks() { awk '/^cpu /{print $5 + $6}' /proc/stat; }

# share PERCENT: two spinners for 8 s in one session; sets USED (cores
# the session got over 3 s in the middle) and IDLE (host cores idle
# meanwhile), as decimals.
share() {
	local conf kf key d a b t0 t1 i0 i1 pid hz
	hz=$(getconf CLK_TCK)
	conf=$(lim_conf "cpu$1" "cpu = \"$1%\"" 'timeout = 40' 'enforce = "strict"')
	kf=$(mktemp "$LIM_DIR/key.XXXXXX")
	# shellcheck disable=SC2046
	timeout 60 "$LIM_DELEGATE" -k "$kf" tlim6 $(_lim_env tlim6) "$AISB_SHELL" \
	    --config "$conf" -c '/project/lim_tool spin 8 & /project/lim_tool spin 8; wait' \
	    >/dev/null 2>&1 </dev/null &
	pid=$!
	d=
	for _ in $(seq 100); do
		key=$(cat "$kf" 2>/dev/null)
		if [ -n "$key" ]; then
			d=$(lim_session_dir "$key" "$([ "$LIM_CG" = v2 ] || echo cpuacct)")
			[ -n "$d" ] && break
		fi
		sleep 0.1
	done
	sleep 2
	a=$(usage_ns "$d"); i0=$(idle_ticks); t0=$(date +%s%N)
	sleep 3
	b=$(usage_ns "$d"); i1=$(idle_ticks); t1=$(date +%s%N)
	wait "$pid"
	rm -f "$kf"
	USED=$(echo "scale=3; ($b - $a) / ($t1 - $t0)" | bc)
	IDLE=$(echo "scale=3; ($i1 - $i0) / $hz * 1000000000 / ($t1 - $t0)" | bc)
}

share 50
diag "cpu = 50%: the session got $USED cores, the host had $IDLE idle"
ok "a busy loop under cpu = 50% gets at most about half a core ($USED)" \
    test "$(echo "$USED > 0.05 && $USED <= 0.6" | bc)" = 1
if [ "$(nproc)" -ge 2 ]; then
	share 150
	diag "cpu = 150%: the session got $USED cores, the host had $IDLE idle"
	if [ "$(echo "$USED > 0.7" | bc)" = 1 ]; then
		pass "at cpu = 150% the same load gets more than 50% allows ($USED)"
	elif [ "$(echo "$IDLE < 0.5" | bc)" = 1 ]; then
		skip "at cpu = 150% the same load gets more" \
		    "host saturated: the session got $USED cores, $IDLE idle"
	else
		fail "at cpu = 150% the same load gets more than 50% allows" \
		    "got $USED cores while $IDLE cores were idle"
	fi
else
	skip "at cpu = 150% the same load gets more" "one CPU only"
fi
is "$(lim_cgroups tlim6)" "" "no cgroup is left after the sessions"

done_testing
