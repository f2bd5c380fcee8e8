#!/bin/bash
# The pam-auth-update profile that the package ships as
# /usr/share/pam-configs/aisb, run for real against a copy of this host's
# PAM configuration (pam-auth-update --root): enabling it adds the
# account and session lines to the common stacks, and the prerm's
# `--package --remove aisb` takes them out again.  The host's own
# /etc/pam.d is never touched.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

command -v pam-auth-update >/dev/null || skip_all "pam-auth-update is missing (libpam-runtime)"
prof=$AISB_SRC/etc/pam.d/pam-configs.aisb
[ -f "$prof" ] || skip_all "etc/pam.d/pam-configs.aisb is not on main yet"
[ -f /etc/pam.d/common-account ] || skip_all "no /etc/pam.d/common-account on this host"
ok "the profile is off by default" grep -qx 'Default: no' "$prof"

root=$(mktemp -d)
at_exit "rm -rf '$root'"
mkdir -p "$root/var/lib/pam" "$root/etc/pam.d" "$root/usr/share/pam-configs"
cp -a /var/lib/pam/. "$root/var/lib/pam/" 2>/dev/null
cp /etc/pam.d/common-* "$root/etc/pam.d/"
cp /usr/share/pam-configs/* "$root/usr/share/pam-configs/"
cp "$prof" "$root/usr/share/pam-configs/aisb"
export DEBIAN_FRONTEND=noninteractive

# Installing the package runs nothing: the profile stays off.
pam-auth-update --root "$root" --package >/dev/null 2>&1
ok "pam-auth-update --package leaves the stacks without pam_aisb" \
    '!' grep -q pam_aisb "$root"/etc/pam.d/common-account "$root"/etc/pam.d/common-session

out=$(pam-auth-update --root "$root" --enable aisb 2>&1)
is "$?" 0 "pam-auth-update --enable aisb"
[ -n "$out" ] && diag "$out"
ok "common-account gets 'account required pam_aisb.so'" \
    grep -Eq '^account[[:space:]]+required[[:space:]]+pam_aisb\.so' "$root/etc/pam.d/common-account"
ok "common-session gets 'session optional pam_aisb.so'" \
    grep -Eq '^session[[:space:]]+optional[[:space:]]+pam_aisb\.so' "$root/etc/pam.d/common-session"
# The account line must come after the primary block (pam_unix), so it
# can only add a refusal, never grant.
acct=$(grep -nE '^account' "$root/etc/pam.d/common-account")
aisb_at=$(grep -n pam_aisb <<<"$acct" | head -n1 | cut -d: -f2)
unix_at=$(grep -n pam_unix <<<"$acct" | head -n1 | cut -d: -f2)
ok "the account line comes after pam_unix" test "${aisb_at:-0}" -gt "${unix_at:-0}"

pam-auth-update --root "$root" --package --remove aisb >/dev/null 2>&1
is "$?" 0 "pam-auth-update --package --remove aisb (the prerm)"
ok "and the lines are gone" \
    '!' grep -q pam_aisb "$root"/etc/pam.d/common-account "$root"/etc/pam.d/common-session
done_testing
