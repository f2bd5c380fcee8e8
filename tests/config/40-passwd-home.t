#!/bin/bash
# An agent's passwd home may not be, or lie under, a path the agent can
# write from inside: sshd, su and PAM read files there (pam_env's
# ~/.pam_environment, ~/.ssh) before the sandbox exists.  project.path,
# a project.roots entry (sshd starts the login in the passwd home, so
# the working directory alone makes it the project), a
# filesystem.readwrite source or glob, and home.path are each refused
# with 78 and FILE:LINE, also through a symlink on either side; the twin
# with the home elsewhere loads, and a session runs.
. "$(dirname "$0")/../lib/tap.sh"
require_root

top=$(mktemp -d /var/lib/aisbt-policy.XXXXXX)
chmod 0755 "$top"
at_exit "rm -rf '$top'"
mkdir -p "$top/users.d" "$top/srv" "$top/rw" "$top/hp"
u=tpol4
tu_user $u "$top/srv/$u" || skip_all "cannot create users"
# check CONF: --check-config for the agent; sets rc and out.
check() {
	out=$("$AISB_SHELL" --config "$1" --user $u --check-config 2>&1)
	rc=$?
}
mk() {	# mk NAME LINE...: the config file, its path on stdout
	local f=$top/$1.conf
	shift
	{ printf 'agents = {"%s"}\n' "$u"; printf '%s\n' "$@"; } > "$f"
	chmod 0644 "$f"
	echo "$f"
}
home=$top/srv/$u
why="is or contains the agent's passwd home $home"

f=$(mk roots "project {" "  path = \"$top/elsewhere/%u\"" "  roots = {\"/opt\", \"$top/srv\"}" "}")
check "$f"
is "$rc" 78 "project.roots containing the passwd home: 78"
like "$out" "^$f:4: project.roots: '$top/srv' $why" "... with FILE:LINE of the root, and why"
unlike "$out" "'/opt'" "... the other root is not named"

f=$(mk roots-eq "project {" "  roots = {\"%h\"}" "}")
check "$f"
like "$rc $out" "^78 $f:3: project.roots: '$home' $why" "project.roots = %h: 78, FILE:LINE"

f=$(mk project "project { path = \"%h\" }")
check "$f"
like "$rc $out" "^78 $f:2: project.path: '$home' $why" "project.path = the passwd home: 78, FILE:LINE"

f=$(mk rw "filesystem {" "  readwrite = {\"$top/rw\", \"$top/srv:/mnt\"}" "}")
check "$f"
like "$rc $out" "^78 $f:3: filesystem.readwrite: '$top/srv:/mnt' $why" \
	"filesystem.readwrite SRC:DST whose source contains it: 78"
unlike "$out" "'$top/rw'" "... the harmless entry is not named"

f=$(mk rwglob "filesystem { readwrite = {\"$top/s*\"} }")
check "$f"
like "$rc $out" "^78 $f:2: filesystem.readwrite: '$top/s\*' $why" "a readwrite glob that matches it: 78"

f=$(mk hp "home { path = \"$top/srv\" }")
check "$f"
like "$rc $out" "^78 $f:2: home.path: '$top/srv' $why" "home.path containing it: 78"

# Symlinks: a root that is a link to the home's directory, and a passwd
# home reached through a link.
ln -s "$top/srv" "$top/link"
f=$(mk link "project { roots = {\"$top/link\"} }")
check "$f"
like "$rc $out" "^78 $f:2: project.roots: '$top/link' $why" "a root that resolves to the home's parent: 78"
usermod -d "$top/link/$u" $u
f=$(mk viahome "project { roots = {\"$top/srv\"} }")
check "$f"
like "$rc $out" "^78 $f:2: project.roots: '$top/srv' is or contains the agent's passwd home $top/link/$u" \
	"a passwd home through a symlink, under a root: 78"
usermod -d "$home" $u

# Twins: the same keys, nowhere near the home, load; and for a user
# who is not an agent the check does not apply.
mkdir -p "$top/proj/$u"
f=$(mk ok "project {" "  path = \"$top/proj/%u\"" "  roots = {\"$top/proj\"}" "}" \
	"filesystem { readwrite = {\"$top/rw\", \"$top/r*\"} }" "home { path = \"$top/hp\" }")
check "$f"
is "$rc" 0 "twin: project, roots, readwrite and home.path outside the passwd home: valid"
f=$(mk notagent "project { roots = {\"$top/srv\"} }")
sed -i 's/^agents = .*/agents = {"nobody"}/' "$f"
check "$f"
is "$rc" 0 "twin: not an agent, not checked"

# A session: refused before anything runs, and its twin runs.
if have_userns $u; then
	install -d -m 0755 "$top/sess"
	install -d -o $u -m 0700 "$top/sess/home" "$top/proj/$u"
	f=$(mk sbad "project { path = \"$top/proj/%u\"  roots = {\"$top/srv\"} }" \
		"home { path = \"$top/sess/home\" }" \
		"network { mode = \"none\" }" "limits { memory = \"0\"  pids = 0  cpu = \"0%\" }")
	out=$(as $u "$AISB_SHELL" --config "$f" -c 'echo ran' 2>&1)
	is "$?" 78 "a session of the agent with such a policy: 78"
	unlike "$out" "^ran" "... nothing ran"
	like "$out" "project.roots: '$top/srv' $why" "... refused for the passwd home"
	f=$(mk sok "project { path = \"$top/proj/%u\"  roots = {\"$top/proj\"} }" \
		"home { path = \"$top/sess/home\" }" \
		"network { mode = \"none\" }" "limits { memory = \"0\"  pids = 0  cpu = \"0%\" }")
	is "$(as $u "$AISB_SHELL" --config "$f" -c 'echo ran' 2>&1)" "ran" "twin: the session runs"
else
	skip "sessions" "no unprivileged user namespaces"
fi

done_testing
