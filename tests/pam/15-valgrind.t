#!/bin/bash
# pam_aisb under valgrind, inside the real pamtester: no invalid reads or
# writes and no definite leaks on any path (allowed, refused, ignored,
# broken policy, session open and close).  The module lives in sshd and su
# for the whole login, so a leak per call adds up.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
pam_require
command -v valgrind >/dev/null || skip_all "valgrind not installed"

T=$(pam_tmpdir)
at_exit "rm -rf $T /run/aisb/${U1}"
mkdir "$T/users.d"
cat > "$T/aisb.conf" <<CONF
agents = {"${U1}"}
home { path = "$T/home/%u" }
pam { services = {"${SP}-vg"} }
CONF
tu_user ${U1} && usermod -s "$AISB_SHELL" ${U1}
tu_user ${U2}
pam_service "${SP}-vg" "account required $PAM_SO conf=$T/aisb.conf debug" \
	"session required $PAM_SO conf=$T/aisb.conf debug"
pam_service "${SP}-vgcron" "account required $PAM_SO conf=$T/aisb.conf"

vg() {	# vg DESC PAMTESTER-ARGS...: clean under valgrind (exit 99 otherwise)
	local desc=$1; shift
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
		--error-exitcode=99 pamtester "$@" >"$T/vg.out" 2>&1
	local rc=$?
	if [ "$rc" = 99 ]; then
		fail "$desc" "$(head -c 2000 "$T/vg.out")"
	else
		pass "$desc"
	fi
}
vg "agent allowed, session opened and closed" "${SP}-vg" ${U1} acct_mgmt open_session close_session
ok "... the session did run (home made)" test -d "$T/home/${U1}"
vg "agent refused on another service" "${SP}-vgcron" ${U1} acct_mgmt
vg "non-agent ignored" "${SP}-vg" ${U2} acct_mgmt open_session close_session
echo 'no_such_key = 1' >> "$T/aisb.conf"
vg "broken policy" "${SP}-vg" ${U1} acct_mgmt open_session

done_testing
