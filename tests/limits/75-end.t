#!/bin/bash
# shellcheck disable=SC2016 # the sessions expand their own variables
# aisb-shell --end ID on a session with strict limits: every process of
# it (one that left with setsid+nohup too) is gone within a second, the
# caller gets 124, and its session cgroup is removed from every
# hierarchy of the delegation.  Twin: a second session of the same agent
# in the same delegation keeps running and keeps its cgroup, until it is
# ended in turn.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/lib/registry.sh
. "$(dirname "$0")/../lib/registry.sh"
command -v python3 >/dev/null || skip_all "python3 not installed"

lim_user tlimb || skip_all "cannot create test user"
lim_need_sessions tlimb
reg_ensure || skip_all "cannot make $REG_DIR"
reg_forget tlimb

conf=$(lim_conf end 'memory = "128M"' 'pids = 64' 'cpu = "50%"' \
    'timeout = 60' 'enforce = "strict"')
h=$(getent passwd tlimb | cut -d: -f6)
rm -f "$h/rc1" "$h/rc2"

# Both sessions inside ONE delegated cgroup (one login running two).
kf=$(mktemp "$LIM_DIR/key.XXXXXX")
script="$LIM_DIR/two.sh"
cat >"$script" <<EOS
#!/bin/bash
("$AISB_SHELL" --config "$conf" -c 'sleep 1001 & setsid nohup sleep 1002 >/dev/null 2>&1 & sleep 1003' >/dev/null 2>&1; echo \$? >"$h/rc1") &
("$AISB_SHELL" --config "$conf" -c 'sleep 1004 & sleep 1005' >/dev/null 2>&1; echo \$? >"$h/rc2") &
wait
EOS
chmod 0755 "$script"
# shellcheck disable=SC2046
"$LIM_DELEGATE" -k "$kf" tlimb $(_lim_env tlimb) "$script" </dev/null &
pid=$!
at_exit "kill $pid 2>/dev/null; wait $pid 2>/dev/null"

# session_cgroups ID: every hierarchy's cgroup of session ID.
session_cgroups() {
	find /sys/fs/cgroup -mindepth 2 -maxdepth 5 -type d \
	    -name "session-$1" 2>/dev/null | sort
}
# (v1: memory, pids, cpu, cpuacct; v2: the one.)
if [ "$LIM_CG" = v2 ]; then want=1; else want=4; fi
# pids_cgroup ID: the cgroup of session ID that counts its processes.
pids_cgroup() {
	if [ "$LIM_CG" = v2 ]; then
		session_cgroups "$1" | head -1
	else
		session_cgroups "$1" | grep '^/sys/fs/cgroup/pids/'
	fi
}

# The two sessions' ids, from --sessions, once both have their cgroup
# and their last sleep runs.
key='' A='' B=''
for _ in $(seq 100); do
	key=$(cat "$kf" 2>/dev/null)
	if [ -n "$key" ] && [ "$(lim_session_dir "$key" pids | wc -l)" -ge 2 ] &&
	    pgrep -u tlimb -fx 'sleep 1003' >/dev/null &&
	    pgrep -u tlimb -fx 'sleep 1005' >/dev/null; then
		S=$("$AISB_SHELL" --sessions --json)
		ids=$(reg_json_get "$S" "' '.join(s['id'] or '-' for s in d['sessions'] if s['user'] == 'tlimb')")
		read -r A B <<<"$ids"
		[ -n "$B" ] && break
	fi
	sleep 0.1
done
# A is the one whose pids cgroup holds "sleep 1003".
has_sleep() {
	local p
	while read -r p; do
		[ "$(ps -o args= -p "$p")" = "$2" ] && return 0
	done < <(cat "$(pids_cgroup "$1")/cgroup.procs" 2>/dev/null)
	return 1
}
if has_sleep "$B" 'sleep 1003'; then t=$A; A=$B; B=$t; fi
diag "key=$key sessions: A $A, B $B"
ok "two sessions of tlimb are live" test -n "$A" -a -n "$B" -a "$A" != - -a "$B" != -

ca=$(session_cgroups "$A")
cb=$(session_cgroups "$B")
diag "A: $(printf '%s\n' "$ca" | tr '\n' ' ')"
is "$(printf '%s\n' "$ca" | grep -c session-)" "$want" "session A has its cgroup in each hierarchy"
is "$(printf '%s\n' "$cb" | grep -c session-)" "$want" "... and so has session B"

pa=$(pids_cgroup "$A")
procs=$(tr '\n' ' ' 2>/dev/null <"$pa/cgroup.procs")
args=$(for p in $procs; do ps -o args= -p "$p"; done)
diag "A's processes: $procs"
like "$args" 'sleep 1002' "witness: A's cgroup holds its setsid sleep"
like "$args" 'sleep 1003' "... and its last sleep"
ok "... and no sleep of B" eval '! printf "%s\n" "$args" | grep -q "sleep 100[45]"'
bprocs=$(tr '\n' ' ' 2>/dev/null <"$(pids_cgroup "$B")/cgroup.procs")

t0=$(date +%s%N)
out=$("$AISB_SHELL" --end "$A" 2>&1)
rc=$?
left=$procs
for _ in $(seq 300); do
	left=
	for p in $procs; do [ -e "/proc/$p" ] && left="$left $p"; done
	[ -z "$left" ] && break
	sleep 0.01
done
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
diag "$out"
is "$rc" 0 "--end A"
is "$left" "" "no process of A is left"
ok "... within 1 s ($ms ms)" test "$ms" -lt 1000
is "$(session_cgroups "$A")" "" "no cgroup of A is left, in any hierarchy"
for _ in $(seq 100); do [ -s "$h/rc1" ] && break; sleep 0.05; done
is "$(cat "$h/rc1" 2>&1)" 124 "A's caller got 124"
ok "no sleep of A survives" ! pgrep -u tlimb -f 'sleep 100[123]'

# The twin: B is untouched.
is "$(session_cgroups "$B")" "$cb" "B keeps its cgroups"
ok "witness: B's cgroup holds processes ($bprocs)" test -n "$bprocs"
bleft=
for p in $bprocs; do [ -e "/proc/$p" ] && bleft="$bleft$p "; done
is "$bleft" "$bprocs" "... and every process in them"
ok "... B's last sleep runs" eval "pgrep -u tlimb -fx 'sleep 1005' >/dev/null"
S=$("$AISB_SHELL" --sessions --json)
is "$(reg_json_get "$S" "' '.join(s['id'] for s in d['sessions'] if s['user'] == 'tlimb')")" \
    "$B" "--sessions lists B alone"
ok "... and B's caller has not returned" test ! -e "$h/rc2"

"$AISB_SHELL" --end "$B" >/dev/null
wait "$pid"
is "$(cat "$h/rc2" 2>&1)" 124 "then --end B ends B too"
rm -f "$kf" "$h/rc1" "$h/rc2"
is "$(lim_cgroups tlimb)" "" "no cgroup is left after both sessions"

done_testing
