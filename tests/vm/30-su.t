#!/bin/bash
# `su - agent` from root's terminal, through Debian's su and its PAM
# stack (pam_systemd included): sandboxed, with the same strict limits in
# cgroup v2 as an ssh login, and nothing left when it ends.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

vm_need_setup
users_d_clear
at_exit users_d_clear

# shellcheck disable=SC2016 # expanded inside the sandbox
out=$(cd / && timeout 120 su - "$AGENT" -c 'echo "user=$(id -un) session=$AISB_SESSION";
	cat /project/canary; cat /etc/shadow >/dev/null 2>&1 && echo shadow-readable; echo su-done' 2>&1)
rc=$?
is "$rc" 0 "su - agent -c CMD exits 0"
[ $rc -eq 0 ] || diag "$out"
like "$out" 'user=agent session=[0-9a-f]+' "inside: the agent, in an aisb session"
like "$out" 'from the host' "inside: the project"
unlike "$out" 'shadow-readable' "inside: /etc/shadow unreadable"

(cd / && exec timeout 120 su - "$AGENT" -c 'exec sleep 61' >/dev/null 2>&1) &
bg=$!
wait_for has_session_cgroup
cg=$(session_cgroup)
ok "the su session has its own cgroup (${cg#/sys/fs/cgroup/})" test -n "$cg"
if [ -n "$cg" ]; then
	is "$(cat "$cg/memory.max")" 4294967296 "limits.memory = 4G: memory.max"
	is "$(cat "$cg/pids.max")" 1024 "limits.pids = 1024: pids.max"
	is "$(cat "$cg/cpu.max")" "200000 100000" "limits.cpu = 200%: cpu.max"
fi
kill "$bg" 2>/dev/null
wait "$bg" 2>/dev/null
wait_gone 30

users_d 'limits {' '	memory = "96M"' '	pids = 48' '}'
out=$(cd / && timeout 120 su - "$AGENT" -c '/project/lim_tool hog 400' 2>&1)
like "$out" 'memory limit reached \(limits.memory = 96M\)' "su: a memory hog is killed at the limit"
out=$(cd / && timeout 120 su - "$AGENT" -c '/project/lim_tool forkbomb 500 3' 2>&1)
n=$(sed -n 's/^forks \([0-9]*\) errno EAGAIN$/\1/p' <<<"$out")
ok "su: a fork bomb stops at limits.pids = 48 (forks: ${n:-none})" test -n "$n" -a "${n:-99}" -lt 48
users_d_clear
wait_gone 30
wait_for no_agent_cgroups
is "$(agent_cgroups)" "" "no cgroup of the su sessions is left"

done_testing
