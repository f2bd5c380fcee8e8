#!/bin/bash
# Privilege inside a session: no capability in any set, no_new_privs,
# a seccomp filter, no inherited descriptor, setuid and file-capability
# binaries powerless, PID 1 out of reach of ptrace and /proc; each
# attack next to the legitimate action that must still work.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" lck --helpers
exec </dev/null
sess_require
u=tlck2
sess_user "$u"
proj=$SESS_TOP/$u/project
suid=$SESS_TOP/suid
rm -rf "$suid"
install -d -m 0755 -o root -g root "$suid"
at_exit "rm -rf '$suid'"
conf=$(sess_conf priv "filesystem { readonly = {\"$suid\"} }")
r() { sess "$u" "$conf" -c "$1" 2>&1; }

# Capabilities, no_new_privs, seccomp, as the kernel reports them.
out=$(r 'grep -E "^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs|Seccomp):" /proc/self/status')
for c in CapInh CapPrm CapEff CapBnd CapAmb; do
	like "$out" "$c:[[:space:]]+0000000000000000" "inside: $c is zero"
done
like "$out" "NoNewPrivs:[[:space:]]+1" "inside: NoNewPrivs is 1"
like "$out" "Seccomp:[[:space:]]+2" "inside: Seccomp is 2 (filter mode)"
out=$(r 'grep -E "^Cap(Eff|Bnd):" /proc/1/status')
like "$out" "CapBnd:[[:space:]]+0000000000000000" "inside: init's bounding set is empty too"
like "$out" "CapEff:[[:space:]]+0000000000000000" "inside: init's effective set is empty"
# The twin: the same read on the host shows a full bounding set.
like "$(as "$u" grep CapBnd /proc/self/status)" "CapBnd:[[:space:]]+0*[1-9a-f]" \
    "host: the same user's bounding set is not empty (the drop is the sandbox's)"
# The same through libcap's tool, against the bounding set (the host
# user has it full; a permitted set would be empty outside too).  capsh
# lives in /usr/sbin, off the session's PATH.
capsh=$(command -v capsh)
if [ -n "$capsh" ]; then
	is "$(as "$u" "$capsh" --has-b=cap_sys_admin 2>&1; echo "rc=$?")" "rc=0" \
	    "host twin: capsh finds cap_sys_admin in the same user's bounding set"
	is "$(r "$capsh --has-b=cap_sys_admin; echo rc=\$?")" \
	    "$(printf 'cap[cap_sys_admin] not in bounding vector\nrc=1')" \
	    "inside: capsh finds cap_sys_admin dropped from the bounding set"
else
	skip "host twin: capsh finds cap_sys_admin in the bounding set" "capsh not installed (libcap2-bin)"
	skip "inside: capsh finds cap_sys_admin dropped from the bounding set" "capsh not installed (libcap2-bin)"
fi

# Descriptors of the caller: a file, a directory (fchdir out of any
# chroot) and a pipe; none reaches the inner command.
out=$(as "$u" bash -c "exec 7</etc/hostname 8</ 9< <(sleep 5); \"$AISB_SHELL\" --config '$conf' -c 'ls /proc/self/fd | tr \"\n\" \" \"; echo; ls /proc/\$\$/fd >/tmp/fds; tr \"\n\" \" \" </tmp/fds'")
like "$out" "^0 1 2 3 $" "inside: a canary fd of the caller is absent (ls sees 0, 1, 2 and its own)"
like "$out" "^0 1 2 \$" "inside: the shell itself holds only 0, 1, 2 (no file, directory or pipe of the caller)"
# (The shell is looked at with no pipeline of its own running: while it
# sets one up, it briefly holds the pipe's ends.)
like "$(as "$u" bash -c 'exec 7</etc/hostname; ls /proc/self/fd | tr "\n" " "')" "7" \
    "host twin: the canary fd is inherited without the sandbox"

