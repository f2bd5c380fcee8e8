#!/bin/bash
# aisb-shell --doctor: "fail" on a deliberately broken setup (forwarding
# on, internal-sftp, aisb-shell in /etc/shells, wrong login shell, agent
# not in cron.deny) and "ok" on the fixed one (the shipped sshd drop-in).
# The network probe applies each agent's real ruleset in a new netns; it
# fails for real on a kernel without nf_tables (tests/helpers/nonft).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
require_root
command -v sshd >/dev/null || skip_all "sshd not installed"

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
mkdir "$T/users.d"
cat > "$T/aisb.conf" <<CONF
agents = {"${U1}"}
home { path = "$T/home/%u" }
project { path = "$T/proj/%u" }
CONF
pam_group "$AG"
tu_user ${U1} && usermod -aG "$AG" ${U1}
mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$T/hostkey"
. "$(dirname "$0")/sshd.sh"	# dropin
dropin >/dev/null

cat > "$T/sshd_broken" <<CONF
HostKey $T/hostkey
AllowTcpForwarding yes
X11Forwarding yes
Subsystem sftp internal-sftp
CONF
cat > "$T/sshd_fixed" <<CONF
HostKey $T/hostkey
Include $T/aisb-dropin.conf
Subsystem sftp /usr/lib/openssh/sftp-server
CONF

# /etc/shells is global: add one line naming this run's path, and take
# exactly that line out again.
SHELLS_LINE=$T/bin/aisb-shell
shells_add() { grep -qxF "$SHELLS_LINE" /etc/shells || echo "$SHELLS_LINE" >> /etc/shells; }
shells_del() { grep -vxF "$SHELLS_LINE" /etc/shells > "$T/shells" && cat "$T/shells" > /etc/shells; }
at_exit shells_del
deny_del() {
	local f
	for f in /etc/cron.deny /etc/at.deny; do
		[ -f "$f" ] || continue
		grep -vx ${U1} "$f" > "$T/deny"; cat "$T/deny" > "$f"
		[ -s "$f" ] || [ ! -f "$T/made-$(basename "$f")" ] || rm -f "$f"
	done
}
at_exit deny_del

doctor() {
	AISB_SSHD_CONFIG=$1 "$AISB_SHELL" --config "$T/aisb.conf" --user ${U1} --doctor 2>&1
}

# Broken.
shells_add
out=$(doctor "$T/sshd_broken"); rc=$?
ok "broken setup: exit status non-zero" test "$rc" -ne 0
like "$out" "^fail: sshd forwarding\[${U1}\]: .*allowtcpforwarding yes.*; fix: .*aisb.conf" \
	"broken: forwarding enabled is a failure, with the fix"
like "$out" "fail: sshd sftp\[${U1}\]: subsystem sftp internal-sftp" \
	"broken: internal-sftp is a failure"
like "$out" "fail: /etc/shells: lists '$SHELLS_LINE'; fix: remove" \
	"broken: aisb-shell in /etc/shells is a failure"
like "$out" "fail: login shell\[${U1}\]: '/bin/bash' is not aisb-shell; fix: usermod -s" \
	"broken: a bash login shell is a failure"
like "$out" "fail: cron.deny\[${U1}\]: not in /etc/cron.deny.*; fix: echo ${U1} >> /etc/cron.deny" \
	"broken: agent missing from cron.deny is a failure"
like "$out" "fail: project\[${U1}\]: $T/proj/${U1} does not exist" \
	"broken: missing project is a failure"
like "$out" "^ok: userns: agent '${U1}' can create a user namespace" \
	"userns probed as the agent"
is "$(grep '^ok: kernel: ' <<<"$out")" \
	"ok: kernel: Linux $(uname -r) (5.12 or later); the /etc overlay mounts as agent '${U1}'" \
	"the kernel minimum checked, the /etc overlay mounted as the agent"
