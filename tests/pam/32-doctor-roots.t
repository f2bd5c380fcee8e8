#!/bin/bash
# --doctor and the project roots (docs/admin-guide.md, step 3): what lies
# above a project root must be root's and writable by root alone, and
# the doctor says which condition failed (a symlink someone else owns,
# the owner, the mode); the root itself may be the agent's, as the
# project is.  Each layout the doctor calls ok starts a session; the
# twins are the layouts it fails, one condition each, and a session on
# each of them is refused (78) with the doctor's own words in one line,
# before anything runs: the command's marker file is never made.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
require_root
[ -x "$AISB_SHELL" ] || skip_all "aisb-shell not built"
have_userns nobody || skip_all "no unprivileged user namespaces"

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
tu_user "$U1"
uid=$(id -u "$U1")

# layout NAME ROOT: a policy whose project root is ROOT/%u (the project
# ROOT/%u/project, the agent's); prints the config's path.
layout() {
	cat > "$T/$1.conf" <<CONF
agents = {"$U1"}
project {
  path = "$2/%u/project"
  roots = {"$2/%u"}
}
home { path = "tmpfs" }
network { mode = "none" }
limits { memory = 0  pids = 0  cpu = "0%"  enforce = "best-effort" }
CONF
	chmod 0644 "$T/$1.conf"
	echo "$T/$1.conf"
}
doc() { AISB_SSHD_CONFIG=/dev/null "$AISB_SHELL" --config "$1" --user "$U1" --doctor 2>&1 | grep "project\[$U1\]"; }
run() { as "$U1" "$AISB_SHELL" --config "$1" -c 'pwd; touch /project/ran && echo wrote' 2>&1; }
# refused CONF PROJECT DESC: the doctor fails the layout and a session
# on it exits 78 with one line holding the doctor's text, and its command
# never ran (no marker in the project on the host).
refused() {
	local d text out rc
	d=$(doc "$1")
	text=$(sed -n "s/^fail: project\\[$U1\\]: \\(.*\\); fix: .*/\\1/p" <<<"$d" | head -n 1)
	rm -f "$2/ran"
	out=$(run "$1")
	rc=$?
	is "$rc" 78 "$3: a session is refused (78)"
	is "$(grep -c . <<<"$out")" 1 "$3: ... in one line"
	ok "$3: ... that holds the doctor's text ('${text:0:60}...')" \
	    grep -qF "project.roots: $text; refusing" <<<"$out"
	ok "$3: ... and nothing ran (no marker)" test ! -e "$2/ran"
}

# The guide's layout: the root root's, the project the agent's.
install -d -m 0755 "$T/a" "$T/a/agents" "$T/a/agents/$U1"
install -d -m 0750 -o "$U1" -g "$U1" "$T/a/agents/$U1/project"
c=$(layout a "$T/a/agents")
like "$(doc "$c")" "^ok: project\\[$U1\\]: $T/a/agents/$U1/project \\(uid $uid" "the guide's layout (root-owned root): ok"
is "$(run "$c")" "/project
wrote" "the guide's layout: a session starts"

# The root the agent's (what an admin who chowns the whole tree gets).
install -d -m 0755 "$T/b" "$T/b/agents"
install -d -m 0755 -o "$U1" -g "$U1" "$T/b/agents/$U1"
install -d -m 0750 -o "$U1" -g "$U1" "$T/b/agents/$U1/project"
c=$(layout b "$T/b/agents")
like "$(doc "$c")" "^ok: project\\[$U1\\]: " "a project root owned by the agent: ok"
unlike "$(doc "$c")" "^fail:" "a project root owned by the agent: no failure"
is "$(run "$c")" "/project
wrote" "a project root owned by the agent: a session starts"

# Above the root: the agent's directory.
install -d -m 0755 "$T/c"
install -d -m 0755 -o "$U1" "$T/c/agents"
install -d -m 0755 -o "$U1" "$T/c/agents/$U1"
install -d -m 0750 -o "$U1" "$T/c/agents/$U1/project"
c=$(layout c "$T/c/agents")
like "$(doc "$c")" "^fail: project\\[$U1\\]: '$T/c/agents' above project root $T/c/agents/$U1 is owned by uid $uid, not root: whoever owns it can swap what lies below; fix: chown root:root $T/c/agents$" \
    "a directory above the root owned by the agent: fail, the owner named, chown as the fix"
refused "$c" "$T/c/agents/$U1/project" "a directory above the root owned by the agent"

