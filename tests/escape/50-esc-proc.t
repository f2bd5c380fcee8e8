#!/bin/bash
# /proc and /sys from inside: no process of the host or of another
# session is visible, the kernel keyring and sysctls are out of reach,
# sysfs is read-only, and the mount table names no host secret.  Each
# attack has its twin: the session's own processes, sysctls and sysfs
# entries stay readable.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" esc --helpers
exec </dev/null
sess_require
u=tesc1
sess_user "$u"
conf=$(sess_conf proc)
r() { sess "$u" "$conf" -c "$1" 2>&1; }

# A host process with a unique name, running as the agent's own uid.
as "$u" bash -c 'exec -a esc-host-canary sleep 60' </dev/null >/dev/null 2>&1 &
hpid=$!
at_exit "kill $hpid 2>/dev/null"
running() { pgrep -f "$1" >/dev/null; }
for _ in $(seq 1 50); do running '^esc-host-canary' && break; sleep 0.1; done
ok "host: the canary runs" running '^esc-host-canary'
out=$(r 'ps -eo args=; for p in /proc/[0-9]*; do tr "\0" " " < $p/cmdline 2>/dev/null; echo; done')
unlike "$out" "esc-host-canary" "inside: a host process of the same uid is invisible (ps and /proc)"
like "$(r 'exec -a esc-own-canary sleep 5 & ps -eo args=')" "esc-own-canary" \
    "inside, twin: the session's own processes are visible"
is "$(r 'cd /proc && echo [0-9]*')" "1 2" "inside: /proc holds the session's pids only (init and the shell)"

# Two sessions of the same user at once: neither sees the other.
as "$u" "$AISB_SHELL" --config "$conf" -c 'exec -a esc-session-a sleep 30' </dev/null >/dev/null 2>&1 &
apid=$!
at_exit "kill $apid 2>/dev/null"
for _ in $(seq 1 50); do pgrep -f '^esc-session-a' >/dev/null && break; sleep 0.1; done
ok "session A runs its canary" running '^esc-session-a'
inner=$(pgrep -f '^esc-session-a' | head -1)
out=$(r 'ps -eo args=; ls /proc')
unlike "$out" "esc-session-a" "inside session B: session A's process is invisible"
out=$(r "kill -0 $inner 2>&1; echo rc=\$?; cat /proc/$inner/cmdline 2>&1")
like "$out" "^rc=1$" "inside session B: session A's host pid ($inner) cannot be signalled"
ok "session A's canary survived" kill -0 "$inner"
out=$(r "/project/aisb-try ptrace_init $inner; /project/aisb-try vmread_init $inner")
unlike "$out" " ok$" "inside session B: ptrace and process_vm_readv of session A's pid fail"
like "$out" "ptrace_init (ESRCH|EPERM)" "... ptrace: $(echo "$out" | head -1)"
is "$(r '/project/aisb-try ptrace_child')" "ptrace_child ok" "inside, twin: ptrace of an own child works"
# The outer aisb-shell of session A, as seen by the host (not $apid:
# that is the root shell of `as ... &`).
outer=$(pgrep -o -u "$u" -f "aisb-shell --config $conf -c exec -a esc-session-a")
ok "host: found session A's outer aisb-shell (pid ${outer:-none})" [ -n "$outer" ]
out=$(r "/project/aisb-try ptrace_init $outer; /project/aisb-try vmread_init $outer")
unlike "$out" " ok$" "inside: ptrace and process_vm_readv of another session's outer aisb-shell fail"
kill "${outer:-$apid}" 2>/dev/null; wait "$apid" 2>/dev/null

# The kernel keyring: keyctl is denied (10-lck-syscalls); /proc/keys
# shows nothing of the host.
if command -v keyctl >/dev/null; then
	kid=$(as "$u" keyctl add user esc-key-canary esc-secret-value @u 2>/dev/null)
	at_exit "as '$u' keyctl unlink '$kid' @u >/dev/null 2>&1"
	like "$(as "$u" cat /proc/keys)" "esc-key-canary" "host twin: the user's key is in /proc/keys outside"
	out=$(r 'cat /proc/keys; keyctl show @u; keyctl print '"$kid"'; echo rc=$?')
	# The uid's keyring is shared with the host: keyctl(2) is denied and
	# /proc/keys, /proc/key-users are covered (mount.c).
	unlike "$out" "esc-secret-value" "inside: the payload of the user's host key is unreadable"
	unlike "$out" "esc-key-canary" "inside: /proc/keys does not list the host key's description"
	like "$out" "Operation not permitted" "... keyctl answers EPERM"
else
	skip "host twin: the user's key is in /proc/keys outside" "keyctl not installed"
	skip "inside: the payload of the user's host key is unreadable" "keyctl not installed"
	skip "... keyctl answers EPERM" "keyctl not installed"
	skip "inside: /proc/keys does not list the host key's description" "keyctl not installed"
fi

# sysctls: readable, never writable.
for k in kernel/hostname kernel/domainname net/ipv4/ip_forward vm/drop_caches kernel/core_pattern; do
	out=$(r "echo 1 > /proc/sys/$k && echo WROTE; echo rc=\$?")
	unlike "$out" "WROTE" "inside: writing /proc/sys/$k fails"
done
like "$(r 'cat /proc/sys/kernel/ostype')" "^Linux$" "inside, twin: /proc/sys is readable"
out=$(r 'echo 1 > /proc/sysrq-trigger && echo WROTE; cat /proc/kcore >/dev/null && echo READ; echo done')
unlike "$out" "WROTE|READ" "inside: /proc/sysrq-trigger and /proc/kcore are out of reach"

# sysfs: read-only.
out=$(r 'echo 1 > /sys/class/net/lo/mtu && echo WROTE; touch /sys/esc && echo WROTE; echo rc=$?')
unlike "$out" "WROTE" "inside: /sys is not writable"
like "$(r 'cat /sys/class/net/lo/operstate /sys/class/net/lo/mtu')" "65536" "inside, twin: /sys is readable"
is "$(r 'ls /sys/class/net')" "lo" "inside: sysfs shows only the sandbox's network devices"

# /proc/1 is the sandbox's init: its environment holds nothing of the
# caller (and is unreadable: 20-lck-privileges).
out=$(sess "$u" "$conf" -c 'cat /proc/1/environ 2>/dev/null | tr "\0" "\n"; echo end' 2>&1)
unlike "$out" "ESC_SECRET" "inside: init's environment carries no caller secret"

# The mount table: nothing of the real home, /root or /run.
home=$(getent passwd "$u" | cut -d: -f6)
install -d -o "$u" -g "$u" "$home/.ssh"
out=$(r 'cat /proc/self/mountinfo')
unlike "$(echo "$out" | awk '{print $4}')" "^($home|/root|/run)" "inside: mountinfo binds nothing of the real home, /root or /run"
like "$out" " /project " "inside, twin: mountinfo shows the project"

done_testing
