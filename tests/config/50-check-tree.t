#!/bin/bash
# --check-config as root without --user checks the whole tree: the
# system file, every users.d file merged for its user, and every agent's
# merged policy with what a session would refuse (a missing project, an
# unsafe directory above the project).
# A good tree says valid with exit 0; a broken users.d file or a missing
# project is exit 78 with FILE:LINE, every problem listed.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
require_root
[ -x "$AISB_SHELL" ] || skip_all "$AISB_SHELL is not built"

a=aisbt16a b=aisbt16b
tu_user "$a" || skip_all "useradd failed"
tu_user "$b" || skip_all "useradd failed"
# Not under /tmp: the trust checks refuse world-writable parents.
dir=$(mktemp -d /var/lib/aisbt-tree.XXXXXX)
chmod 0755 "$dir"
at_exit "rm -rf '$dir'"
mkdir -m 0755 "$dir/users.d" "$dir/proj-$a" "$dir/proj-$b"
cat >"$dir/aisb.conf" <<EOC
agents = {"$a", "$b"}
project {
	path = "$dir/proj-%u"
}
EOC
chmod 0644 "$dir/aisb.conf"
printf 'limits {\n\tmemory = "1G"\n}\n' >"$dir/users.d/$a.conf"
chmod 0644 "$dir/users.d/$a.conf"

check() { "$AISB_SHELL" --config "$dir/aisb.conf" --check-config >"$dir/out" 2>&1; }

check
rc=$?
is "$rc" 0 "a good tree: exit 0$( [ $rc = 0 ] || printf ' (%s)' "$(tr '\n' ' ' <"$dir/out")")"
like "$(cat "$dir/out")" 'policy is valid' "a good tree says valid"

# A broken users.d file: root's policy alone is fine, the agent's is not.
printf 'limits {\n\tcpu = "lots"\n}\n' >"$dir/users.d/$b.conf"
chmod 0644 "$dir/users.d/$b.conf"
check
is "$?" 78 "a broken users.d/$b.conf: exit 78"
like "$(cat "$dir/out")" "$dir/users.d/$b.conf:2: limits.cpu: " "with FILE:LINE"
unlike "$(cat "$dir/out")" 'is valid' "and it does not say valid"
"$AISB_SHELL" --config "$dir/aisb.conf" --user root --check-config >/dev/null 2>&1
is "$?" 0 "root's own policy still loads (the file is not root's)"
rm -f "$dir/users.d/$b.conf"

# A missing project, as a session of $a would refuse it.
rmdir "$dir/proj-$a"
check
is "$?" 78 "a missing project: exit 78"
like "$(cat "$dir/out")" "$dir/aisb.conf:3: project.path: $dir/proj-$a \\(agent $a\\) does not exist" \
	"with the origin's FILE:LINE and the agent"
unlike "$(cat "$dir/out")" "proj-$b" "the agent whose project exists is not named"

# Every problem is listed, not only the first.
rmdir "$dir/proj-$b"
check
is "$(grep -c 'does not exist' "$dir/out")" 2 "both missing projects are listed"
mkdir -m 0755 "$dir/proj-$a" "$dir/proj-$b"
check
is "$?" 0 "fixed again: exit 0"

# What a session refuses above the project: a directory others may
# write (not sticky), once for a project outside every root and once
# for a project root.  The twin: the same directory made safe.
mkdir -m 0755 "$dir/open" "$dir/open/proj-$a"
chmod 0777 "$dir/open"
printf 'project {\n\tpath = "%s"\n}\n' "$dir/open/proj-$a" >"$dir/users.d/$a.conf"
chmod 0644 "$dir/users.d/$a.conf"
check
is "$?" 78 "a project below a 0777 directory: exit 78"
like "$(cat "$dir/out")" "$dir/users.d/$a.conf:2: project.path: '$dir/open' above project $dir/open/proj-$a is writable by group or other \\(mode 0777\\).* \\(agent $a\\); a session refuses it" \
	"with the session's own words, FILE:LINE and the agent"
unlike "$(cat "$dir/out")" "agent $b" "the other agent is not named"
printf 'project {\n\tpath = "%s"\n\troots = {"%s"}\n}\n' "$dir/open/proj-$a" "$dir/open/proj-$a" >"$dir/users.d/$a.conf"
check
is "$?" 78 "a project root below a 0777 directory: exit 78"
like "$(cat "$dir/out")" "project.roots: '$dir/open' above project root $dir/open/proj-$a is writable by group or other .*\\(agent $a\\); a session refuses it" \
	"named as the root's problem"
chmod 1777 "$dir/open"
check
is "$?" 0 "the twin: the same directory sticky (as /tmp): exit 0"
chmod 0755 "$dir/open"
check
is "$?" 0 "and root's 0755: exit 0"
done_testing
