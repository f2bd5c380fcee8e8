#!/bin/bash
# tests/escape/lib-esc.sh: setup shared by the escape tests of issue 7
# (NN-esc-*.t).  Everything global carries the "esc" prefix: users tescN,
# the trusted tree /srv/aisbt-esc (root-owned 0755: the policy trust
# check refuses world-writable places such as /tmp).  Source after
# tap.sh.

ESC_TOP=/srv/aisbt-esc
ESC_CONF_DIR=$ESC_TOP/conf

esc_require() {
	require_root
	[ -x "$AISB_SHELL" ] || skip_all "aisb-shell not built"
	[ -x "$AISB_HELPERS/aisb-try" ] || skip_all "helpers not built"
	have_userns || skip_all "no unprivileged user namespaces"
	install -d -m 0755 -o root -g root "$ESC_TOP" "$ESC_CONF_DIR"
	# One esc script at a time on this machine: two runs of the suite
	# (a CI checkout and a worktree) share the users and $ESC_TOP.
	exec {_esc_lock}>/run/lock/aisbt-esc.lock
	flock -w 600 "$_esc_lock" || skip_all "another run holds the esc lock"
	# Does a session start at all?  Only a shell built without the
	# sandbox (it says so) skips; any other failure to start fails.
	local u=tesc0 c out
	esc_user "$u" || skip_all "cannot create a test user"
	c=$(esc_conf probe)
	out=$(esc "$u" "$c" -c 'echo up' 2>&1)
	case "$out" in
	up) ;;
	*"not built yet"*) skip_all "aisb-shell has no sandbox yet" ;;
	*)
		fail "a session starts for the test user" "got: ${out:0:400}"
		done_testing
		exit 1 ;;
	esac
}

# esc_user NAME: a test user with a project at $ESC_TOP/NAME/project that
# holds a copy of the helpers (/project/aisb-try inside).
esc_user() {
	local u=$1
	tu_user "$u" || return 1
	rm -rf "${ESC_TOP:?}/$u"
	install -d -m 0755 -o "$u" -g "$u" "$ESC_TOP/$u" "$ESC_TOP/$u/project"
	install -m 0755 -o "$u" -g "$u" "$AISB_HELPERS/aisb-try" \
	    "$AISB_HELPERS/aisb-euid" "$ESC_TOP/$u/project/"
	at_exit "rm -rf '$ESC_TOP/$u'"
}

# esc_conf NAME [EXTRA...]: $ESC_CONF_DIR/NAME.conf (root, 0644) with the
# test defaults (no network, limits best-effort: no pam_aisb delegation
# here, tmpfs home) and EXTRA lines; prints its path.
esc_conf() {
	local name=$1 f
	shift
	f=$ESC_CONF_DIR/$name.conf
	{
		echo "project {"
		echo "  path = \"$ESC_TOP/%u/project\""
		echo "  roots = {\"$ESC_TOP/%u\"}"
		echo "}"
		echo 'home { path = "tmpfs" }'
		echo 'network { mode = "none" }'
		echo 'limits { memory = 0  pids = 0  cpu = "0%"  enforce = "best-effort" }'
		printf '%s\n' "$@"
	} > "$f"
	chmod 0644 "$f"
	at_exit "rm -f '$f'"
	echo "$f"
}

# esc USER CONF ARGS...: aisb-shell --config CONF ARGS... as USER.
esc() {
	local u=$1 c=$2
	shift 2
	as "$u" "$AISB_SHELL" --config "$c" "$@"
}