# Above the root: root's but writable by others.
install -d -m 0755 "$T/d"
install -d -m 0777 "$T/d/agents"
chmod 0777 "$T/d/agents"
install -d -m 0755 -o "$U1" "$T/d/agents/$U1"
install -d -m 0750 -o "$U1" "$T/d/agents/$U1/project"
c=$(layout d "$T/d/agents")
like "$(doc "$c")" "^fail: project\\[$U1\\]: '$T/d/agents' above project root $T/d/agents/$U1 is writable by group or other \\(mode 0777\\); fix: chmod go-w $T/d/agents$" \
    "a directory above the root writable by others: fail, the mode named, chmod as the fix"
refused "$c" "$T/d/agents/$U1/project" "a directory above the root writable by others"

# Above the root: root's, writable by the agent's group.
install -d -m 0755 "$T/g"
install -d -m 0775 -g "$U1" "$T/g/agents"
chmod 0775 "$T/g/agents"
install -d -m 0755 -o "$U1" "$T/g/agents/$U1"
install -d -m 0750 -o "$U1" "$T/g/agents/$U1/project"
c=$(layout g "$T/g/agents")
like "$(doc "$c")" "^fail: project\\[$U1\\]: '$T/g/agents' above project root $T/g/agents/$U1 is writable by group or other \\(mode 0775\\); fix: chmod go-w $T/g/agents$" \
    "a directory above the root writable by the agent's group: fail, the mode named"
refused "$c" "$T/g/agents/$U1/project" "a directory above the root writable by the agent's group"

# Above the root: root's, world-writable but sticky (as /tmp is): others
# may add names there, never rename or remove root's entries, so it is
# ok and a session starts.
install -d -m 0755 "$T/h"
install -d -m 1777 "$T/h/agents"
chmod 1777 "$T/h/agents"
install -d -m 0755 -o "$U1" "$T/h/agents/$U1"
install -d -m 0750 -o "$U1" "$T/h/agents/$U1/project"
c=$(layout h "$T/h/agents")
like "$(doc "$c")" "^ok: project\\[$U1\\]: " "a sticky world-writable directory above the root (as /tmp): ok"
is "$(run "$c")" "/project
wrote" "a sticky world-writable directory above the root: a session starts"

# Above the root: a symlink the agent made (in a sticky directory), and
# its twin, the same link made by root in root's directory.
install -d -m 0755 "$T/e" "$T/e/real"
install -d -m 1777 "$T/e/sticky"
install -d -m 0755 -o "$U1" "$T/e/real/$U1"
install -d -m 0750 -o "$U1" "$T/e/real/$U1/project"
as "$U1" ln -s "$T/e/real" "$T/e/sticky/lnk"
c=$(layout e "$T/e/sticky/lnk")
like "$(doc "$c")" "^fail: project\\[$U1\\]: '$T/e/sticky/lnk' above project root $T/e/sticky/lnk/$U1 is a symlink owned by uid $uid, not root; fix: replace it by the directory it points to" \
    "a symlink above the root that the agent owns: fail, the symlink named"
refused "$c" "$T/e/real/$U1/project" "a symlink above the root that the agent owns"
ln -s "$T/e/real" "$T/e/rootlnk"
c=$(layout e2 "$T/e/rootlnk")
like "$(doc "$c")" "^ok: project\\[$U1\\]: " "twin: root's symlink in root's directory: ok"
is "$(run "$c")" "/project
wrote" "twin: root's symlink: a session starts"

# The root itself writable by the agent's group.
install -d -m 0755 "$T/f" "$T/f/agents"
install -d -m 0775 -o "$U1" "$T/f/agents/$U1"
install -d -m 0750 -o "$U1" "$T/f/agents/$U1/project"
c=$(layout f "$T/f/agents")
like "$(doc "$c")" "^fail: project\\[$U1\\]: project root $T/f/agents/$U1 is writable by group or other \\(mode 0775\\); fix: chmod go-w" \
    "a project root writable by its group: fail, the mode named"
refused "$c" "$T/f/agents/$U1/project" "a project root writable by its group"

# The root itself another user's (in root's directory).
tu_user "$U2"
install -d -m 0755 "$T/i" "$T/i/agents"
install -d -m 0755 -o "$U2" "$T/i/agents/$U1"
install -d -m 0750 -o "$U1" "$T/i/agents/$U1/project"
c=$(layout i "$T/i/agents")
like "$(doc "$c")" "^fail: project\\[$U1\\]: project root $T/i/agents/$U1 is owned by uid $(id -u "$U2"), neither root nor the agent; fix: " \
    "a project root another user owns: fail, the owner named"
refused "$c" "$T/i/agents/$U1/project" "a project root another user owns"

done_testing
