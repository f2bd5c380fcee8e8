#!/bin/bash
# Processes, signals, environment and descriptors: the host stays out of
# reach, the sandbox's own processes stay in reach; no process outlives
# the session.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
sess_user tsbx5
conf=$(sess_conf proc 'home { path = "tmpfs" }' \
    'env { pass = {"TERM", "SBX_PASS_CANARY", "SBXG_*", "LD_*"} }')

# A host process of the same user, with a unique name.
canary=sbxhost$$
# Its pid is the sleep's own (the pid of `as ... &` is a root shell:
# signalling that would fail from any unprivileged place).
as tsbx5 bash -c "exec -a $canary sleep 300" &
for _ in $(seq 1 50); do
	hostpid=$(pgrep -u tsbx5 -f "^$canary") && break
	sleep 0.1
done
at_exit "kill ${hostpid:-$!}"
ok "the host canary runs (pid ${hostpid:-none})" kill -0 "${hostpid:-none}"
is "$(ps -eo comm=,args= | awk -v c="$canary" '$1 == "sleep" && $2 == c' | wc -l)" 1 \
    "the host sees it (the probe below can find it)"

out=$(sess tsbx5 "$conf" -c "ps -eo comm=,args= | awk '\$1 == \"sleep\" && \$2 == \"$canary\"' | wc -l; kill -0 $hostpid 2>&1; echo rc=\$?")
like "$out" "^0" "the host canary is not visible inside"
like "$out" "^rc=1$" "signalling the host pid from inside fails"
ok "the host canary survived" kill -0 "$hostpid"
is "$(sess tsbx5 "$conf" -c 'sleep 100 & k=$!; kill -TERM $k; wait $k; echo $?')" "143" \
    "signalling a child inside works"
is "$(sess tsbx5 "$conf" -c 'echo $$; ps -o pid= -p 1 | tr -d " "')" "$(printf '2\n1')" \
    "the sandbox has its own pid namespace (init is 1, the shell 2)"
is "$(as tsbx5 timeout 20 "$AISB_SHELL" --config "$conf" -c 'kill -9 1 2>/dev/null; sleep 0.2; echo alive')" \
    "alive" "SIGKILL to init from inside is ignored; the session goes on"

# Environment: only what env.pass names.
out=$(as tsbx5 env SBX_PASS_CANARY=yes SBX_DROP_CANARY=no SBXG_A=g \
    LD_PRELOAD=/nonexistent.so LD_LIBRARY_PATH=/x BASH_ENV=/etc/passwd \
    "$AISB_SHELL" --config "$conf" -c env)
like "$out" "^SBX_PASS_CANARY=yes$" "a variable in env.pass is present"
unlike "$out" "SBX_DROP_CANARY" "a variable not in env.pass is absent"
like "$out" "^SBXG_A=g$" "a glob in env.pass passes matching names"
unlike "$out" "LD_PRELOAD|LD_LIBRARY_PATH" "a glob never passes LD_* names"
unlike "$out" "BASH_ENV" "BASH_ENV is never passed"
like "$out" "^AISB_SESSION=[0-9a-f]{32}$" "AISB_SESSION is a 32-hex-digit id"
like "$out" "^SHELL=/bin/bash$" "SHELL is the inner shell"
like "$out" "^PWD=/project$" "PWD is the project"
like "$out" "^USER=tsbx5$" "USER is the agent"
out=$(as tsbx5 env SBX_DROP_CANARY=no "$AISB_SHELL" --config "$conf" \
    -c 'tr "\0" "\n" < /proc/1/environ 2>&1; echo end')
unlike "$out" "SBX_DROP_CANARY" "the caller's full environment is not readable through init"
like "$out" "end" "(the probe ran)"
id1=$(sess tsbx5 "$conf" -c 'echo $AISB_SESSION')
id2=$(sess tsbx5 "$conf" -c 'echo $AISB_SESSION')
ok "each session has its own id" [ "$id1" != "$id2" ]

# Descriptors: a canary fd of the caller does not reach inside.
out=$(as tsbx5 bash -c "exec 7</etc/hostname 8>/dev/null; \"$AISB_SHELL\" --config '$conf' -c 'ls /proc/self/fd | tr \"\n\" \" \"'")
is "$out" "0 1 2 3 " "only fds 0, 1, 2 (and ls's own dir fd) inside"

# Two concurrent sessions of one user: separate /tmp and processes.
tmp=$(mktemp -d); chmod 0755 "$tmp"
at_exit "rm -rf '$tmp'"
sess tsbx5 "$conf" -c "echo one > /tmp/mine; exec -a sbxsessA sleep 5" &
a=$!
for _ in $(seq 100); do pgrep -u tsbx5 -f '^sbxsessA' >/dev/null && break; sleep 0.05; done
ok "the first session runs" pgrep -u tsbx5 -f '^sbxsessA'
out=$(sess tsbx5 "$conf" -c 'cat /tmp/mine 2>&1; ps -eo args | grep -c "^sbxsess[A]"')
like "$out" "No such file" "a second session does not see the first one's /tmp"
like "$out" "^0$" "nor its processes"
kill "$a" 2>/dev/null; wait "$a" 2>/dev/null

# SIGKILL of the outer aisb-shell: nothing of the sandbox survives.
cname=sbxorphan$$
errf=$(mktemp); at_exit "rm -f '$errf'"
sess tsbx5 "$conf" -c "(exec -a $cname sleep 300) & (setsid bash -c 'exec -a $cname sleep 300' &) ; exec -a $cname sleep 300" 2>"$errf" &
for _ in $(seq 100); do
	[ "$(pgrep -u tsbx5 -x sleep -a 2>/dev/null | grep -c "$cname")" -ge 3 ] && break
	sleep 0.05
done
outer=$(pgrep -u tsbx5 -f "aisb-shell --config $conf -c \\(exec -a $cname" | head -1)
n=$(pgrep -u tsbx5 -x sleep -a 2>/dev/null | grep -c "$cname")
ok "the canary processes run inside (found $n)" [ "$n" -ge 3 ]
ok "found the outer aisb-shell" [ -n "$outer" ]
[ -n "$outer" ] || diag "session stderr: $(cat "$errf")"
[ -n "$outer" ] && kill -KILL "$outer"
for _ in $(seq 1 10); do
	n=$(pgrep -u tsbx5 -a 2>/dev/null | grep -c "$cname")
	[ "$n" = 0 ] && break
	sleep 0.1
done
is "$n" "0" "within 1 s of SIGKILL of the outer no sandbox process is left"

done_testing
