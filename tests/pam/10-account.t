#!/bin/bash
# pam_aisb account phase with the real pamtester: an agent is allowed only
# on the services in pam.services and only with aisb-shell as login shell;
# every other user is left to the rest of the stack (PAM_IGNORE).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/lib/syslog.sh
. "$(dirname "$0")/../lib/syslog.sh"
pam_require

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
mkdir "$T/users.d"
# pam.services names test services: matching uses PAM_SERVICE, and these
# names stand for sshd/su (allowed) and cron/sudo (refused) without
# touching the host's /etc/pam.d/sshd or cron.
cat > "$T/aisb.conf" <<CONF
agents = {"${U1}", "@${UG}"}
home { path = "$T/home/%u" }
pam { services = {"${SP}-sshd", "${SP}-su"} }
CONF

pam_group ${UG}
tu_user ${U1} && usermod -s "$AISB_SHELL" ${U1}
tu_user ${U2}                                   # not an agent, /bin/bash
tu_user ${U3} && usermod -s "$AISB_SHELL" -G ${UG} ${U3}   # agent by @group
tu_user ${U4} && usermod -G ${UG} ${U4}         # agent, shell /bin/bash

for s in sshd su cron sudo; do
	pam_service "${SP}-$s" "account required $PAM_SO conf=$T/aisb.conf"
done
# The same module followed by pam_permit: PAM_IGNORE leaves the answer to it.
pam_service ${SP}-sshd-permit \
	"account required $PAM_SO conf=$T/aisb.conf" "account required pam_permit.so"
pam_service ${SP}-sshd-deny \
	"account required $PAM_SO conf=$T/aisb.conf" "account required pam_deny.so"
cat > "$T/other.conf" <<CONF
agents = {"${U1}"}
pam { services = {"${SP}-sshd-permit"} }
CONF

acct() { pamtester "$1" "$2" acct_mgmt >/dev/null 2>&1; }
# (tap.sh's ok cannot invert with "!": not a command)
noacct() { ! acct "$@"; }

# Agents on their allowed services: PAM_SUCCESS from the module alone
# (a stack of only PAM_IGNORE fails, so this proves an explicit yes).
ok "agent allowed on the sshd service" acct ${SP}-sshd ${U1}
ok "agent allowed on the su service" acct ${SP}-su ${U1}
ok "@group agent allowed on the sshd service" acct ${SP}-sshd ${U3}

# The ways in that skip the login shell.
ok "agent refused on the cron service" noacct ${SP}-cron ${U1}
ok "agent refused on the sudo service" noacct ${SP}-sudo ${U1}
ok "@group agent refused on the cron service" noacct ${SP}-cron ${U3}
ok "agent refused with a trailing pam_permit too" noacct ${SP}-sshd-permit ${U1}

# The login shell.
ok "agent with /bin/bash as login shell refused" noacct ${SP}-sshd ${U4}
# A copy in the installed layout: bin/aisb-shell (the entry point) runs
# libexec/aisb/aisb-shell-main beside it.
mkdir -p "$T/own/bin" "$T/own/libexec/aisb"
cp "$AISB_SHELL" "$T/own/bin/aisb-shell" && chown ${U3} "$T/own/bin/aisb-shell"
cp "$BUILD/libexec/aisb/aisb-shell-main" "$T/own/libexec/aisb/"
usermod -s "$T/own/bin/aisb-shell" ${U3}
ok "agent whose aisb-shell it owns itself refused" noacct ${SP}-sshd ${U3}
chown root "$T/own/bin/aisb-shell"
chmod 0755 "$T/own" "$T/own/bin" "$T/own/libexec" "$T/own/libexec/aisb" "$T/own/bin/aisb-shell"
ok "the same copy owned by root is accepted" acct ${SP}-sshd ${U3}
chown ${U3} "$T/own/libexec/aisb/aisb-shell-main"
ok "agent who owns the aisb-shell-main it runs refused" noacct ${SP}-sshd ${U3}
chown root "$T/own/libexec/aisb/aisb-shell-main"
rm "$T/own/libexec/aisb/aisb-shell-main"
ok "an aisb-shell with no aisb-shell-main beside it refused" noacct ${SP}-sshd ${U3}
ln -s "$AISB_SHELL" "$T/own/bash" && usermod -s "$T/own/bash" ${U3}
ok "a link to aisb-shell under another name refused" noacct ${SP}-sshd ${U3}
usermod -s "$AISB_SHELL" ${U3}

