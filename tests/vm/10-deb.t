#!/bin/bash
# The package on a real Debian 12 host: AppArmor works before, apt
# installs the .deb with the distribution's apparmor, the profile loads
# (aa-status lists it) and `systemctl restart apparmor` still succeeds,
# then the host is set up as docs/admin-guide.md says (steps 2 to 8) and
# `aisb-shell --doctor` is clean on that layout.  What the host had
# before is recorded for tests/vm/90-purge.t.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

vm_installed && skip_all "the package is already installed (one run per boot)"
[ -f "$VM_DEB" ] || skip_all "no package at $VM_DEB"

# --- before: the distribution's AppArmor as it comes -----------------------
aa_profiles() { sort /sys/kernel/security/apparmor/profiles; }
is "$(systemctl is-active apparmor)" active "before: apparmor.service is active"
ok "before: systemctl restart apparmor succeeds" systemctl restart apparmor
# The host's own state, for the purge test to compare with.
snap() {
	(cd / && find etc/pam.d usr/share/pam-configs var/lib/pam etc/ssh \
	    etc/apparmor.d -type f -print0 2>/dev/null | sort -z | xargs -0 sha256sum)
}
snap >"$VM_STATE/before-files"
aa_profiles >"$VM_STATE/before-profiles"
sshd -T >"$VM_STATE/before-sshd" 2>&1
ok "before: the kernel has AppArmor profiles loaded" test -s "$VM_STATE/before-profiles"

# --- install ---------------------------------------------------------------
out=$(apt-get install -y -q --no-install-recommends "$VM_DEB" 2>&1)
rc=$?
is "$rc" 0 "apt-get install ./aisb.deb (offline: its libraries are in the image)"
is "$(grep -Ei 'warning|error|fail' <<<"$out")" "" "the install prints no warning or error"
[ $rc -eq 0 ] || { diag "$out"; done_testing; exit; }

# --- AppArmor with the package ----------------------------------------------
like "$(aa-status 2>&1)" '(^|[[:space:]])aisb-shell([[:space:]]|$)' "aa-status lists the aisb-shell profile"
ok "the shipped profile parses with this apparmor_parser ($(apparmor_parser --version | head -n 1))" \
    apparmor_parser -Q -K /etc/apparmor.d/usr.bin.aisb-shell
ok "after install: systemctl restart apparmor succeeds" systemctl restart apparmor
is "$(systemctl is-active apparmor)" active "after install: apparmor.service is active"
like "$(aa_profiles)" '^aisb-shell ' "after the restart the profile is loaded again"

# --- the guide, steps 2 to 8 ------------------------------------------------
# 2: the group and the agent account
groupadd -f ai-agents
useradd --create-home --groups ai-agents --shell /usr/bin/aisb-shell "$AGENT"
passwd --lock "$AGENT" >/dev/null
# 3: the project directory
install -d -m 0755 /srv/agents "/srv/agents/$AGENT"
install -d -m 0750 -o "$AGENT" -g "$AGENT" "$PROJECT"
echo "from the host" >"$PROJECT/canary"
cp "$AISB_HELPERS/lim_tool" "$PROJECT/lim_tool"
chown -R "$AGENT:" "$PROJECT"
# 4: the policy is the shipped one (agents = {"@ai-agents"}, no egress,
# strict limits); 5: a secret
install -d -m 0755 /etc/aisb/secrets
install -d -m 0750 -o root -g "$AGENT" "/etc/aisb/secrets/$AGENT"
(umask 027; echo 'vm-secret-value' >"/etc/aisb/secrets/$AGENT/anthropic")
chgrp "$AGENT" "/etc/aisb/secrets/$AGENT/anthropic"
users_d
# 6: the sshd drop-in and a root-owned key file
install -m 0644 /usr/share/aisb/sshd_config.d/aisb.conf /etc/ssh/sshd_config.d/aisb.conf
install -d -m 0755 /etc/ssh/authorized_keys
rm -f "$AGENT_KEY" "$AGENT_KEY.pub"
ssh-keygen -q -t ed25519 -N '' -C vm-agent -f "$AGENT_KEY"
install -m 0644 "$AGENT_KEY.pub" "/etc/ssh/authorized_keys/$AGENT"
# and the line of sshd's PAM stack that reads the agent's own
# ~/.pam_environment (the original is kept for tests/vm/90-purge.t)
cp -p /etc/pam.d/sshd "$VM_STATE/pam.d-sshd"
sed -i 's/^\(session.*pam_env\.so.*\) user_readenv=1/\1/' /etc/pam.d/sshd
unlike "$(grep -v '^#' /etc/pam.d/sshd)" 'user_readenv=1' "no pam_env line of sshd reads ~/.pam_environment"
ok "sshd -t accepts the drop-in" sshd -t
ok "systemctl reload ssh" systemctl reload ssh
# 7: pam_aisb in the stacks
ok "pam-auth-update --enable aisb" pam-auth-update --enable aisb
like "$(cat /etc/pam.d/common-account)" 'pam_aisb\.so' "common-account has pam_aisb"
like "$(cat /etc/pam.d/common-session)" 'pam_aisb\.so' "common-session has pam_aisb"
# 8: cron, at, lingering
echo "$AGENT" >>/etc/cron.deny
echo "$AGENT" >>/etc/at.deny
loginctl disable-linger "$AGENT" 2>/dev/null

# 9: the doctor
out=$(aisb-shell --doctor 2>&1)
rc=$?
is "$rc" 0 "aisb-shell --doctor exits 0 on the guide's layout"
unlike "$out" '^fail: ' "no check fails"
like "$out" '^ok: cgroup: cgroup v2' "it sees cgroup v2"
is "$(grep '^ok: kernel: ' <<<"$out")" \
    "ok: kernel: Linux $(uname -r) (5.12 or later); the /etc overlay mounts as agent '$AGENT'" \
    "it checks this kernel ($(uname -r)) and its /etc overlay"
diag "doctor: $(grep -c '^ok: ' <<<"$out") ok, $(grep -c '^warn: ' <<<"$out") warn"
grep '^\(warn\|fail\): ' <<<"$out" | sed 's/^/# /'

touch "$VM_STATE/setup-done"
done_testing
