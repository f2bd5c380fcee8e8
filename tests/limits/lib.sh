#!/bin/bash
# tests/limits/lib.sh: shared setup of the limits tests (sourced after
# tap.sh).  Sessions run as a test user tlimN inside a cgroup delegated
# by tests/helpers/lim_delegate (what pam_aisb's session phase does),
# with a policy in a root-owned 0755 directory and network.mode = "none".

require_root
[ -x "$AISB_SHELL" ] || skip_all "aisb-shell is not built"
LIM_TOOL_SRC="$AISB_HELPERS/lim_tool"
LIM_DELEGATE="$AISB_HELPERS/lim_delegate"
if [ ! -x "$LIM_TOOL_SRC" ] || [ ! -x "$LIM_DELEGATE" ]; then
	skip_all "helpers not built"
fi
have_userns || skip_all "no unprivileged user namespaces on this kernel"

# cgroup version of the host: the tests read the session's own counters.
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
	LIM_CG=v2
else
	LIM_CG=v1
fi

LIM_DIR=$(mktemp -d /var/lib/aisb-tlim.XXXXXX)
chmod 0755 "$LIM_DIR"
at_exit "rm -rf '$LIM_DIR'"

# lim_user NAME: a test user with a project holding lim_tool (the
# project is visible inside at /project).
lim_user() {
	# Several worktrees run `make check` on this machine at once: the
	# same test in two of them would share its user (tu_user's exit
	# kills all of its processes).  One run per user, machine-wide.
	exec {LIM_LOCKFD}>"/run/aisb-$1.lock"
	flock -w 600 "$LIM_LOCKFD" ||
		skip_all "another run of this test holds /run/aisb-$1.lock"
	# A home left by an earlier run (root's, below: userdel -r keeps a
	# home its user does not own) would hand this run its stale files.
	# The name is this suite's own test user.
	rm -rf "/home/${1:?}"
	tu_user "$1" || return 1
	local h
	h=$(getent passwd "$1" | cut -d: -f6)
	[ -n "$h" ] && [ "$h" != / ] || return 1
	mkdir -p "$h/project"
	cp "$LIM_TOOL_SRC" "$h/project/lim_tool"
	chown -R "$1:" "$h/project"
	# The project root is %h/project, so its parent, the passwd home,
	# must be one nobody but root can redirect (docs/threat-model.md,
	# project roots): root's, and sticky so that the scripts running as
	# the user can still leave their output files in it.
	chown root:root "$h"
	chmod 1777 "$h"
	# Back to the user before tu_user's userdel -r (cleanups run first),
	# which removes only a home its user owns.
	at_exit "chown '$1:' '$h'"
}

# lim_conf NAME LIMITS...: $LIM_DIR/NAME.conf with the given limits
# block lines (e.g. 'pids = 32' 'enforce = "strict"').
lim_conf() {
	local name=$1; shift
	{
		echo 'shell = "/bin/bash"'
		# (Not roots = {"%h"}: a root may not contain the passwd home.)
		echo 'project { path = "%h/project"  roots = {"%h/project"} }'
		echo 'home { path = "tmpfs" }'
		echo 'network { mode = "none" }'
		echo "filesystem { tmp_size = \"${LIM_TMP_SIZE:-64M}\" }"
		echo 'limits {'
		printf '  %s\n' "$@"
		echo '}'
	} >"$LIM_DIR/$name.conf"
	chmod 0644 "$LIM_DIR/$name.conf"
	echo "$LIM_DIR/$name.conf"
}

_lim_env() {
	local u=$1
	echo env -i PATH=/usr/local/bin:/usr/bin:/bin \
	    HOME="$(getent passwd "$u" | cut -d: -f6)" USER="$u" LOGNAME="$u"
}

# shellcheck disable=SC2034  # LIM_* are read by the test scripts
# lim_run USER CONF CMD: a session in a delegated cgroup; sets LIM_OUT
# (stdout), LIM_ERR (stderr), LIM_RC, LIM_SECS (wall time), LIM_KEY.
lim_run() {
	local u=$1 conf=$2 cmd=$3 t0 t1 kf
	kf=$(mktemp "$LIM_DIR/key.XXXXXX")
	t0=$(date +%s.%N)
	# shellcheck disable=SC2046
	LIM_OUT=$(timeout 60 "$LIM_DELEGATE" -k "$kf" "$u" $(_lim_env "$u") \
	    "$AISB_SHELL" --config "$conf" -c "$cmd" 2>"$LIM_DIR/err" </dev/null)
	LIM_RC=$?
	t1=$(date +%s.%N)
	LIM_ERR=$(cat "$LIM_DIR/err")
	LIM_KEY=$(cat "$kf" 2>/dev/null)
	LIM_SECS=$(echo "$t1 - $t0" | bc)
	rm -f "$kf"
}

# lim_run_plain USER CONF CMD: the same without any delegated cgroup.
lim_run_plain() {
	local u=$1 conf=$2 cmd=$3
	# shellcheck disable=SC2046
	LIM_OUT=$(cd / && timeout 60 setpriv --reuid="$(id -u "$u")" \
	    --regid="$(id -g "$u")" --init-groups $(_lim_env "$u") \
	    "$AISB_SHELL" --config "$conf" -c "$cmd" 2>"$LIM_DIR/err" </dev/null)
	LIM_RC=$?
	LIM_ERR=$(cat "$LIM_DIR/err")
}

# The host must be able to delegate the controllers at all: a cgroup2
# container whose cgroup root holds processes cannot (v2 forbids
# controllers below a cgroup with processes).
lim_need_cgroups() {
	local c
	"$LIM_DELEGATE" "$1" true || skip_all "cannot delegate a cgroup here"
	if [ "$LIM_CG" = v2 ]; then
		for c in memory pids cpu; do
			grep -qw "$c" /sys/fs/cgroup/aisb/cgroup.subtree_control ||
				skip_all "this cgroup2 host cannot delegate the $c controller (its cgroup root holds processes?)"
		done
	else
		for c in memory pids cpu cpuacct; do
			[ -f "/sys/fs/cgroup/$c/cgroup.procs" ] ||
				skip_all "the cgroup v1 $c controller is not mounted"
		done
	fi
}

# Sessions must start at all, or nothing here can be tested.
lim_need_sessions() {
	local u=$1 c
	lim_need_cgroups "$u"
	c=$(lim_conf probe 'enforce = "best-effort"')
	lim_run_plain "$u" "$c" 'echo aisb-session-ok'
	if [ "$LIM_OUT" != aisb-session-ok ]; then
		diag "probe session: rc=$LIM_RC err: $LIM_ERR"
		if printf '%s' "$LIM_ERR" | grep -q 'sandbox is not built yet'; then
			skip_all "aisb-shell cannot start sessions yet (sandbox stage not built)"
		fi
	fi
}

# lim_cgroups USER: every cgroup directory of USER's delegations still
# present, in any hierarchy (should be none after the sessions).
lim_cgroups() {
	find /sys/fs/cgroup -mindepth 2 -maxdepth 4 -type d -path "*/aisb/$1-*" \
	    2>/dev/null
}

# lim_session_dir KEY CTL: the session cgroup(s) of a running session.
lim_session_dir() {
	local ctl=$2 rel=${1#v?:}
	if [ "$LIM_CG" = v2 ]; then
		ls -d /sys/fs/cgroup/"$rel"/session-* 2>/dev/null
	else
		ls -d /sys/fs/cgroup/"$ctl"/"$rel"/session-* 2>/dev/null
	fi
}
