#!/bin/bash
# docs/harnesses.md says what the tests show: every aisb policy fragment
# it gives passes --check-config (as a users.d file over the shipped
# etc/aisb/aisb.conf); every test file its "What was tested" table names
# exists; the settings that hand a harness's own sandbox to aisb and the
# lines for a mirror behind a TLS-inspecting proxy are there; and the
# versions it names are the ones tests/workloads/60-nested-sandbox.t
# installs.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

command -v python3 >/dev/null || skip_all "python3 is missing"
src=$AISB_SRC
doc=$src/docs/harnesses.md
[ -f "$doc" ] || { fail "docs/harnesses.md exists"; done_testing; exit 1; }
text=$(cat "$doc")

# has LITERAL DESC: the doc holds LITERAL (fixed string; line breaks
# in the doc count as spaces).
has() {
	if printf '%s' "$text" | tr '\n' ' ' | tr -s ' ' | grep -qF -- "$1"; then
		pass "$2"
	else
		fail "$2" "docs/harnesses.md lacks: $1"
	fi
}

# --- the tested table names files that exist
files=$(printf '%s\n' "$text" | sed -n 's/^| \([0-9][0-9]-[a-z-]*\.t\) |.*/\1/p')
ok "the tested table names test files" test -n "$files"
for f in $files; do
	ok "tests/workloads/$f (named in the tested table) exists" \
	    test -f "$src/tests/workloads/$f"
done

# --- nested sandboxes: why, the error, the setting for each harness
has "no further user namespace can be made, on purpose" "says nested user namespaces are blocked on purpose"
has "bwrap: No permissions to create new namespace" "quotes bubblewrap's error"
has 'default_permissions = ":danger-full-access"' "Codex: default_permissions in config.toml"
has "codex --sandbox danger-full-access" "Codex: --sandbox danger-full-access"
has '{ "sandbox": { "enabled": false } }' "Claude Code: sandbox.enabled false in settings.json"
has "/etc/claude-code/managed-settings.json" "Claude Code: the managed settings file"
has "inside aisb, do not wrap" "srt: do not wrap"
has "enableWeakerNestedSandbox" "srt: its Docker setting does not help"
# The versions named are the ones the test installs.
t=$src/tests/workloads/60-nested-sandbox.t
for v in CODEX SRT; do
	pin=$(sed -n "s/^$v=.*@\([0-9.]*\)$/\1/p" "$t")
	ok "$v version pinned in 60-nested-sandbox.t ($pin)" test -n "$pin"
	[ -n "$pin" ] && has " $pin" "... and docs/harnesses.md names $pin"
done

# --- a mirror behind a TLS-inspecting proxy
has "allow_cidr += {" "mirror: network.allow_cidr for a special-purpose range"
has "rule=special-address" "mirror: the gate's record for it"
has "NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" "Node: NODE_EXTRA_CA_CERTS (it ignores the system store)"
has "Node trusts only its own roots" "... and says why"
has "NPM_CONFIG_CAFILE=" "npm: its cafile"
has "PIP_CERT=/etc/ssl/certs/ca-certificates.crt" "pip: PIP_CERT"
has "GIT_SSL_CAINFO=/etc/ssl/certs/ca-certificates.crt" "git: GIT_SSL_CAINFO"
has "update-ca-certificates" "the host's system store"

# --- every policy fragment is valid
require_root	# the policy directory must be root's (trust checks)
[ -x "$AISB_SHELL" ] || { skip "policy fragments" "$AISB_SHELL is not built"; done_testing; exit; }
# Not under /tmp: the trust checks refuse world-writable parents.
dir=$(mktemp -d -p /run aisb-tharn-XXXXXX)
at_exit "rm -rf '$dir'"
chmod 0755 "$dir"
python3 - "$doc" "$dir" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
blocks, cur = [], []
for l in lines + [""]:
    if l.startswith("    ") and l.strip():
        cur.append(l[4:])
    else:
        if cur:
            blocks.append("\n".join(cur))
        cur = []
# Policy: opens a section or sets a key; not shell, JSON or TOML.
policy = re.compile(r'^\s*([a-z_]+\s*\{|credential\s+\w+\s*\{)', re.M)
other = re.compile(r'^\s*(\$ |[a-z-]+ --|install |echo |useradd|chgrp|\(|#!|\[|\{ ")|config\.toml|^[a-z_]+ = "', re.M)
n = 0
for b in blocks:
    if policy.search(b) and not other.search(b):
        n += 1
        open("%s/frag-%02d.conf" % (sys.argv[2], n), "w").write(b + "\n")
PY
m=$(find "$dir" -maxdepth 1 -name 'frag-*.conf' | wc -l)
ok "docs/harnesses.md has policy fragments ($m)" test "$m" -ge 8
for f in "$dir"/frag-*.conf; do
	[ -f "$f" ] || continue
	d=$(mktemp -d -p "$dir")
	chmod 0755 "$d"
	mkdir -m 0755 "$d/users.d"
	cp "$src/etc/aisb/aisb.conf" "$d/aisb.conf"
	cp "$f" "$d/users.d/root.conf"
	chmod 0644 "$d/aisb.conf" "$d/users.d/root.conf"
	out=$("$AISB_SHELL" --config "$d/aisb.conf" --check-config 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "harnesses.md fragment ${f##*frag-} passes --check-config"
	else
		fail "harnesses.md fragment ${f##*frag-} passes --check-config" \
		    "exit $rc" "$out" "--- the fragment:" "$(cat "$f")"
	fi
done
done_testing
