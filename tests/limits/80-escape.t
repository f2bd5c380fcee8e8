#!/bin/bash
# The session cannot leave its cgroup: inside, no cgroup.procs/tasks file
# of the host is writable and no cgroup file system can be mounted, so
# every process of the session stays in session-<id> (checked from the
# host in /proc/PID/cgroup while it runs).
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

lim_user tlim8 || skip_all "cannot create test user"
lim_need_sessions tlim8

conf=$(lim_conf esc 'pids = 64' 'memory = "128M"' 'timeout = 30' 'enforce = "strict"')
h=$(getent passwd tlim8 | cut -d: -f6)
kf=$(mktemp "$LIM_DIR/key.XXXXXX")
# shellcheck disable=SC2016
cmd='n=0
for f in $(find /sys/fs/cgroup /proc/self -name cgroup.procs -o -name tasks 2>/dev/null); do
	n=$((n + 1)); echo $$ 2>/dev/null >"$f" && echo "MOVED $f"
done
echo "tried $n files"
mkdir -p /tmp/cg
for t in "-t cgroup -o pids" "-t cgroup -o memory" "-t cgroup2"; do
	mount $t none /tmp/cg 2>/dev/null && echo "MOUNTED $t"
done
setsid sleep 28 </dev/null >/dev/null 2>&1 &
echo ready; wait'
# shellcheck disable=SC2046
timeout 60 "$LIM_DELEGATE" -k "$kf" tlim8 $(_lim_env tlim8) "$AISB_SHELL" \
    --config "$conf" -c "$cmd" >"$h/esc.out" 2>&1 </dev/null &
pid=$!
for _ in $(seq 100); do
	grep -q ready "$h/esc.out" 2>/dev/null && break
	sleep 0.1
done
out=$(cat "$h/esc.out")
diag "$(printf '%s' "$out" | tr '\n' ' ')"
unlike "$out" 'MOVED' "no cgroup.procs or tasks file is writable inside"
unlike "$out" 'MOUNTED' "no cgroup file system can be mounted inside"
like "$out" 'ready' "the session ran its attempts"
sleeps=$(pgrep -u tlim8 -x sleep)
ok "the session's sleep runs ($sleeps)" test -n "$sleeps"
inside=0 outside=0
for p in $sleeps; do
	if grep -q "^[0-9]*:\(pids\|\)[^:]*:/aisb/tlim8-[^/]*/session-" "/proc/$p/cgroup"; then
		inside=$((inside + 1))
	else
		outside=$((outside + 1)); diag "pid $p: $(tr '\n' ' ' <"/proc/$p/cgroup")"
	fi
done
ok "every process of the session is in its session cgroup ($inside in, $outside out)" \
    test "$inside" -ge 1 -a "$outside" = 0
kill -TERM "$pid"
wait "$pid"
rm -f "$kf"
ok "the setsid sleep is gone with the session" ! pgrep -u tlim8 -x sleep
is "$(lim_cgroups tlim8)" "" "no cgroup is left after the session"

done_testing
