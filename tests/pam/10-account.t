#!/bin/bash
# pam_aisb account phase with the real pamtester: an agent is allowed only
# on the services in pam.services and only with aisb-shell as login shell;
# every other user is left to the rest of the stack (PAM_IGNORE).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
pam_require

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
mkdir "$T/users.d"
# pam.services names test services: matching uses PAM_SERVICE, and these
# names stand for sshd/su (allowed) and cron/sudo (refused) without
# touching the host's /etc/pam.d/sshd or cron.
cat > "$T/aisb.conf" <<CONF
agents = {"tpam1", "@tpamg"}
home { path = "$T/home/%u" }
pam { services = {"aisbt-pam-sshd", "aisbt-pam-su"} }
CONF

pam_group tpamg
tu_user tpam1 && usermod -s "$AISB_SHELL" tpam1
tu_user tpam2                                   # not an agent, /bin/bash
tu_user tpam3 && usermod -s "$AISB_SHELL" -G tpamg tpam3   # agent by @group
tu_user tpam4 && usermod -G tpamg tpam4         # agent, shell /bin/bash

for s in sshd su cron sudo; do
	pam_service "aisbt-pam-$s" "account required $PAM_SO conf=$T/aisb.conf"
done
# The same module followed by pam_permit: PAM_IGNORE leaves the answer to it.
pam_service aisbt-pam-sshd-permit \
	"account required $PAM_SO conf=$T/aisb.conf" "account required pam_permit.so"
pam_service aisbt-pam-sshd-deny \
	"account required $PAM_SO conf=$T/aisb.conf" "account required pam_deny.so"
cat > "$T/other.conf" <<CONF
agents = {"tpam1"}
pam { services = {"aisbt-pam-sshd-permit"} }
CONF

acct() { pamtester "$1" "$2" acct_mgmt >/dev/null 2>&1; }
# (tap.sh's ok cannot invert with "!": not a command)
noacct() { ! acct "$@"; }

# Agents on their allowed services: PAM_SUCCESS from the module alone
# (a stack of only PAM_IGNORE fails, so this proves an explicit yes).
ok "agent allowed on the sshd service" acct aisbt-pam-sshd tpam1
ok "agent allowed on the su service" acct aisbt-pam-su tpam1
ok "@group agent allowed on the sshd service" acct aisbt-pam-sshd tpam3

# The ways in that skip the login shell.
ok "agent refused on the cron service" noacct aisbt-pam-cron tpam1
ok "agent refused on the sudo service" noacct aisbt-pam-sudo tpam1
ok "@group agent refused on the cron service" noacct aisbt-pam-cron tpam3
ok "agent refused with a trailing pam_permit too" noacct aisbt-pam-sshd-permit tpam1

# The login shell.
ok "agent with /bin/bash as login shell refused" noacct aisbt-pam-sshd tpam4
mkdir -p "$T/own" && cp "$AISB_SHELL" "$T/own/aisb-shell" && chown tpam3 "$T/own/aisb-shell"
usermod -s "$T/own/aisb-shell" tpam3
ok "agent whose aisb-shell it owns itself refused" noacct aisbt-pam-sshd tpam3
chown root "$T/own/aisb-shell"; chmod 0755 "$T/own" "$T/own/aisb-shell"
ok "the same copy owned by root is accepted" acct aisbt-pam-sshd tpam3
ln -s "$AISB_SHELL" "$T/own/bash" && usermod -s "$T/own/bash" tpam3
ok "a link to aisb-shell under another name refused" noacct aisbt-pam-sshd tpam3
usermod -s "$AISB_SHELL" tpam3

# Not an agent: PAM_IGNORE, whatever the service.
ok "non-agent: module alone is no answer (PAM_IGNORE)" noacct aisbt-pam-sshd tpam2
ok "non-agent: ignored, pam_permit decides" acct aisbt-pam-sshd-permit tpam2
ok "non-agent: ignored, pam_deny decides" noacct aisbt-pam-sshd-deny tpam2
ok "non-agent on cron: ignored" noacct aisbt-pam-cron tpam2
ok "unknown user: ignored" acct aisbt-pam-sshd-permit tpam-nosuchuser

# conf=PATH is honoured (another file, another services list).
pam_service aisbt-pam-other "account required $PAM_SO conf=$T/other.conf"
ok "conf=PATH: agent refused on a service the other file does not list" \
	noacct aisbt-pam-other tpam1

# A broken policy: agents refused, everyone else left alone.
cp "$T/aisb.conf" "$T/good.conf"
echo 'no_such_key = 1' >> "$T/aisb.conf"
ok "broken policy: aisb-shell account refused" noacct aisbt-pam-sshd tpam1
ok "broken policy: non-agent still ignored" acct aisbt-pam-sshd-permit tpam2
cp "$T/good.conf" "$T/aisb.conf"
chmod 0666 "$T/aisb.conf"
ok "group/other-writable policy: agent refused" noacct aisbt-pam-sshd tpam1
chmod 0644 "$T/aisb.conf"
ok "fixed policy: agent allowed again" acct aisbt-pam-sshd tpam1

# The refusal says why, in syslog (a private /dev/log).
log=$T/syslog
logged "$log" pamtester aisbt-pam-cron tpam1 acct_mgmt >/dev/null 2>&1
like "$(cat "$log")" "refusing agent 'tpam1' on service 'aisbt-pam-cron': not in pam.services" \
	"syslog says which service was refused"
logged "$log" pamtester aisbt-pam-sshd tpam4 acct_mgmt >/dev/null 2>&1
like "$(cat "$log")" "refusing agent 'tpam4' .*login shell is not aisb-shell: '/bin/bash'" \
	"syslog says the login shell is wrong"

# Only the entry points are exported.
syms=$(nm -D --defined-only "$PAM_SO" | awk '{print $3}' | sort | tr '\n' ' ')
is "$syms" "pam_sm_acct_mgmt pam_sm_close_session pam_sm_open_session " \
	"the module exports only its pam_sm_* entry points"

done_testing
