#!/bin/bash
# --doctor and the project roots (docs/admin-guide.md, step 3): what lies
# above a project root must be root's and writable by root alone, and
# the doctor says which condition failed (a symlink someone else owns,
# the owner, the mode); the root itself may be the agent's, as the
# project is.  Each layout the doctor calls ok starts a session; the
# twins are the layouts it fails, one condition each.
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

# Above the root: root's but writable by others.
install -d -m 0755 "$T/d"
install -d -m 0777 "$T/d/agents"
chmod 0777 "$T/d/agents"
install -d -m 0755 -o "$U1" "$T/d/agents/$U1"
install -d -m 0750 -o "$U1" "$T/d/agents/$U1/project"
c=$(layout d "$T/d/agents")
like "$(doc "$c")" "^fail: project\\[$U1\\]: '$T/d/agents' above project root $T/d/agents/$U1 is writable by group or other \\(mode 0777\\); fix: chmod go-w $T/d/agents$" \
    "a directory above the root writable by others: fail, the mode named, chmod as the fix"

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

done_testing
