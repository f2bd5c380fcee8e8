#!/bin/bash
# tests/escape/lib-sess.sh PREFIX: setup shared by the escape tests.  The
# lockdown scripts (NN-lck-*.t) source it with PREFIX "lck", the others
# (NN-esc-*.t, issue 7) with "esc"; everything global carries the
# prefix: users tPREFIXN, the trusted tree /srv/aisbt-PREFIX (root-owned
# 0755: the policy trust check refuses world-writable places such as
# /tmp), the lock /run/lock/aisbt-PREFIX.lock.  Source after tap.sh:
#	. "$(dirname "$0")/lib-sess.sh" esc

SESS_PFX=${1:?lib-sess.sh: which prefix, esc or lck?}
SESS_TOP=/srv/aisbt-$SESS_PFX
SESS_CONF_DIR=$SESS_TOP/conf

sess_require() {
	require_root
	[ -x "$AISB_SHELL" ] || skip_all "aisb-shell not built"
	[ -x "$AISB_HELPERS/aisb-try" ] || skip_all "helpers not built"
	have_userns || skip_all "no unprivileged user namespaces"
	install -d -m 0755 -o root -g root "$SESS_TOP" "$SESS_CONF_DIR"
	# One script of a prefix at a time on this machine: two runs of the
	# suite (a CI checkout and a worktree) share the users and $SESS_TOP.
	exec {_sess_lock}>"/run/lock/aisbt-$SESS_PFX.lock"
	flock -w 600 "$_sess_lock" ||
	    skip_all "another run holds the $SESS_PFX lock"
	# Does a session start at all?  Only a shell built without the
	# sandbox (it says so) skips; any other failure to start fails.
	local u=t${SESS_PFX}0 c out
	sess_user "$u" || skip_all "cannot create a test user"
	c=$(sess_conf probe)
	out=$(sess "$u" "$c" -c 'echo up' 2>&1)
	case "$out" in
	up) ;;
	*"not built yet"*) skip_all "aisb-shell has no sandbox yet" ;;
	*)
		fail "a session starts for the test user" "got: ${out:0:400}"
		done_testing
		exit 1 ;;
	esac
}

# sess_user NAME: a test user with a project at $SESS_TOP/NAME/project
# that holds a copy of the helpers (/project/aisb-try inside).
sess_user() {
	local u=$1
	tu_user "$u" || return 1
	rm -rf "${SESS_TOP:?}/$u"
	install -d -m 0755 -o "$u" -g "$u" "$SESS_TOP/$u" "$SESS_TOP/$u/project"
	install -m 0755 -o "$u" -g "$u" "$AISB_HELPERS/aisb-try" \
	    "$AISB_HELPERS/aisb-euid" "$SESS_TOP/$u/project/"
	at_exit "rm -rf '$SESS_TOP/$u'"
}

# sess_conf NAME [EXTRA...]: $SESS_CONF_DIR/NAME.conf (root, 0644) with
# the test defaults (no network, limits best-effort: no pam_aisb
# delegation here, tmpfs home) and EXTRA lines; prints its path.
sess_conf() {
	local name=$1 f
	shift
	f=$SESS_CONF_DIR/$name.conf
	{
		echo "project {"
		echo "  path = \"$SESS_TOP/%u/project\""
		echo "  roots = {\"$SESS_TOP/%u\"}"
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

# sess USER CONF ARGS...: aisb-shell --config CONF ARGS... as USER.
sess() {
	local u=$1 c=$2
	shift 2
	as "$u" "$AISB_SHELL" --config "$c" "$@"
}