# Not an agent: PAM_IGNORE, whatever the service.
ok "non-agent: module alone is no answer (PAM_IGNORE)" noacct ${SP}-sshd ${U2}
ok "non-agent: ignored, pam_permit decides" acct ${SP}-sshd-permit ${U2}
ok "non-agent: ignored, pam_deny decides" noacct ${SP}-sshd-deny ${U2}
ok "non-agent on cron: ignored" noacct ${SP}-cron ${U2}
ok "unknown user: ignored" acct ${SP}-sshd-permit tpam-nosuchuser

# conf=PATH is honoured (another file, another services list).
pam_service ${SP}-other "account required $PAM_SO conf=$T/other.conf"
ok "conf=PATH: agent refused on a service the other file does not list" \
	noacct ${SP}-other ${U1}

# conf= that is not an absolute path names no file: the default file
# must not be read in its place.  The agent is refused, and the log says
# it was for the argument (the default file, if it loads, would allow
# it: the control right after shows that).
pam_service ${SP}-su "account required $PAM_SO conf=aisb.conf"
log=$T/syslog-relconf
with_syslog "$log" pamtester ${SP}-su ${U1} acct_mgmt >/dev/null 2>&1 && relrc=0 || relrc=$?
ok "conf=relative: the agent is refused" test "$relrc" != 0
like "$(cat "$log")" "conf=aisb.conf is not an absolute path, so no policy is read; '${U1}' has aisb-shell as login shell, so it is refused" \
	"conf=relative: the log names the argument"
pam_service ${SP}-su "account required $PAM_SO conf=aisb.conf" "account required pam_permit.so"
ok "conf=relative: a non-agent is left alone (pam_permit decides)" acct ${SP}-su ${U2}
pam_service ${SP}-su "account required $PAM_SO conf=$T/aisb.conf"
ok "the twin, conf=ABSOLUTE on the same service: the agent is allowed" acct ${SP}-su ${U1}

# A broken policy: agents refused, everyone else left alone.
cp "$T/aisb.conf" "$T/good.conf"
echo 'no_such_key = 1' >> "$T/aisb.conf"
ok "broken policy: aisb-shell account refused" noacct ${SP}-sshd ${U1}
ok "broken policy: non-agent still ignored" acct ${SP}-sshd-permit ${U2}
cp "$T/good.conf" "$T/aisb.conf"
chmod 0666 "$T/aisb.conf"
ok "group/other-writable policy: agent refused" noacct ${SP}-sshd ${U1}
chmod 0644 "$T/aisb.conf"
ok "fixed policy: agent allowed again" acct ${SP}-sshd ${U1}

# The refusal says why, in syslog (a private /dev/log).
log=$T/syslog
with_syslog "$log" pamtester ${SP}-cron ${U1} acct_mgmt >/dev/null 2>&1
like "$(cat "$log")" "refusing agent '${U1}' on service '${SP}-cron': not in pam.services" \
	"syslog says which service was refused"
with_syslog "$log" pamtester ${SP}-sshd ${U4} acct_mgmt >/dev/null 2>&1
like "$(cat "$log")" "refusing agent '${U4}' .*login shell is not aisb-shell: '/bin/bash'" \
	"syslog says the login shell is wrong"

# Only the entry points are exported.
syms=$(nm -D --defined-only "$PAM_SO" | awk '{print $3}' | sort | tr '\n' ' ')
is "$syms" "pam_sm_acct_mgmt pam_sm_close_session pam_sm_open_session " \
	"the module exports only its pam_sm_* entry points"

done_testing
