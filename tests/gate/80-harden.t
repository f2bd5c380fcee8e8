#!/bin/bash
# The gate's own hardening, read from outside: the agent's uid,
# no_new_privs, a seccomp filter, not dumpable (the same uid cannot
# ptrace it or read its memory), an open-files limit, no files open;
# it refuses to run with a policy other than aisb-shell's; and the
# release gate has no switch that turns its seccomp allowlist off.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
gt_setup
gt_gate || skip_all "gate did not start"

st=/proc/$GATE_PID/status
is "$(awk '/^Uid:/ {print $2}' "$st")" "$(id -u "$GT_USER")" "the gate runs as the agent's uid"
is "$(awk '/^NoNewPrivs:/ {print $2}' "$st")" "1" "no_new_privs"
is "$(awk '/^Seccomp:/ {print $2}' "$st")" "2" "a seccomp filter is installed"
is "$(awk '/^CapEff:/ {print $2}' "$st")" "0000000000000000" "no capabilities"
# 8192 (gate/gate.h), or the hard limit it inherited when that is lower.
nofile=8192 hard=$(ulimit -Hn)
[ "$hard" != unlimited ] && [ "$hard" -lt 8192 ] && nofile=$hard
like "$(grep 'Max open files' "/proc/$GATE_PID/limits")" "$nofile +$nofile" "RLIMIT_NOFILE is fixed"
out=$(as "$GT_USER" cat "/proc/$GATE_PID/environ" 2>&1)
like "$out" "Permission denied" "not dumpable: the agent's uid cannot read its memory or environment"
out=$(as "$GT_USER" timeout 2 strace -p "$GATE_PID" -o /dev/null 2>&1)
like "$out" "Operation not permitted" "not dumpable: the agent's uid cannot ptrace it"
# fds 0-2 are inherited from the caller (stdin is /dev/null).
files=$(find "/proc/$GATE_PID/fd" -mindepth 1 -printf '%f %l\n' | awk '$1 > 2 {print $2}' | grep -v -E '^(socket|pipe|anon_inode):' | grep -v -E '^/dev/(null|pts/[0-9]+)$' || true)
is "$files" "" "no files open above fd 2: only sockets, pipes and the event loop"

# The twin of the next check: the right hash runs (done above).  A
# policy hash that differs from the session's: exit 78.
rc=$(as "$GT_USER" python3 -c '
import socket, subprocess, sys
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
import os
os.dup2(b.fileno(), 3)
r = subprocess.run([sys.argv[1], "--user", sys.argv[2], "--config", sys.argv[3],
    "--session", "t", "--hash", "0" * 64], pass_fds=(3,), env={},
    stderr=subprocess.DEVNULL)
print(r.returncode)' "$AISB_GATE" "$GT_USER" "$T/aisb.conf")
is "$rc" "78" "a policy hash other than the session's: exit 78"
rc=$(as "$GT_USER" "$AISB_GATE" --user "$GT_USER" --hash x 2>/dev/null; echo $?)
is "$rc" "2" "without the session's fd 3: refuses to start"
ok "the gate is still running" gt_gate_alive

# The gate loads the policy as a session does: users.d next to --config.
gt_gate_stop
install -d -m 0755 "$T/users.d"
printf 'network {\n  allow += {"x.wild.tgat.test:23080"}\n  deny = {}\n}\n' > "$T/users.d/$GT_USER.conf"
printf 'network {\n  allow = {"origin.tgat.test:23080"}\n  allow_cidr = {"127.0.0.2/32"}\n  resolver = "127.0.0.1:23053"\n  deny = {"x.wild.tgat.test"}\n}\n' > "$T/aisb.conf"
gt_gate_or_bail ""
is "$(gcurl http://x.wild.tgat.test:23080/hello)" "hello from origin 127.0.0.2:23080" "users.d/USER.conf next to the file is merged (same hash as the session)"

# No switch in the release gate turns its hardening off: it does not
# know --debug-no-seccomp, by name or in its bytes, and refuses to start
# with it.  The twin: the test build (valgrind, 85-valgrind.t) takes the
# switch and really runs without the allowlist, so the refusal is the
# release build's own and not a broken switch.
out=$(as "$GT_USER" "$AISB_GATE" --debug-no-seccomp --user "$GT_USER" --hash x 2>&1)
like "$out" "unrecognized option '--debug-no-seccomp'" "the release gate does not know --debug-no-seccomp"
out=$(as "$GT_USER" "$AISB_GATE_TEST" --debug-no-seccomp --user "$GT_USER" --hash x 2>&1)
like "$out" "fd 3 is not the session's socket" "the test build takes it (and stops only for want of fd 3)"
if grep -q -a -- --debug-no-seccomp "$AISB_GATE"; then
	fail "the switch's name is nowhere in the release gate"
else
	pass "the switch's name is nowhere in the release gate"
fi
ok "... and is in the test build's" grep -q -a -- --debug-no-seccomp "$AISB_GATE_TEST"
gt_gate_stop
if gt_gate --no-seccomp 2>/dev/null; then
	fail "gatedrv --no-seccomp: the release gate does not start"
	gt_gate_stop
else
	pass "gatedrv --no-seccomp: the release gate does not start"
fi
like "$(cat "$T/gate.log")" "unrecognized option '--debug-no-seccomp'" "... because it refuses the switch"
gt_gate_stop
GT_GATE=$AISB_GATE_TEST gt_gate_or_bail --no-seccomp
is "$(awk '/^Seccomp:/ {print $2}' "/proc/$GATE_PID/status")" "0" "the test build with the switch: no seccomp filter"
is "$(awk '/^NoNewPrivs:/ {print $2}' "/proc/$GATE_PID/status")" "1" "... the rest of the lockdown stays (no_new_privs)"
is "$(gcurl http://origin.tgat.test:23080/hello)" "hello from origin 127.0.0.2:23080" "... and it serves"
done_testing
