#!/bin/bash
# aisb-shell --doctor: "fail" on a deliberately broken setup (forwarding
# on, internal-sftp, aisb-shell in /etc/shells, wrong login shell, agent
# not in cron.deny) and "ok" on the fixed one (the shipped sshd drop-in).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
require_root
command -v sshd >/dev/null || skip_all "sshd not installed"

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
mkdir "$T/users.d"
cat > "$T/aisb.conf" <<CONF
agents = {"tpam1"}
home { path = "$T/home/%u" }
project { path = "$T/proj/%u" }
CONF
pam_group ai-agents
tu_user tpam1 && usermod -aG ai-agents tpam1
mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey"

cat > "$T/sshd_broken" <<CONF
HostKey $T/hostkey
AllowTcpForwarding yes
X11Forwarding yes
Subsystem sftp internal-sftp
CONF
cat > "$T/sshd_fixed" <<CONF
HostKey $T/hostkey
Include $AISB_SRC/etc/ssh/sshd_config.d/aisb.conf
Subsystem sftp /usr/lib/openssh/sftp-server
CONF

# /etc/shells is global: add one line, and take exactly that line out again.
shells_add() { grep -qxF "$AISB_SHELL" /etc/shells || echo "$AISB_SHELL" >> /etc/shells; }
shells_del() { grep -vxF "$AISB_SHELL" /etc/shells > "$T/shells" && cat "$T/shells" > /etc/shells; }
at_exit shells_del
deny_del() {
	local f
	for f in /etc/cron.deny /etc/at.deny; do
		[ -f "$f" ] || continue
		grep -vx tpam1 "$f" > "$T/deny"; cat "$T/deny" > "$f"
		[ -s "$f" ] || [ ! -f "$T/made-$(basename "$f")" ] || rm -f "$f"
	done
}
at_exit deny_del

doctor() {
	AISB_SSHD_CONFIG=$1 "$AISB_SHELL" --config "$T/aisb.conf" --user tpam1 --doctor 2>&1
}

# Broken.
shells_add
out=$(doctor "$T/sshd_broken"); rc=$?
ok "broken setup: exit status non-zero" test "$rc" -ne 0
like "$out" "^fail: sshd forwarding\[tpam1\]: .*allowtcpforwarding yes.*; fix: .*aisb.conf" \
	"broken: forwarding enabled is a failure, with the fix"
like "$out" "fail: sshd sftp\[tpam1\]: subsystem sftp internal-sftp" \
	"broken: internal-sftp is a failure"
like "$out" "fail: /etc/shells: lists '$AISB_SHELL'; fix: remove" \
	"broken: aisb-shell in /etc/shells is a failure"
like "$out" "fail: login shell\[tpam1\]: '/bin/bash' is not aisb-shell; fix: usermod -s" \
	"broken: a bash login shell is a failure"
like "$out" "fail: cron.deny\[tpam1\]: not in /etc/cron.deny.*; fix: echo tpam1 >> /etc/cron.deny" \
	"broken: agent missing from cron.deny is a failure"
like "$out" "fail: project\[tpam1\]: $T/proj/tpam1 does not exist" \
	"broken: missing project is a failure"
like "$out" "^ok: userns: agent 'tpam1' can create a user namespace" \
	"userns probed as the agent"
like "$out" "^ok: nftables: agent 'tpam1' can build and read back" \
	"nftables probed as the agent in a new netns"
like "$out" "aisb doctor: [0-9]+ ok, [0-9]+ warn, [0-9]+ fail" "summary line"

# Fixed.
shells_del
usermod -s "$AISB_SHELL" tpam1
for f in cron at; do
	[ -f "/etc/$f.deny" ] || { touch "/etc/$f.deny" "$T/made-$f.deny"; }
	echo tpam1 >> "/etc/$f.deny"
done
install -d -o tpam1 -m 0700 "$T/home/tpam1" "$T/proj/tpam1"
out=$(doctor "$T/sshd_fixed")
like "$out" "ok: sshd forwarding\[tpam1\]: forwarding, tunnels and ~/.ssh/rc disabled" \
	"fixed: the shipped drop-in disables forwarding"
like "$out" "ok: sshd sftp\[tpam1\]" "fixed: sftp-server runs through the login shell"
like "$out" "ok: sshd keys\[tpam1\]: authorized keys root-owned \(/etc/ssh/authorized_keys/%u\)" \
	"fixed: keys file root-owned"
like "$out" "ok: /etc/shells" "fixed: /etc/shells"
like "$out" "ok: login shell\[tpam1\]: $AISB_SHELL" "fixed: login shell"
like "$out" "ok: cron.deny\[tpam1\]" "fixed: cron.deny"
like "$out" "ok: at.deny\[tpam1\]" "fixed: at.deny"
like "$out" "ok: policy\[tpam1\]" "fixed: policy loads"
like "$out" "ok: home\[tpam1\]" "fixed: home"
like "$out" "ok: project\[tpam1\]" "fixed: project"
# Only the host's PAM stacks (not ours to change in a test) may still fail.
is "$(printf '%s\n' "$out" | grep '^fail:' | grep -v '^fail: pam ')" "" \
	"fixed: no failure left but the host PAM stacks"

# The same agent outside group ai-agents: the drop-in does not apply.
gpasswd -d tpam1 ai-agents >/dev/null
out=$(doctor "$T/sshd_fixed")
like "$out" "fail: sshd forwarding\[tpam1\]: disableforwarding no" \
	"agent not in ai-agents: forwarding reported open"

# A broken policy is a failure too.
echo 'no_such_key = 1' >> "$T/aisb.conf"
out=$(doctor "$T/sshd_fixed"); rc=$?
like "$out" "fail: policy" "broken policy: failure"
ok "broken policy: exit status non-zero" test "$rc" -ne 0

done_testing
