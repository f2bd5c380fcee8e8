#!/bin/bash
# tests/lib/sess.sh PREFIX [--helpers]: real sessions of test users, for
# the suites that start aisb-shell as an agent would (tests/sandbox with
# PREFIX "sbx", tests/escape with "lck" and "esc").  Everything global
# carries the prefix: users tPREFIXN, the trusted tree /srv/aisbt-PREFIX
# (root-owned 0755: the policy trust check refuses world-writable places
# such as /tmp), the lock /run/lock/aisbt-PREFIX.lock.  With --helpers,
# each user's project holds a copy of the attack helpers (/project/aisb-try
# and /project/aisb-euid inside).  Source after tap.sh:
#	. "$(dirname "$0")/../lib/sess.sh" esc --helpers

SESS_PFX=${1:?sess.sh: which prefix (sbx, lck, esc)?}
SESS_HELPERS=
[ "${2-}" = --helpers ] && SESS_HELPERS=1
SESS_TOP=/srv/aisbt-$SESS_PFX
# One config directory per run: sess_conf runs in $(...), where an
# at_exit would never reach the script's own exit trap.
SESS_CONF_DIR=$SESS_TOP/conf-$$

# sess_require: skip unless this host can run sessions; fail (and end
# the script) when a session of a test user does not start, so that no
# later check can pass on the start-up error of aisb-shell itself.
sess_require() {
	require_root
	[ -x "$AISB_SHELL" ] || skip_all "aisb-shell not built"
	if [ -n "$SESS_HELPERS" ]; then
		[ -x "$AISB_HELPERS/aisb-try" ] || skip_all "helpers not built"
	fi
	have_userns || skip_all "no unprivileged user namespaces"
	# One script of a prefix at a time on this machine: two runs of the
	# suite (a CI checkout and a worktree) share the users and $SESS_TOP.
	exec {_sess_lock}>"/run/lock/aisbt-$SESS_PFX.lock"
	flock -w 600 "$_sess_lock" ||
	    skip_all "another run holds the $SESS_PFX lock"
	install -d -m 0755 -o root -g root "$SESS_TOP" "$SESS_CONF_DIR"
	at_exit "rm -rf '$SESS_CONF_DIR'"
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
# (with --helpers: holding a copy of the helpers).
sess_user() {
	local u=$1
	tu_user "$u" || return 1
	rm -rf "${SESS_TOP:?}/$u"
	install -d -m 0755 -o "$u" -g "$u" "$SESS_TOP/$u" "$SESS_TOP/$u/project"
	if [ -n "$SESS_HELPERS" ]; then
		install -m 0755 -o "$u" -g "$u" "$AISB_HELPERS/aisb-try" \
		    "$AISB_HELPERS/aisb-euid" "$SESS_TOP/$u/project/"
	fi
	at_exit "rm -rf '$SESS_TOP/$u'"
}

# sess_conf NAME [EXTRA...]: $SESS_CONF_DIR/NAME.conf (root, 0644) with
# the test defaults (no network, no cgroup limits and best-effort: no
# pam_aisb delegation here; a tmpfs home unless EXTRA has a home
# section) followed by the EXTRA lines; prints its path.
sess_conf() {
	local name=$1 f
	shift
	f=$SESS_CONF_DIR/$name.conf
	{
		echo "project {"
		echo "  path = \"$SESS_TOP/%u/project\""
		echo "  roots = {\"$SESS_TOP/%u\"}"
		echo "}"
		printf '%s\n' "$@" | grep -q '^home ' || echo 'home { path = "tmpfs" }'
		echo 'network { mode = "none" }'
		echo 'limits { memory = 0  pids = 0  cpu = "0%"  enforce = "best-effort" }'
		printf '%s\n' "$@"
	} > "$f"
	chmod 0644 "$f"
	echo "$f"
}

# sess USER CONF ARGS...: aisb-shell --config CONF ARGS... as USER, from /.
sess() {
	local u=$1 c=$2
	shift 2
	as "$u" "$AISB_SHELL" --config "$c" "$@"
}

# sess_in DIR USER CONF [VAR=VAL...] -- ARGS...: like sess, from DIR with
# PWD=DIR (or as given) and extra environment.
sess_in() {
	local d=$1 u=$2 c=$3
	shift 3
	local envs=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	(cd "$d" && env -i PATH=/usr/local/bin:/usr/bin:/bin PWD="$d" \
	    HOME="$(getent passwd "$u" | cut -d: -f6)" USER="$u" LOGNAME="$u" \
	    "${envs[@]}" setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" \
	    --init-groups "$AISB_SHELL" --config "$c" "$@")
}
