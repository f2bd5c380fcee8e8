#!/bin/bash
# etc/systemd/aisb-harness@.service: the harness service runs its command
# through aisb-shell -c as the instance user.  There is no systemd here, so
# the unit is parsed, and checked with `systemd-analyze verify` when that
# is installed.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
require_root
UNIT="$AISB_SRC/etc/systemd/aisb-harness@.service"
T=$(pam_tmpdir)
at_exit "rm -rf $T"

# unit_ok FILE: the [Service] section runs ExecStart through aisb-shell -c
# as User=%i, and nothing else starts a process.
unit_ok() {
	awk '
	/^\[/ { sec = $0; next }
	/^[ \t]*(#|$)/ { next }
	sec == "[Service]" && /^User=/ { user = $0 }
	sec == "[Service]" && /^Exec/ {
		split($0, kv, "="); key = kv[1]
		if (key != "ExecStart") other = 1
		sub(/^ExecStart=/, ""); n = split($0, w, /[ \t]+/)
		if (w[1] ~ /(^|\/)aisb-shell$/ && w[2] == "-c") exec_ok++
		else bad = 1
	}
	END { exit !(user == "User=%i" && exec_ok == 1 && !bad && !other) }
	' "$1"
}
ok "shipped unit: ExecStart is aisb-shell -c, User=%i" unit_ok "$UNIT"
sed 's#^ExecStart=.*#ExecStart=/bin/sh -c ${AISB_HARNESS_COMMAND}#' "$UNIT" > "$T/bad1"
if unit_ok "$T/bad1"; then fail "ExecStart=/bin/sh is caught"; else pass "ExecStart=/bin/sh is caught"; fi
sed '/^ExecStart=/a ExecStartPre=/bin/true' "$UNIT" > "$T/bad2"
if unit_ok "$T/bad2"; then fail "an extra ExecStartPre is caught"; else pass "an extra ExecStartPre is caught"; fi
# ns_ok FILE: of the options that restrict namespaces, privileges or
# system calls, the unit sets exactly NoNewPrivileges=yes (each line
# counts: RestrictNamespaces=, PrivateUsers= or SystemCallFilter= would
# forbid what the sandbox is built from).
ns_ok() {
	[ "$(grep -E '^[[:space:]]*(NoNewPrivileges|RestrictNamespaces|PrivateUsers|SystemCallFilter)[[:space:]]*=' "$1")" = \
	    "NoNewPrivileges=yes" ]
}
ok "no option that would forbid the sandbox's namespaces" ns_ok "$UNIT"
sed '/^NoNewPrivileges=/a RestrictNamespaces=yes' "$UNIT" > "$T/bad3"
if ns_ok "$T/bad3"; then fail "an added RestrictNamespaces=yes is caught"; else pass "an added RestrictNamespaces=yes is caught"; fi

if command -v systemd-analyze >/dev/null; then
	tu_user ${U1}
	sed "s#^ExecStart=aisb-shell #ExecStart=$AISB_SHELL #" "$UNIT" > "$T/aisb-harness@${U1}.service"
	out=$(systemd-analyze verify --man=no "$T/aisb-harness@${U1}.service" 2>&1); rc=$?
	is "$rc:$out" "0:" "systemd-analyze verify: clean"
	echo 'Bogus=1' >> "$T/aisb-harness@${U1}.service"
	out=$(systemd-analyze verify --man=no "$T/aisb-harness@${U1}.service" 2>&1)
	like "$out" "Unknown key" "systemd-analyze verify does report a bad key"
else
	skip "systemd-analyze verify: clean" "systemd-analyze not installed"
fi

done_testing