# Setuid-root binaries: in the project, and on a read-only bind.
install -m 4755 -o root -g root "$AISB_HELPERS/aisb-euid" "$proj/euid-suid"
install -m 4755 -o root -g root "$AISB_HELPERS/aisb-euid" "$suid/euid-suid"
uid=$(id -u "$u")
like "$(as "$u" "$proj/euid-suid")" "^$uid 0 " "host twin: the setuid copy gives euid 0 outside"
like "$(r '/project/euid-suid')" "^$uid $uid " "inside: a setuid-root binary in the project gains nothing"
like "$(r "$suid/euid-suid")" "^$uid $uid " "inside: a setuid-root binary on a read-only bind gains nothing"
# su is setuid root on disk.  Without a password it fails for this user
# outside as well, so what tells is its euid while it waits for one: 0
# outside, the agent's own inside (no_new_privs).
su_euid='(sleep 5 | su -c id root >/dev/null 2>&1 &)
for i in $(seq 1 50); do p=$(pgrep -U "$(id -u)" -x su) && break; sleep 0.1; done
echo "su-euid=$(ps -o euid= -p "${p:-0}" | tr -d " ")"; kill "$p" 2>/dev/null'
is "$(as "$u" bash -c "$su_euid" 2>&1)" "su-euid=0" "host twin: su runs with euid 0 outside"
is "$(r "$su_euid")" "su-euid=$uid" "inside: su runs with the agent's euid (setuid is powerless)"

# A file-capability binary.
if command -v setcap >/dev/null; then
	cp /bin/cat "$suid/cat-cap"
	setcap cap_dac_read_search+ep "$suid/cat-cap"
	like "$(as "$u" "$suid/cat-cap" /proc/self/status | grep CapEff)" \
	    "CapEff:[[:space:]]+0*[1-9a-f]" "host twin: the file-capability binary gains a capability outside"
	like "$(r "$suid/cat-cap /proc/self/status | grep CapEff")" \
	    "CapEff:[[:space:]]+0000000000000000" "inside: a file-capability binary gains nothing"
else
	skip "file capabilities" "setcap not installed (libcap2-bin)"
fi

# Securebits are locked; prctl cannot loosen anything.
is "$(r '/project/aisb-try prctl_securebits')" "prctl_securebits EPERM Operation not permitted" \
    "inside: prctl(PR_SET_SECUREBITS) fails"

# PID 1: not dumpable, so no ptrace, no memory, no secrets in /proc.
# It runs as the agent's own uid: only that protection (not the uid, as
# with the host's PID 1) refuses what follows.
is "$(r 'awk "/^Uid:/ {print \$2, \$3}" /proc/1/status')" "$uid $uid" \
    "inside: PID 1 runs as the agent's uid (so the refusals below are its protection)"
is "$(r '/project/aisb-try ptrace_init')" "ptrace_init EPERM Operation not permitted" \
    "inside: ptrace(PTRACE_ATTACH) of PID 1 fails"
is "$(r '/project/aisb-try vmread_init')" "vmread_init EPERM Operation not permitted" \
    "inside: process_vm_readv of PID 1 fails"
for f in environ maps mem; do
	out=$(r "head -c 64 /proc/1/$f >/dev/null; echo rc=\$?")
	like "$out" "$RC_FAILED" "inside: /proc/1/$f is unreadable"
done
out=$(r 'ls /proc/1/fd; echo rc=$?')
like "$out" "$RC_FAILED" "inside: /proc/1/fd is unlistable"
like "$(r 'head -c 10 /proc/self/maps >/dev/null && echo own-ok')" "own-ok" \
    "inside, twin: a process reads its own /proc/self/maps"
is "$(r '/project/aisb-try ptrace_child')" "ptrace_child ok" \
    "inside, twin: ptrace of one's own child works"
if command -v strace >/dev/null; then
	like "$(r 'strace -f -e trace=getpid sh -c "exit 0" 2>&1 | tail -1')" "exited with 0" \
	    "inside, twin: strace of a child works (agents debug their programs)"
	# Refused, strace ends at once; attached, it would trace until the
	# timeout and print no error.
	out=$(r 'timeout 10 strace -p 1 -e trace=none -o /dev/null 2>&1; echo rc=$?')
	like "$out" "attach: ptrace\(PTRACE_SEIZE, 1\): Operation not permitted" \
	    "inside: strace -p 1 is refused"
else
	skip "strace" "strace not installed"
fi

# Nested user namespaces: the count in the first-level namespace is
# used up by the inner's own, whatever the seccomp filter says.
out=$(r 'cat /proc/sys/user/max_user_namespaces; unshare -U true 2>&1; echo rc=$?')
like "$out" "$RC_FAILED" "inside: no nested user namespace"
done_testing
