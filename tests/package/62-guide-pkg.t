#!/bin/bash
# docs/admin-guide.md and the packaging agree: the guide's one-line
# install of the build dependencies names every Build-Depends of
# packaging/debian/control; every docs/*.md the guide links ships in
# the .deb (aisb.docs) and the RPM (%doc); openssh-server, which step 6
# needs, is Recommended and the guide says so; the purge section names
# what stays and the postrm removes the cgroups aisb made.  Also the
# shipped aisb.conf and aisb.conf(5) say the same of a secret's file.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

src=$AISB_SRC
guide=$src/docs/admin-guide.md
control=$src/packaging/debian/control
spec=$src/packaging/rpm/aisb.spec
{ [ -f "$guide" ] && [ -f "$control" ]; } || skip_all "no guide or no debian/control"

# --- the build dependencies ---------------------------------------------
# Build-Depends, one name per line (versions and alternatives dropped;
# debhelper-compat is a virtual package that debhelper provides).
deps=$(python3 - "$control" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^Build-Depends:(.*?)(?=^\S)", text, re.M | re.S)
for d in m.group(1).split(","):
    d = d.strip().split("|")[0].strip()
    d = re.sub(r"\s*[(\[<].*", "", d)
    if d:
        print("debhelper" if d == "debhelper-compat" else d)
PY
)
n=$(printf '%s\n' "$deps" | grep -c .)
ok "debian/control has Build-Depends ($n)" test "$n" -ge 5
line=$(grep -E '^    apt-get install .*debhelper' "$guide" | head -n 1)
ok "the guide gives one apt-get install line for the build" test -n "$line"
missing=
for d in $deps dpkg-dev; do
	printf '%s\n' "$line" | tr ' ' '\n' | grep -qxF "$d" || missing="$missing $d"
done
is "$missing" "" "that line names every Build-Depends (and dpkg-dev)"

# --- the docs the guide links -------------------------------------------
links=$(grep -oE '\]\([a-z0-9_-]+\.md(#[^)]*)?\)' "$guide" | sed -E 's/^\]\(//; s/(#.*)?\)$//' | sort -u)
ok "the guide links docs ($(printf '%s\n' "$links" | grep -c .))" test -n "$links"
for f in $links; do
	ok "docs/$f (linked from the guide) exists" test -f "$src/docs/$f"
	ok "docs/$f ships in the .deb (packaging/debian/aisb.docs)" \
	    grep -qxF "docs/$f" "$src/packaging/debian/aisb.docs"
	ok "docs/$f ships in the RPM (%doc)" \
	    grep -qE "^%doc .*docs/$f( |\$)" "$spec"
done

# --- openssh-server -----------------------------------------------------
ok "debian/control Recommends openssh-server" grep -qE '^Recommends:.*\bopenssh-server\b' "$control"
ok "the RPM Recommends openssh-server" grep -qE '^Recommends: +openssh-server' "$spec"
ok "the guide says the package Recommends openssh-server" \
    grep -q 'Recommends `openssh-server`' "$guide"

# --- purge ---------------------------------------------------------------
purge=$(sed -n '/^## Removing aisb/,/^## /p' "$guide")
like "$purge" '/etc/ssh/authorized_keys' "the guide's purge section says what happens to /etc/ssh/authorized_keys"
like "$purge" 'cgroup' "... and to the cgroups aisb made"
ok "the postrm removes each hierarchy's aisb cgroup on purge" \
    grep -qF '/sys/fs/cgroup/*/aisb' "$src/packaging/debian/aisb.postrm"
ok "so does the RPM's %postun" grep -qF '/sys/fs/cgroup/*/aisb' "$spec"
unlike "$(cat "$src/packaging/debian/aisb.postrm")" 'authorized_keys' \
    "the postrm leaves /etc/ssh/authorized_keys alone (the admin made it)"

# --- a secret's file: the whole file, in both places ---------------------
conf=$src/etc/aisb/aisb.conf
unlike "$(cat "$conf")" 'first line' "the shipped aisb.conf does not say 'the first line' of a secret"
like "$(cat "$conf")" 'whole file, less one trailing newline' "it says the whole file, less one trailing newline"
like "$(cat "$src/docs/aisb.conf.5")" 'whole contents of' "aisb.conf(5) says the whole contents, too"
done_testing
