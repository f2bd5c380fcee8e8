#!/bin/bash
# tests/sandbox/lib.sh: shared setup of the sandbox tests.  Source it after
# tap.sh.  Everything global carries the "sbx" prefix: users tsbxN, the
# trusted config and project tree under /srv/aisbt-sbx (root-owned 0755:
# the policy trust check refuses world-writable places such as /tmp).

SBX_TOP=/srv/aisbt-sbx
# One config directory per test run: sbx_conf runs in $(...), where an
# at_exit would never reach the test's own exit trap.
SBX_CONF_DIR=$SBX_TOP/conf-$$

sbx_require() {
	require_root
	[ -x "$AISB_SHELL" ] || skip_all "aisb-shell not built"
	have_userns || skip_all "no unprivileged user namespaces"
	install -d -m 0755 -o root -g root "$SBX_TOP" "$SBX_CONF_DIR"
	at_exit "rm -rf '$SBX_CONF_DIR'"
}

# sbx_user NAME: a test user with a project at $SBX_TOP/NAME/project.
sbx_user() {
	local u=$1
	tu_user "$u" || return 1
	rm -rf "${SBX_TOP:?}/$u"
	install -d -m 0755 -o "$u" -g "$u" "$SBX_TOP/$u" "$SBX_TOP/$u/project"
	at_exit "rm -rf '$SBX_TOP/$u'"
}

# sbx_conf NAME [EXTRA...]: write $SBX_CONF_DIR/NAME.conf (root, 0644) with
# the test defaults (no network, no cgroup limits: the tests run without
# pam_aisb's delegation; a tmpfs home unless EXTRA has a home section)
# followed by EXTRA lines; prints its path.
sbx_conf() {
	local name=$1 f
	shift
	f=$SBX_CONF_DIR/$name.conf
	{
		echo "project {"
		echo "  path = \"$SBX_TOP/%u/project\""
		echo "  roots = {\"$SBX_TOP/%u\"}"
		echo "}"
		echo "network { mode = \"none\" }"
		echo "limits { memory = 0  pids = 0  cpu = \"0%\" }"
		printf '%s\n' "$@" | grep -q '^home ' || echo 'home { path = "tmpfs" }'
		printf '%s\n' "$@"
	} > "$f"
	chmod 0644 "$f"
	echo "$f"
}

# sbx USER CONF CMD...: aisb-shell --config CONF CMD... as USER from /.
sbx() {
	local u=$1 c=$2
	shift 2
	as "$u" "$AISB_SHELL" --config "$c" "$@"
}

# sbx_in DIR USER CONF [VAR=VAL...] -- ARGS...: like sbx, from DIR with
# PWD=DIR (or as given) and extra environment.
sbx_in() {
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
