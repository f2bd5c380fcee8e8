#!/bin/bash
# Every policy example the documentation shows is one that aisb accepts:
# the EXAMPLES of aisb.conf(5), and each policy fragment of
# docs/admin-guide.md as a users.d file on top of etc/aisb/aisb.conf.
# Checked with the built aisb-shell --config ... --check-config.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

require_root	# the policy directory must be root's (trust checks)
[ -x "$AISB_SHELL" ] || skip_all "$AISB_SHELL is not built"
command -v python3 >/dev/null || skip_all "python3 is missing"
src=$AISB_SRC
# Not under /tmp: the trust checks refuse world-writable parents.
dir=$(mktemp -d -p /run aisb-tdoc-XXXXXX)
at_exit "rm -rf '$dir'"
chmod 0755 "$dir"

# check NAME SYSTEM-FILE [USER-FILE]: --check-config for root's policy.
check() {
	local name=$1 sys=$2 usr=${3:-} d out rc
	d=$(mktemp -d -p "$dir")
	chmod 0755 "$d"
	mkdir -m 0755 "$d/users.d"
	cp "$sys" "$d/aisb.conf"
	[ -n "$usr" ] && cp "$usr" "$d/users.d/root.conf"
	chmod 0644 "$d"/aisb.conf "$d"/users.d/* 2>/dev/null
	out=$("$AISB_SHELL" --config "$d/aisb.conf" --check-config 2>&1)
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "$name passes --check-config"
	else
		fail "$name passes --check-config" "exit $rc" "$out" \
		    "--- the example:" "$(cat "${usr:-$sys}")"
	fi
}

# aisb.conf(5): the literal blocks of EXAMPLES that are policy text.
python3 - "$src/docs/aisb.conf.5" "$dir" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
ex = text.split("\n.Sh EXAMPLES", 1)[1].split("\n.Sh ", 1)[0]
n = 0
for block in re.findall(r"\n\.Bd -literal[^\n]*\n(.*?)\n\.Ed", ex, re.S):
    if block.lstrip().startswith("#"):	# a shell prompt, not policy
        continue
    block = block.replace("\\(dq", '"').replace("\\&", "").replace("\\-", "-")
    n += 1
    open("%s/man-%d.conf" % (sys.argv[2], n), "w").write(block + "\n")
PY
ok "aisb.conf(5) has policy examples" test -f "$dir/man-1.conf"
[ -f "$dir/man-1.conf" ] && check "aisb.conf(5) example 1 (system)" "$dir/man-1.conf"
for f in "$dir"/man-[2-9].conf; do
	[ -f "$f" ] || continue
	check "aisb.conf(5) example ${f##*man-} (users.d over example 1)" "$dir/man-1.conf" "$f"
done

# docs/admin-guide.md: indented code blocks that are policy (they set
# keys or open sections, and hold no shell command).
python3 - "$src/docs/admin-guide.md" "$dir" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
blocks, cur = [], []
# A blank line ends a block too: the guide puts the commands that make a
# file and the file's text in one code block, separated by a blank line.
for l in lines + [""]:
    if l.startswith("    ") and l.strip():
        cur.append(l[4:])
    else:
        if cur:
            blocks.append("\n".join(cur).strip("\n"))
        cur = []
policy = re.compile(r'^\s*([a-z_]+\s*\{|[a-z_]+\s*\+?=|secret\s+\w+\s*\{)', re.M)
shell = re.compile(r'^\s*(\$ |[a-z-]+ --|install |echo |cat |apt |make |su |ssh |pam|usermod|useradd|groupadd|passwd|git |printf|\(|chgrp|chmod|systemctl|sshd|loginctl|apparmor)', re.M)
n = 0
for b in blocks:
    if policy.search(b) and not shell.search(b):
        n += 1
        open("%s/guide-%02d.conf" % (sys.argv[2], n), "w").write(b + "\n")
PY
m=$(find "$dir" -maxdepth 1 -name 'guide-*.conf' | wc -l)
ok "docs/admin-guide.md has policy fragments ($m)" test "$m" -ge 5
for f in "$dir"/guide-*.conf; do
	[ -f "$f" ] || continue
	check "admin-guide fragment ${f##*guide-} (users.d over etc/aisb/aisb.conf)" \
	    "$src/etc/aisb/aisb.conf" "$f"
done
done_testing
