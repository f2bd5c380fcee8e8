#!/bin/bash
# The gate and the outer from inside a gated session: the gate's
# pid is invisible, cannot be signalled, ptraced or read through /proc;
# its sockets answer only their protocols and survive garbage; prctl
# tricks (PR_SET_MM, ambient capabilities) fail while harmless ones
# (child subreaper) work; and a double-forked, setsid daemon does not
# outlive the session when the outer is killed (the gate neither).
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" esc --helpers
exec </dev/null
sess_require
[ -x "$AISB_GATE" ] || skip_all "aisb-gate not built"
command -v python3 >/dev/null || skip_all "python3 not installed"
u=tesc5
sess_user "$u"
conf=$(sess_conf gate 'network { mode = "gated"  allow = {"allowed.esc.test"}  resolver = "127.0.0.1" }')
r() { sess "$u" "$conf" -c "$1" 2>&1; }
# running PID: alive and not a zombie (this host's PID 1 may reap late).
running() { [ -r "/proc/$1/stat" ] && [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
named() { pgrep -f "$1" >/dev/null; }
# gone_within TENTHS CMD...: CMD fails within TENTHS x 0.1 s.
gone_within() {
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do "$@" || return 0; sleep 0.1; done
	! "$@"
}

# A long session; the gate is the outer's child named aisb-gate.
as "$u" "$AISB_SHELL" --config "$conf" -c 'exec -a esc-gate-session sleep 30' >/dev/null 2>&1 &
for _ in $(seq 1 50); do
	gpid=$(pgrep -u "$u" -x aisb-gate | head -1)
	[ -n "$gpid" ] && pgrep -f '^esc-gate-session' >/dev/null && break
	sleep 0.1
done
outer=$(pgrep -o -u "$u" -f "aisb-shell --config $conf -c exec -a esc-gate-session")
at_exit "[ -n '$outer' ] && kill '$outer' 2>/dev/null"
if ! ok "host: a gated session runs its gate (pid ${gpid:-none})" [ -n "$gpid" ]; then
	:
elif [ -z "$outer" ]; then
	fail "host: found the session's outer aisb-shell"
	gpid=
fi
# Every check below is about this gate: without it they would pass on
# a pid that never existed.
[ -n "$gpid" ] || { done_testing; exit 1; }

out=$(r "ps -eo comm=; ls /proc; kill -9 $gpid; echo kill=\$?; cat /proc/$gpid/environ; echo cat=\$?; /project/aisb-try ptrace_init $gpid; /project/aisb-try vmread_init $gpid")
unlike "$out" "aisb-gate" "inside another gated session: no aisb-gate process is visible"
like "$out" "^kill=1$" "inside: kill -9 of the gate's pid fails"
like "$out" "^cat=1$" "inside: /proc/PID of the gate is absent"
like "$out" "ptrace_init ESRCH" "inside: ptrace of the gate: ESRCH"
like "$out" "vmread_init ESRCH" "inside: process_vm_readv of the gate: ESRCH"
ok "host: the first session's gate survived" running "$gpid"

# The gate's sockets inside: garbage on every one, then a real request.
out=$(r 'python3 -c "
import socket
for port in (3128, 3129, 53):
    try:
        s = socket.create_connection((\"127.0.0.1\", port), timeout=3)
        s.sendall(b\"\\x00\\xff\" * 2000 + b\"\\r\\n\\r\\n\")
        s.settimeout(3)
        try: print(port, repr(s.recv(64)[:12]))
        except OSError as e: print(port, \"err\", e)
    except OSError as e: print(port, \"connect\", e)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(2)
u.sendto(b\"\\xff\" * 600, (\"127.0.0.1\", 53))
try: print(\"udp\", len(u.recv(600)))
except OSError as e: print(\"udp\", e)
"; curl -sS --max-time 5 -o /dev/null -w "code=%{http_code}\n" http://denied.esc.test/')
like "$out" "3128 b'HTTP/1.1 4" "inside: garbage to the proxy gets an HTTP error, nothing else"
like "$out" "code=403" "inside, twin: the same session's proxy still answers a real request (403 for a denied name)"
ok "host: the gate survived garbage on its sockets" running "$gpid"

# prctl: PR_SET_MM needs CAP_SYS_RESOURCE; ambient raise needs the cap
# in the permitted and inheritable sets; a subreaper is harmless.
out=$(r 'python3 -c "
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def p(name, *a):
    r = libc.prctl(*[ctypes.c_ulong(x) for x in a])
    print(name, \"ok\" if r == 0 else os.strerror(ctypes.get_errno()))
p(\"set_mm_start_brk\", 35, 6, 0x10000, 0, 0)
p(\"set_mm_exe_file\", 35, 13, 0, 0, 0)
p(\"cap_ambient_raise_net_admin\", 47, 2, 12, 0, 0)
p(\"cap_ambient_raise_sys_admin\", 47, 2, 21, 0, 0)
p(\"set_child_subreaper\", 36, 1, 0, 0, 0)
p(\"set_dumpable\", 4, 1, 0, 0, 0)
print(\"nnp\", libc.prctl(39, 0, 0, 0, 0))
"')
like "$out" "set_mm_start_brk Operation not permitted" "inside: PR_SET_MM fails"
like "$out" "set_mm_exe_file Operation not permitted|set_mm_exe_file Bad file descriptor" "inside: PR_SET_MM_EXE_FILE fails"
like "$out" "cap_ambient_raise_net_admin Operation not permitted" "inside: PR_CAP_AMBIENT raise of CAP_NET_ADMIN fails"
like "$out" "cap_ambient_raise_sys_admin Operation not permitted" "inside: PR_CAP_AMBIENT raise of CAP_SYS_ADMIN fails"
like "$out" "set_child_subreaper ok" "inside, twin: PR_SET_CHILD_SUBREAPER works (harmless)"
like "$out" "nnp 1" "inside: no_new_privs stays set"

# A double-forked, setsid daemon and the gate, when the outer is killed.
kill -KILL "$outer"
ok "within 1 s of SIGKILL of the outer: the gate is gone" gone_within 10 running "$gpid"
ok "... and the session's process is gone" gone_within 10 named '^esc-gate-session'
as "$u" "$AISB_SHELL" --config "$conf" -c '(setsid bash -c "exec -a esc-daemon sleep 60" </dev/null >/dev/null 2>&1 &) ; sleep 30' >/dev/null 2>&1 &
for _ in $(seq 1 50); do pgrep -f '^esc-daemon' >/dev/null && break; sleep 0.1; done
ok "inside: the double-forked setsid daemon runs" named '^esc-daemon'
outer=$(pgrep -o -u "$u" -f "aisb-shell --config $conf -c \\(setsid")
gpid=$(pgrep -u "$u" -x aisb-gate | head -1)
ok "host: that session's outer and gate are found (${outer:-none}, ${gpid:-none})" \
    eval '[ -n "$outer" ] && [ -n "$gpid" ]'
[ -n "$outer" ] && kill -KILL "$outer"
ok "within 1 s of SIGKILL of the outer: the daemon is gone" gone_within 10 named '^esc-daemon'
ok "... and its gate" eval '[ -n "$gpid" ] && gone_within 10 running "$gpid"'

done_testing
