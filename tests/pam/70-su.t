#!/bin/bash
# su into an agent whose login shell is aisb-shell: `su - agent -c CMD`
# and an interactive `su - agent` both land in the sandbox.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
require_root
command -v tmux >/dev/null || skip_all "tmux not installed"
have_userns || skip_all "no unprivileged user namespaces"

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
cat > "$T/aisb.conf" <<CONF
agents = {"${U1}"}
home { path = "$T/home/%u" }
project { path = "$T/proj/%u" }
network { mode = "none" }
limits { memory = "0"  pids = 0  cpu = "0%" }
CONF
mkdir -p "$T/users.d"
test_shell
tu_user ${U1} && usermod -s "$TEST_SHELL" ${U1}
tu_user ${U2}           # another account: its home must not be visible
install -d -m 0755 "$T/home" "$T/proj"
install -d -o ${U1} -m 0700 "$T/home/${U1}" "$T/proj/${U1}"
sandbox_ready ${U1}

ok "the host has ${U2}'s home" test -d /home/${U2}
out=$(su - ${U1} -c 'cat /proc/1/comm; ls -A /home; id -un' 2>&1)
like "$out" "^aisb" "su - agent -c: PID 1 is aisb's init"
unlike "$out" "${U2}" "su - agent -c: other homes are not visible"
like "$out" "${U1}$" "su - agent -c: runs as the agent"
su - ${U1} -c 'exit 3'
is "$?" 3 "su - agent -c: exit status"
out=$(su ${U1} -c 'cat /proc/1/comm; ls -A /home' 2>&1)
like "$out" "^aisb" "su agent -c (no login): sandboxed too"
unlike "$out" "${U2}" "su agent -c (no login): other homes not visible"

tmux_run su "su - ${U1}; sleep 30"
tmux_wait su '\$ *$|not implemented'
if tmux_screen su | grep -q 'pty not implemented'; then
	skip "interactive su -" "the sandbox's pty relay is not on main yet"
else
	ok "interactive su -: a prompt" tmux_wait su '\$ *$'
	tmux_keys su 'cat /proc/1/comm; ls -A /home' Enter
	ok "interactive su -: inside the sandbox" tmux_wait su '^aisb'
	unlike "$(tmux_screen su)" "${U2}" "interactive su -: other homes not visible"
	tmux_keys su 'sleep 300 &' Enter
	tmux_keys su 'jobs' Enter
	ok "interactive su -: job control" tmux_wait su 'Running +sleep 300'
	tmux_keys su 'exit' Enter
fi

done_testing
