#!/bin/bash
# Signals and the session's end, through a real session: what the outer
# receives reaches the inside through init, a hangup ends everything
# within a second even when the inside ignores it, orphans are reaped
# by the sandbox's init, and nothing inside can signal its way out.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" lck --helpers
exec </dev/null
sess_require
u=tlck4
sess_user "$u"
conf=$(sess_conf sig)
out=$(mktemp)
at_exit "rm -f '$out'"

# start CMD: a session in the background; $spid is the outer aisb-shell
# itself (env and setpriv exec it).  Waits until the inside printed
# "ready".
start() {
	: > "$out"
	(cd / && exec env -i PATH=/usr/bin:/bin HOME=/ USER="$u" LOGNAME="$u" \
	    setpriv --reuid="$u" --regid="$u" --init-groups \
	    "$AISB_SHELL" --config "$conf" -c "$1") > "$out" 2>&1 &
	spid=$!
	local i
	for ((i = 0; i < 50; i++)); do
		grep -q ready "$out" && return 0
		sleep 0.1
	done
	return 1
}
# finish: the session's exit status in $rc.
finish() { wait "$spid"; rc=$?; }

start 'trap "exit 55" TERM; echo ready; while :; do sleep 0.1; done'
kill -TERM "$spid"
finish
is "$rc" 55 "SIGTERM to the outer reaches the inside (its handler's status)"

start 'trap "exit 56" INT; echo ready; sleep 30 & wait'
kill -INT "$spid"
finish
is "$rc" 56 "SIGINT to the outer reaches the inside"

start 'trap "exit 57" USR1; echo ready; while :; do sleep 0.1; done'
kill -USR1 "$spid"
finish
is "$rc" 57 "SIGUSR1 to the outer reaches the inside"

# A hangup (ssh disconnect): gone within a second, ignoring it or not.
cname=lckhup$$
start "trap '' HUP; (exec -a $cname sleep 300) & echo ready; exec -a $cname sleep 300"
canaries() { [ "$(pgrep -u "$u" -f "^$cname" | wc -l)" -eq 2 ]; }
ok "the canaries run inside" canaries
t0=$(date +%s%N)
kill -HUP "$spid"
finish
t1=$(date +%s%N)
is "$rc" 129 "SIGHUP ends the session with 129 though the inside ignores it"
ok "within a second ($(( (t1 - t0) / 1000000 )) ms)" [ $(( (t1 - t0) / 1000000 )) -lt 1000 ]
is "$(pgrep -u "$u" -f "^$cname" | wc -l)" 0 "no process of the session is left"

# Orphans: reparented to the sandbox's init and reaped there.  Each
# orphan is seen as init's child while it runs; once it has exited, its /proc
# entry must go (a zombie keeps it), within 5 s.
is "$(sess "$u" "$conf" -c '(sleep 1 & echo $! > /tmp/o1); (sleep 1 & echo $! > /tmp/o2)
o="$(cat /tmp/o1) $(cat /tmp/o2)"; seen=0
for p in $o; do [ "$(ps -o ppid= -p "$p" | tr -d " ")" = 1 ] && seen=$((seen + 1)); done
for i in $(seq 1 50); do left=0; for p in $o; do [ -e /proc/$p ] && left=$((left + 1)); done
	[ "$left" = 0 ] && break; sleep 0.1; done
echo "orphans=$seen left=$left"')" "orphans=2 left=0" \
    "orphans inside are reaped by the sandbox's init (two seen as init's children, then gone)"
like "$(sess "$u" "$conf" -c 'ps -o comm= -p 1')" "aisb-shell" \
    "inside, PID 1 is aisb's init"

# From inside, signals cannot leave: init ignores what it has no
# reason to take, the outer is not even nameable.
out2=$(sess "$u" "$conf" -c 'kill -KILL 1; kill -STOP 1; sleep 0.3; echo alive')
like "$out2" "alive" "inside: SIGKILL/SIGSTOP to PID 1 do not take the session down"
# kill -1 from inside: everything of the sandbox, nothing outside.  The
# canary is the user's own process (the pid of `as ... &` is a root
# shell that no kill of the user could reach anyway).
as "$u" bash -c "exec -a lckout$$ sleep 30" &
for _ in $(seq 1 50); do
	host=$(pgrep -u "$u" -f "^lckout$$") && break
	sleep 0.1
done
at_exit "kill ${host:-$!}"
ok "the user's canary runs outside (pid ${host:-none})" [ -n "$host" ]
sess "$u" "$conf" -c 'kill -KILL -1; echo never' >/dev/null 2>&1
ok "inside: kill -KILL -1 does not reach the user's processes outside" kill -0 "${host:-none}"
done_testing
