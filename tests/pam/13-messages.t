#!/bin/bash
# What the person logging in is told when pam_aisb refuses (pam_aisb(8),
# docs/admin-guide.md "When a login is refused"): one line through the
# application's conversation, that the account is an aisb agent and the
# administrator's log has the reason, never the reason itself; the log
# line keeps the reason.  With pamtester and with the real su, whose
# stack (/etc/pam.d/su, su-l) is replaced only inside a private mount
# namespace.  The twins: an allowed agent and a non-agent hear nothing.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/lib/syslog.sh
. "$(dirname "$0")/../lib/syslog.sh"
pam_require
command -v python3 >/dev/null || skip_all "python3 missing"

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
cat > "$T/aisb.conf" <<CONF
agents = {"$U1", "$U3"}
home { path = "$T/home/%u" }
pam { services = {"$SP-sshd", "su", "su-l"} }
CONF
chmod 0644 "$T/aisb.conf"
mkdir -m 0755 "$T/home"
tu_user "$U1" && usermod -s "$AISB_SHELL" "$U1"    # agent
tu_user "$U2"                                       # not an agent
tu_user "$U3"                                       # agent, /bin/bash
pam_service "$SP-sshd" "account required $PAM_SO conf=$T/aisb.conf"
pam_service "$SP-cron" "account required $PAM_SO conf=$T/aisb.conf"
LINE="aisb: this account is an aisb agent account: this way in is refused; the reason is in the administrator's log (pam_aisb, authpriv)"

# ---- pamtester --------------------------------------------------------
pt() { pamtester "$1" "$2" "${3:-acct_mgmt}" 2>&1; }
out=$(pt "$SP-cron" "$U1")
like "$out" "$(printf '%s' "$LINE" | sed 's/[][().]/\\&/g')" "pamtester, a service not in pam.services: the one line"
is "$(grep -c '^aisb: ' <<<"$out")" 1 "pamtester: exactly one line"
unlike "$out" "pam.services|$SP-cron" "pamtester: the reason is not told"
out=$(pt "$SP-sshd" "$U3")
like "$out" "this way in is refused" "pamtester, login shell not aisb-shell: the line"
unlike "$out" "login shell|/bin/bash" "pamtester, wrong shell: the reason is not told"
out=$(pt "$SP-sshd" "$U1")
like "$out" "account management done" "twin: an allowed agent passes"
unlike "$out" "aisb:" "twin: an allowed agent hears nothing"
out=$(pt "$SP-cron" "$U2")
unlike "$out" "aisb:" "twin: a non-agent hears nothing"
with_syslog "$T/syslog" pamtester "$SP-cron" "$U1" acct_mgmt >/dev/null 2>&1
like "$(cat "$T/syslog")" "refusing agent '$U1' on service '$SP-cron': not in pam.services" \
    "the reason is in the log"

# ---- the real su --------------------------------------------------------
# A stack of our own at /etc/pam.d/su and su-l, inside the namespace only.
cat > "$T/su.pam" <<PAM
auth sufficient pam_rootok.so
account required $PAM_SO conf=$T/aisb.conf
account required pam_permit.so
session required $PAM_SO conf=$T/aisb.conf
session required pam_permit.so
PAM
chmod 0644 "$T/su.pam"
cat > "$T/su.sh" <<'SH'
#!/bin/bash
# su.sh STACK ARGS...: the real su with STACK as its PAM stack.
stack=$1; shift
mount --bind "$stack" /etc/pam.d/su && mount --bind "$stack" /etc/pam.d/su-l || exit 99
exec su "$@"
SH
chmod 0755 "$T/su.sh"
su_() { unshare -m --propagation private "$T/su.sh" "$T/su.pam" "$@" 2>&1 </dev/null; }

out=$(su_ "$U3" -c 'echo ran')
like "$out" "$(printf '%s' "$LINE" | sed 's/[][().]/\\&/g')" "su, an agent whose shell is not aisb-shell: the one line"
unlike "$out" "^ran$" "su, refused: nothing ran"
like "$out" "su: " "su, refused: su's own line too"
out=$(su_ - "$U3" -c 'echo ran')
like "$out" "this way in is refused" "su -, refused: the line"
out=$(su_ "$U2" -c 'echo twin-ran')
is "$out" "twin-ran" "twin: su to a non-agent: runs, nothing said"

# The session phase: the agent passes the account phase, but its home
# cannot be made (a directory above it is not root's).
install -d -m 0755 -o "$U2" "$T/bad"
sed -i "s#^home .*#home { path = \"$T/bad/%u\" }#" "$T/aisb.conf"
out=$(su_ "$U1" -c 'echo ran')
like "$out" "aisb: this account is an aisb agent account: its session could not be set up; the reason is in the administrator's log" \
    "su, the session phase fails: the line"
unlike "$out" "$T/bad" "su, the session phase fails: the reason is not told"
unlike "$out" "^ran$" "su, the session phase fails: nothing ran"

done_testing
