#!/bin/bash
# tests/escape/lib-lck.sh: setup shared by the lockdown escape tests
# (NN-lck-*.t).  Everything global carries the "lck" prefix: users tlckN,
# the trusted tree /srv/aisbt-lck (root-owned 0755: the policy trust
# check refuses world-writable places such as /tmp).  Source after
# tap.sh.

LCK_TOP=/srv/aisbt-lck
LCK_CONF_DIR=$LCK_TOP/conf

lck_require() {
	require_root
	[ -x "$AISB_SHELL" ] || skip_all "aisb-shell not built"
	[ -x "$AISB_HELPERS/aisb-try" ] || skip_all "helpers not built"
	have_userns || skip_all "no unprivileged user namespaces"
	install -d -m 0755 -o root -g root "$LCK_TOP" "$LCK_CONF_DIR"
	# One lck script at a time on this machine: two runs of the suite
	# (a CI checkout and a worktree) share the users and $LCK_TOP.
	exec {_lck_lock}>/run/lock/aisbt-lck.lock
	flock -w 600 "$_lck_lock" || skip_all "another run holds the lck lock"
	# Does a session start at all?  Only a shell built without the
	# sandbox (it says so) skips; any other failure to start fails.
	local u=tlck0 c out
	lck_user "$u" || skip_all "cannot create a test user"
	c=$(lck_conf probe)
	out=$(lck "$u" "$c" -c 'echo up' 2>&1)
	case "$out" in
	up) ;;
	*"not built yet"*) skip_all "aisb-shell has no sandbox yet" ;;
	*)
		fail "a session starts for the test user" "got: ${out:0:400}"
		done_testing
		exit 1 ;;
	esac
}

# lck_user NAME: a test user with a project at $LCK_TOP/NAME/project that
# holds a copy of the helpers (/project/aisb-try inside).
lck_user() {
	local u=$1
	tu_user "$u" || return 1
	rm -rf "${LCK_TOP:?}/$u"
	install -d -m 0755 -o "$u" -g "$u" "$LCK_TOP/$u" "$LCK_TOP/$u/project"
	install -m 0755 -o "$u" -g "$u" "$AISB_HELPERS/aisb-try" \
	    "$AISB_HELPERS/aisb-euid" "$LCK_TOP/$u/project/"
	at_exit "rm -rf '$LCK_TOP/$u'"
}

# lck_conf NAME [EXTRA...]: $LCK_CONF_DIR/NAME.conf (root, 0644) with the
# test defaults (no network, limits best-effort: no pam_aisb delegation
# here, tmpfs home) and EXTRA lines; prints its path.
lck_conf() {
	local name=$1 f
	shift
	f=$LCK_CONF_DIR/$name.conf
	{
		echo "project {"
		echo "  path = \"$LCK_TOP/%u/project\""
		echo "  roots = {\"$LCK_TOP/%u\"}"
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

# lck USER CONF ARGS...: aisb-shell --config CONF ARGS... as USER.
lck() {
	local u=$1 c=$2
	shift 2
	as "$u" "$AISB_SHELL" --config "$c" "$@"
}
