#!/bin/bash
# A fork bomb stops at limits.pids while the host can still fork.  The
# bomb is bounded three times over: pids.max, lim_tool's own cap of 500
# forks with an alarm, and limits.timeout.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

lim_user tlim2 || skip_all "cannot create test user"
lim_need_sessions tlim2

conf=$(lim_conf pids 'pids = 32' 'timeout = 30' 'enforce = "strict"')
lim_run tlim2 "$conf" '/project/lim_tool forkbomb 500 2'
diag "rc=$LIM_RC out: $LIM_OUT"
like "$LIM_OUT" 'forks [0-9]+ errno EAGAIN' "the fork bomb is refused with EAGAIN"
n=$(printf '%s\n' "$LIM_OUT" | sed -n 's/^forks \([0-9]*\) .*/\1/p')
ok "the bomb got fewer than 32 processes (got ${n:-none})" \
    test -n "$n" -a "${n:-999}" -lt 32
is "$LIM_RC" 0 "the session ends normally"

# While a bomb holds the session at its limit, the host forks freely.
kf=$(mktemp "$LIM_DIR/key.XXXXXX")
# shellcheck disable=SC2046
timeout 60 "$LIM_DELEGATE" -k "$kf" tlim2 $(_lim_env tlim2) "$AISB_SHELL" \
    --config "$conf" -c '/project/lim_tool forkbomb 500 4' \
    >"$LIM_DIR/bomb.out" 2>&1 </dev/null &
bomb=$!
for _ in $(seq 50); do
	key=$(cat "$kf" 2>/dev/null)
	[ -n "$key" ] && d=$(lim_session_dir "$key" pids) && [ -n "$d" ] &&
		[ "$(cat "$d/pids.current" 2>/dev/null || echo 0)" -ge 30 ] && break
	sleep 0.1
done
cur=$(cat "$d/pids.current" 2>/dev/null)
diag "session pids.current=$cur"
ok "the session sits at its pids limit ($cur)" test "${cur:-0}" -ge 30 -a "${cur:-99}" -le 32
ok "the host can fork 50 processes meanwhile" \
    bash -c 'for _ in {1..50}; do /bin/true || exit 1; done'
wait "$bomb"
rm -f "$kf"
is "$(lim_cgroups tlim2)" "" "no cgroup is left after the session"

done_testing