like "$out" "^ok: nftables\[${U1}\]: the gated ruleset applies and reads back as agent '${U1}' in a new network namespace \(table inet aisb; a connect to 198\.18\.0\.1:443 is captured on 127\.0\.0\.1:3129 and SO_ORIGINAL_DST names it\)" \
	"nftables: the agent's gated ruleset applied, read back, capture tried"
like "$out" "aisb doctor: [0-9]+ ok, [0-9]+ warn, [0-9]+ fail" "summary line"

# Fixed.
shells_del
usermod -s "$AISB_SHELL" ${U1}
for f in cron at; do
	[ -f "/etc/$f.deny" ] || { touch "/etc/$f.deny" "$T/made-$f.deny"; }
	echo ${U1} >> "/etc/$f.deny"
done
install -d -o ${U1} -m 0700 "$T/home/${U1}" "$T/proj/${U1}"
out=$(doctor "$T/sshd_fixed")
like "$out" "ok: sshd forwarding\[${U1}\]: forwarding, tunnels and ~/.ssh/rc disabled" \
	"fixed: the shipped drop-in disables forwarding"
like "$out" "ok: sshd sftp\[${U1}\]" "fixed: sftp-server runs through the login shell"
like "$out" "ok: sshd keys\[${U1}\]: authorized keys root-owned \(/etc/ssh/authorized_keys/%u\)" \
	"fixed: keys file root-owned"
unlike "$out" "fail: /etc/shells: lists '$SHELLS_LINE'" "fixed: /etc/shells no longer flagged"
if grep -q '/aisb-shell$' /etc/shells; then
	skip "fixed: ok: /etc/shells" "another run's line is in /etc/shells right now"
else
	like "$out" "ok: /etc/shells" "fixed: ok: /etc/shells"
fi
like "$out" "ok: login shell\[${U1}\]: $AISB_SHELL" "fixed: login shell"
like "$out" "ok: cron.deny\[${U1}\]" "fixed: cron.deny"
like "$out" "ok: at.deny\[${U1}\]" "fixed: at.deny"
like "$out" "ok: policy\[${U1}\]" "fixed: policy loads"
like "$out" "ok: home\[${U1}\]" "fixed: home"
like "$out" "ok: project\[${U1}\]" "fixed: project"
# Only the host's PAM stacks and its syslog daemon (not ours to change in
# a test; tests/pam/12-log-fallback.t checks the syslog line) may still fail.
is "$(printf '%s\n' "$out" | grep '^fail:' | grep -v '^fail: pam ' | grep -v '^fail: syslog: ' |
	grep -v "^fail: /etc/shells: lists '$TAP_SCRATCH/aisbt-pam\.")" "" \
	"fixed: no failure left but the host PAM stacks"

# The same agent outside group ai-agents: the drop-in does not apply.
gpasswd -d ${U1} "$AG" >/dev/null
out=$(doctor "$T/sshd_fixed")
like "$out" "fail: sshd forwarding\[${U1}\]: disableforwarding no" \
	"agent not in ai-agents: forwarding reported open"

# A broken policy is a failure too.
echo 'no_such_key = 1' >> "$T/aisb.conf"
out=$(doctor "$T/sshd_fixed"); rc=$?
like "$out" "fail: policy" "broken policy: failure"
ok "broken policy: exit status non-zero" test "$rc" -ne 0

# The network probe follows each agent's policy: U1 gated with the
# capture (the default), U2 gated without it, U3 network.mode "none".
mkdir -p "$T/net/users.d"
chmod 0755 "$T/net" "$T/net/users.d"
echo "agents = {\"${U1}\", \"${U2}\", \"${U3}\"}" > "$T/net/aisb.conf"
echo 'network { transparent = false }' > "$T/net/users.d/${U2}.conf"
echo 'network { mode = "none" }' > "$T/net/users.d/${U3}.conf"
tu_user ${U2} && tu_user ${U3}
# netdoc CONF [WRAPPER...]: --doctor with $T/net/CONF.conf, run under WRAPPER.
netdoc() {
	local conf=$1
	shift
	AISB_SSHD_CONFIG="$T/sshd_fixed" "$@" "$AISB_SHELL" \
		--config "$T/net/$conf.conf" --doctor 2>&1
}
out=$(netdoc aisb)
like "$out" "^ok: nftables\[${U1}\]: the gated ruleset applies and reads back .*SO_ORIGINAL_DST names it" \
	"net: gated with capture: ruleset and capture verified"
