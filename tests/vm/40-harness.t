#!/bin/bash
# The harness unit as the guide runs it: `systemctl start
# aisb-harness@agent` on Debian 12's systemd (252, no DelegateSubgroup=)
# runs the command in the sandbox with the same strict limits in cgroup
# v2, below the unit's delegated cgroup; stopping the unit leaves nothing.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

vm_need_setup
unit=aisb-harness@$AGENT.service
cleanup() {
	systemctl stop "$unit"
	systemctl reset-failed "$unit"
	rm -rf /etc/aisb/harness
	rm -f "$PROJECT/harness.out"
}
at_exit cleanup
rm -f "$PROJECT/harness.out"

install -d -m 0755 /etc/aisb/harness
# shellcheck disable=SC2016 # expanded inside the sandbox
echo 'AISB_HARNESS_COMMAND=echo "user=$(id -un) session=$AISB_SESSION" > /project/harness.out; cat /etc/shadow >/dev/null 2>&1 && echo shadow-readable >> /project/harness.out; exec sleep 1005' \
    >"/etc/aisb/harness/$AGENT.env"
chmod 0644 "/etc/aisb/harness/$AGENT.env"
ok "systemctl start $unit" systemctl start "$unit"
wait_for test -s "$PROJECT/harness.out"
out=$(cat "$PROJECT/harness.out" 2>&1)
like "$out" 'user=agent session=[0-9a-f]+' "the harness command ran in an aisb session"
unlike "$out" 'shadow-readable' "inside the sandbox (/etc/shadow unreadable)"
is "$(systemctl is-active "$unit")" active "the unit is active (not 77)"
[ "$(systemctl is-active "$unit")" = active ] ||
	journalctl -u "$unit" --no-pager -n 20 | sed 's/^/# /'

ucg=/sys/fs/cgroup$(systemctl show -p ControlGroup --value "$unit")
cg=$(find "$ucg" -mindepth 1 -maxdepth 1 -type d -name 'session-*' 2>/dev/null | head -n 1)
ok "the session cgroup is below the unit's delegated cgroup (${cg#/sys/fs/cgroup/})" test -n "$cg"
if [ -n "$cg" ]; then
	is "$(cat "$cg/memory.max")" 4294967296 "limits.memory = 4G: memory.max"
	is "$(cat "$cg/pids.max")" 1024 "limits.pids = 1024: pids.max"
	is "$(cat "$cg/cpu.max")" "200000 100000" "limits.cpu = 200%: cpu.max"
	in=$(pgrep -u "$AGENT" -f '^sleep 1005$' | head -n 1)
	is "$(cut -d: -f3 "/proc/$in/cgroup" 2>&1)" "${cg#/sys/fs/cgroup}" "the harness command runs in it"
fi
is "$(cat "$ucg/cgroup.procs" 2>&1)" "" "the unit's own cgroup holds no process (v2: no internal processes)"

ok "systemctl stop $unit" systemctl stop "$unit"
ok "nothing of the agent runs after the stop" wait_gone 10
ok "the unit's cgroup is gone" test ! -d "$ucg"

done_testing
