#!/bin/bash
# The doctor's fix hints read as an admin would type them: a group by
# name, never "-g 1006"; "fix:" once per line.  runuser: the doctor says
# what protects it (root only: util-linux refuses other callers and runs
# no PAM account phase for it), and does not send the admin to
# pam-auth-update, which cannot reach it.  The witness: a non-root
# runuser really is refused.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
require_root

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
mkdir "$T/users.d"
cat > "$T/aisb.conf" <<CONF
agents = {"${U1}"}
home { path = "$T/home/%u" }
project { path = "$T/proj/%u" }
CONF
chmod 0644 "$T/aisb.conf"
tu_user ${U1}
tu_user ${U2}
G1=$(id -gn ${U1})

out=$(AISB_SSHD_CONFIG=/dev/null timeout 300 "$AISB_SHELL" --config "$T/aisb.conf" --user ${U1} --doctor 2>&1)
like "$out" "fail: project\[${U1}\]: .*; fix: install -d -o ${U1} -g ${G1} -m 0700 $T/proj/${U1}" \
	"a missing project: the hint names the group (${G1}), not its number"
like "$out" "home\[${U1}\]: .*; fix: install -d -o ${U1} -g ${G1} -m 0700 $T/home/${U1}" \
	"a missing home: the same"
unlike "$out" " -g [0-9]+ " "no hint gives a numeric group"
is "$(printf '%s\n' "$out" | grep -c 'fix:.*fix:')" 0 "no line says fix: twice"
is "$(printf '%s\n' "$out" | grep -ci 'fix: *fix')" 0 "no hint begins with fix"

if [ -f /etc/pam.d/runuser ]; then
	like "$out" "(^|$'\n')ok: pam runuser account: runuser is root-only: util-linux refuses every other caller and runs no PAM account phase" \
		"runuser: ok, and the doctor says what protects it"
	unlike "$(printf '%s\n' "$out" | grep 'pam runuser')" "pam-auth-update" \
		"runuser: no advice to run pam-auth-update (it cannot reach runuser)"
	rout=$(as ${U2} "$(command -v runuser)" -u ${U1} -- id -un 2>&1); rc=$?
	ok "witness: runuser from a non-root caller fails (status $rc)" test "$rc" -ne 0
	like "$rout" "may not be used by non-root users" "... util-linux says it is root-only"
	is "$(runuser -u ${U1} -- id -un 2>&1)" "${U1}" "the twin: root's runuser works (root needs no PAM to be the agent)"
else
	skip "runuser checks" "no /etc/pam.d/runuser here"
fi
# A stack that includes common-account is sent to pam-auth-update; the
# hint for one that does not names its own file.
if [ -f /etc/pam.d/cron ] && grep -q 'common-account' /etc/pam.d/cron &&
    ! grep -rqs pam_aisb /etc/pam.d/common-account; then
	like "$out" "pam cron account: .*; fix: pam-auth-update --enable aisb, or add \"account required pam_aisb.so\" to /etc/pam.d/common-account \(see" \
		"cron (includes common-account): pam-auth-update is the fix"
else
	skip "cron hint" "cron does not include common-account here, or pam_aisb is enabled"
fi
done_testing
