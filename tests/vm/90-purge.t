#!/bin/bash
# `apt purge aisb` gives the host back: once the administrator's own
# additions that the guide names are gone (the copied sshd drop-in, the
# key directory, the edit of sshd's pam_env line), the PAM stacks,
# pam-auth-update's state, /etc/ssh and sshd's effective configuration,
# /etc/apparmor.d and the kernel's loaded AppArmor profiles are exactly
# what 10-deb.t saw before the install, and apparmor.service still
# restarts.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

vm_installed || skip_all "the package is not installed (tests/vm/10-deb.t installs it)"
[ -f "$VM_STATE/before-files" ] || skip_all "no record of the host before the install"

out=$(apt-get purge -y -q aisb 2>&1)
rc=$?
is "$rc" 0 "apt-get purge aisb"
[ $rc -eq 0 ] || diag "$out"
# dpkg says which directories it kept because others' files are in them
# (users.d holds the administrator's file, as the guide says); anything
# else is a problem.
kept="directory '[^']*' not empty so not removed"
grep -E "$kept" <<<"$out" | sed 's/^/# /'
is "$(grep -Ei 'warning|error|fail' <<<"$out" | grep -vE "$kept")" "" \
    "the purge prints no warning or error (but dpkg's directories kept)"
ok "the package is gone" test -z "$(dpkg-query -W -f='${Status}' aisb 2>/dev/null | grep -v not-installed)"

# The guide: "These stay, because they are yours" -- the administrator
# removes them; the rest must be the host as it was.
rm -f /etc/ssh/sshd_config.d/aisb.conf
# The administrator's own edit of step 6 (user_readenv=1 off sshd's
# pam_env line), undone by hand as the guide leaves it to them.
[ -f "$VM_STATE/pam.d-sshd" ] && cp -p "$VM_STATE/pam.d-sshd" /etc/pam.d/sshd
rm -rf /etc/ssh/authorized_keys /etc/aisb/users.d /etc/aisb/secrets /etc/aisb/harness
rmdir /etc/aisb 2>/dev/null
ok "/etc/aisb is gone with the administrator's files" test ! -e /etc/aisb

snap() {
	(cd / && find etc/pam.d usr/share/pam-configs var/lib/pam etc/ssh \
	    etc/apparmor.d -type f -print0 2>/dev/null | sort -z | xargs -0 sha256sum)
}
d=$(diff "$VM_STATE/before-files" <(snap))
is "$d" "" "PAM, /etc/ssh and /etc/apparmor.d are byte for byte as before the install"
is "$(systemctl reload ssh 2>&1; sshd -T 2>&1 | diff "$VM_STATE/before-sshd" -)" "" \
    "sshd -T is what it was"
ok "systemctl restart apparmor succeeds after the purge" systemctl restart apparmor
is "$(systemctl is-active apparmor)" active "apparmor.service is active"
is "$(sort /sys/kernel/security/apparmor/profiles | diff "$VM_STATE/before-profiles" -)" "" \
    "the kernel's loaded profiles are what they were (aisb-shell unloaded)"
unlike "$(grep -h pam_aisb /etc/pam.d/* 2>/dev/null)" . "no PAM stack names pam_aisb"

done_testing