like "$out" "^ok: nftables\[${U2}\]: the gated ruleset applies and reads back as agent '${U2}' .*network\.transparent off" \
	"net: gated without capture: ruleset verified, capture not claimed"
like "$out" "^ok: nftables\[${U3}\]: network\.mode is \"none\": no ruleset needed" \
	"net: mode none: no ruleset needed, said so"
unlike "$out" "^[a-z]*: nftables:" "net: no host-level probe while agents exist"

# No agent account yet: the host probe, with the full gated ruleset.
echo "agents = {\"${U4}\"}" > "$T/net/noagent.conf"
out=$(netdoc noagent)
like "$out" "^ok: nftables: the gated ruleset applies and reads back as uid 65534 .*SO_ORIGINAL_DST names it" \
	"no agent: host probe as uid 65534 with the capture"

# Supplementary groups stay in the sandbox (docs/admin-guide.md): the
# doctor warns about any group but the agent's own and the agents group.
XG=tpam${R}x
pam_group "$XG"
cat > "$T/grp.conf" <<CONF
agents = {"${U1}", "@${AG}"}
home { path = "$T/home/%u" }
project { path = "$T/proj/%u" }
CONF
chmod 0644 "$T/grp.conf"
grpdoc() { AISB_SSHD_CONFIG=$T/sshd_fixed "$AISB_SHELL" --config "$T/grp.conf" --user ${U1} --doctor 2>&1; }
out=$(grpdoc)
like "$out" "^ok: groups\[${U1}\]: no supplementary group but its own and the agents group" \
	"groups: its own group and the agents group only: ok"
usermod -aG "$XG" ${U1}
out=$(grpdoc)
like "$out" "^warn: groups\[${U1}\]: member of ${XG}: the sandbox cannot drop supplementary groups.*; fix: gpasswd -d ${U1} ${XG}" \
	"groups: an agent in an extra group: warned, with the fix"
gpasswd -d ${U1} "$XG" >/dev/null
out=$(grpdoc)
like "$out" "^ok: groups\[${U1}\]" "groups: out of it again: ok"

# A kernel without nf_tables (socket(AF_NETLINK, NETLINK_NETFILTER)
# answers EPROTONOSUPPORT there; nonft makes it answer that here, by
# seccomp): the gated agents fail with the fix; the "none" agent, which
# needs no ruleset, still passes.  Nothing in aisb-shell is told about it.
NONFT=$BUILD/tests/helpers/nonft
if ! "$NONFT" true; then
	for t in "exit status" "gated agent" "gated agent without capture" \
	    "mode none" "one line per agent" "host probe"; do
		skip "no nf_tables: $t" "nonft cannot install its seccomp filter"
	done
	done_testing
	exit
fi
out=$(netdoc aisb "$NONFT"); rc=$?
ok "no nf_tables: exit status non-zero" test "$rc" -ne 0
like "$out" "^fail: nftables\[${U1}\]: agent '${U1}' cannot set up a gated session's network in a new network namespace: nftables: netlink socket: Protocol not supported; fix: load nftables" \
	"no nf_tables: gated agent fails, one line with the fix"
like "$out" "^fail: nftables\[${U2}\]: .*Protocol not supported; fix: " \
	"no nf_tables: gated agent without capture fails too"
like "$out" "^ok: nftables\[${U3}\]: network\.mode is \"none\"" \
	"no nf_tables: mode none still passes"
is "$(printf '%s\n' "$out" | grep -c '^fail: nftables')" 2 \
	"no nf_tables: exactly one line per gated agent"
out=$(netdoc noagent "$NONFT")
like "$out" "^fail: nftables: uid 65534 cannot set up a gated session's network.*; fix: " \
	"no agent, no nf_tables: host probe fails"

done_testing
