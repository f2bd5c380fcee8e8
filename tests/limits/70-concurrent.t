#!/bin/bash
# Two concurrent sessions of one user each get their own session cgroup
# with their own limits (one runs out of pids, the other does not notice);
# no cgroup is left after both end.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

lim_user tlim7 || skip_all "cannot create test user"
lim_need_sessions tlim7

small=$(lim_conf small 'pids = 16' 'memory = "64M"' 'timeout = 30' 'enforce = "strict"')
big=$(lim_conf big 'pids = 200' 'memory = "128M"' 'timeout = 30' 'enforce = "strict"')

# Both inside ONE delegated cgroup (one login running two sessions).
kf=$(mktemp "$LIM_DIR/key.XXXXXX")
out=$(getent passwd tlim7 | cut -d: -f6)
script="$LIM_DIR/two.sh"
cat >"$script" <<EOS
#!/bin/bash
"$AISB_SHELL" --config "$small" -c '/project/lim_tool forkbomb 100 3' >"$out/s1" 2>&1 &
"$AISB_SHELL" --config "$big" -c 'sleep 1; /project/lim_tool forkbomb 100 2' >"$out/s2" 2>&1 &
wait
EOS
chmod 0755 "$script"
# shellcheck disable=SC2046
"$LIM_DELEGATE" -k "$kf" tlim7 $(_lim_env tlim7) "$script" </dev/null &
pid=$!
key=
for _ in $(seq 50); do
	key=$(cat "$kf" 2>/dev/null)
	[ -n "$key" ] && [ "$(lim_session_dir "$key" pids | wc -l)" -ge 2 ] && break
	sleep 0.1
done
dirs=$(lim_session_dir "$key" pids)
is "$(printf '%s\n' "$dirs" | grep -c session-)" 2 "two session cgroups in one delegation"
maxes=$(for d in $dirs; do cat "$d/pids.max"; done | sort -n | tr '\n' ' ')
is "$maxes" "16 200 " "each has its own pids.max"
# At one moment both sessions hold their forks: the small one at its
# limit, the big one past it.  Sampled from the host, so "at the same
# time" is seen, not inferred from the scripts' sleeps.
dsmall='' dbig=''
for d in $dirs; do
	case $(cat "$d/pids.max") in 16) dsmall=$d ;; 200) dbig=$d ;; esac
done
both=
for _ in $(seq 200); do
	cs=$(cat "$dsmall/pids.current" 2>/dev/null || echo 0)
	cb=$(cat "$dbig/pids.current" 2>/dev/null || echo 0)
	if [ "$cs" -ge 12 ] && [ "$cb" -ge 50 ]; then
		both="$cs $cb"
		break
	fi
	sleep 0.05
done
ok "both sessions run their forks at once (pids.current: ${both:-never both})" test -n "$both"
wait "$pid"
s1=$(cat "$out/s1"); s2=$(cat "$out/s2")
diag "s1: $s1"; diag "s2: $s2"
like "$s1" 'forks 1[0-5] errno EAGAIN' "the small session stops at its own pids = 16"
like "$s2" 'forks 100 errno 0' "the big session forks 100 (its own limit, not the small one's)"
rm -f "$kf"
is "$(lim_cgroups tlim7)" "" "no cgroup is left after both sessions"

done_testing
