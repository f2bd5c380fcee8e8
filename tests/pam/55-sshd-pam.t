#!/bin/bash
# pam_aisb in sshd's real PAM stack: the account phase refuses an agent
# whose login shell is not aisb-shell (sshd denies the login), and the
# session phase runs in the sshd monitor: home made, the session record
# names the peer, the monitor sits in the delegated cgroup, and all of it
# is gone after the disconnect.
#
# sshd's PAM service name is fixed ("sshd"), so this test adds two lines to
# /etc/pam.d/sshd and takes them out again.  They are fail-safe if a crash
# ever left them behind: "[... default=ignore]" controls ignore a missing
# module or config, and they name only this run's $TAP_SCRATCH/aisbt-pam.* policy,
# which lists only the test users.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
pam_require
command -v sshd >/dev/null || skip_all "sshd not installed"
[ -f /etc/pam.d/sshd ] || skip_all "no /etc/pam.d/sshd"

T=$(pam_tmpdir)
at_exit "rm -rf $T /run/aisb/${U1} /run/aisb/${U4}"
mkdir "$T/users.d"
cat > "$T/aisb.conf" <<CONF
agents = {"${U1}", "${U4}"}
home { path = "$T/home/%u" }
CONF
pam_group "$AG"
tu_user ${U1} && usermod -aG "$AG" -s "$AISB_SHELL" ${U1}
tu_user ${U4} && usermod -aG "$AG" ${U4}          # agent, /bin/bash
ssh_key ${U1}
ssh_key ${U4}

# Lines of earlier, crashed runs first, then ours.  Ours go at exit;
# another run's only when its directory is gone (stale).  Runs may
# overlap: every change of the file holds a lock.
pamd_lock() { exec 9>/run/aisbt-pam.pamd.lock && flock 9; }
pamd_unlock() { flock -u 9; exec 9>&-; }
pam_clean() {
	local l d
	pamd_lock
	while read -r l; do
		d=$(printf '%s\n' "$l" | sed -n "s#.*conf=\\($TAP_SCRATCH/aisbt-pam\\.[A-Za-z0-9]*\\)/.*#\\1#p")
		[ -n "$d" ] || continue
		if [ "$d" = "$T" ] || [ ! -d "$d" ]; then
			grep -vxF "$l" /etc/pam.d/sshd > "$T/pam.sshd" &&
				cat "$T/pam.sshd" > /etc/pam.d/sshd
		fi
	done < <(grep "pam_aisb\\.so conf=$TAP_SCRATCH/aisbt-pam\\." /etc/pam.d/sshd)
	pamd_unlock
}
pam_clean
at_exit pam_clean
pamd_lock
cat >> /etc/pam.d/sshd <<PAM
account [success=ok perm_denied=die default=ignore] $PAM_SO conf=$T/aisb.conf
session [success=ok default=ignore] $PAM_SO conf=$T/aisb.conf
PAM
pamd_unlock

# The doctor reads the same stack (following @include).
out=$("$AISB_SHELL" --config "$T/aisb.conf" --user ${U1} --doctor 2>&1)
like "$out" "ok: pam sshd account: pam_aisb refuses" "doctor: sshd account stack has pam_aisb"
like "$out" "ok: pam sshd session" "doctor: sshd session stack has pam_aisb"
like "$out" "fail: pam su account" "doctor: su stack still lacks it"
# (Under the lock: another run's strong line would answer for ours.)
pamd_lock
others=$(grep "pam_aisb\\.so conf=$TAP_SCRATCH/aisbt-pam\\." /etc/pam.d/sshd | grep -vc "conf=$T/")
if [ "$others" -gt 0 ]; then
	skip "doctor: a control that ignores PAM_PERM_DENIED is a failure" \
		"another run's pam_aisb line is in /etc/pam.d/sshd right now"
else
	sed -i "s#^account \[success=ok perm_denied=die default=ignore\] $PAM_SO conf=$T/#account [success=ok default=ignore] $PAM_SO conf=$T/#" /etc/pam.d/sshd
	out=$("$AISB_SHELL" --config "$T/aisb.conf" --user ${U1} --doctor 2>&1)
	like "$out" "fail: pam sshd account: pam_aisb in /etc/pam.d/sshd cannot refuse" \
		"doctor: a control that ignores PAM_PERM_DENIED is a failure"
	sed -i "s#^account \[success=ok default=ignore\] $PAM_SO conf=$T/#account [success=ok perm_denied=die default=ignore] $PAM_SO conf=$T/#" /etc/pam.d/sshd
fi
pamd_unlock

sshd_start || { fail "sshd starts"; cat "$T/sshd.log" >&2; done_testing; exit 1; }

# Account: the agent with bash is refused by sshd itself.
sshc ${U4} -- true 2>"$T/t4.err"
rc=$?
ok "agent with a bash login shell: ssh refused (status $rc)" test "$rc" = 255
like "$(cat "$T/sshd.log")" "Access denied for user ${U4} by PAM account configuration" \
	"sshd: denied in the PAM account phase"

# Session: ssh -N runs no shell, but sshd opens the PAM session.
ok "home missing before the login" test ! -e "$T/home/${U1}"
sshc_bg "$T/n.err" ${U1} -N
cpid=$SSHC_PID
rec=
for _ in $(seq 100); do
	rec=$(find "/run/aisb/${U1}" -maxdepth 1 -name 'session-*' 2>/dev/null | sort | head -1)
	[ -n "$rec" ] && break
	sleep 0.05
done
ok "agent with aisb-shell: logged in, session record written" test -n "$rec"
mon=${rec##*session-}
like "$(cat "$rec" 2>&1)" "rhost=127\.0\.0\.1" "record: the peer address"
like "$(cat "$rec" 2>&1)" "service=sshd" "record: the service"
is "$(stat -c '%U %a' "$T/home/${U1}" 2>&1)" "${U1} 700" "home made by the session, agent-owned 0700"
like "$(cat "/proc/$mon/comm" 2>&1)" "sshd" "the record's pid is the sshd session monitor"
cg=$(sed -n 's/^cgroup=//p' "$rec")
if [ -n "$cg" ]; then
	like "$(cat "/proc/$mon/cgroup")" "aisb/${U1}-" "the monitor is in the agent's delegated cgroup"
else
	skip "the monitor is in the agent's delegated cgroup" "no cgroup delegation on this host"
fi

kill "$cpid"; wait "$cpid" 2>/dev/null
for _ in $(seq 100); do [ -e "$rec" ] || break; sleep 0.05; done
ok "disconnect: the session record is removed" test ! -e "$rec"
if [ -n "$cg" ]; then
	left=$(find /sys/fs/cgroup -maxdepth 4 -type d -path "*/aisb/${cg##*/}" 2>/dev/null)
	is "$left" "" "disconnect: the delegated cgroup is removed"
fi

done_testing
