#!/bin/bash
# tests/lib/syslog.sh: catch what a command sends to syslog(3) in a file,
# one message a line, without touching the host's /dev/log.  The command
# runs in a private mount namespace whose /dev is a fresh tmpfs: the
# host's usual device nodes bound in, and /dev/log a datagram socket that
# a small listener copies to the file.  Needs root and python3; does not
# need tap.sh.

SYSLOG_LIB=$(realpath "${BASH_SOURCE[0]}")

# The listener: appends each datagram to argv[1], says "ready" once bound.
_syslog_py='
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
os.chmod("/dev/log", 0o666)
out = open(sys.argv[1], "a")
print("ready", flush=True)
while True:
    out.write(s.recv(65536).decode("utf-8", "replace").rstrip("\n") + "\n")
    out.flush()
'

# syslog_dev LOG: only inside a private mount namespace (unshare -m
# --propagation private): give it the /dev above, its listener appending
# to LOG.  Returns once the listener is bound (non-zero if it never is);
# the listener's pid is in SYSLOG_PID, for the caller to kill.
syslog_dev() {
	local log=$1 ready='' rd wr
	_syslog_fresh_dev || return 1
	# A coprocess, not <(...): that needs the /dev/fd just covered up.
	coproc _syslog_co { exec python3 -c "$_syslog_py" "$log"; }
	# shellcheck disable=SC2034,SC2154 # for the caller; set by coproc
	SYSLOG_PID=$_syslog_co_PID
	rd=${_syslog_co[0]} wr=${_syslog_co[1]}
	read -r -t 5 -u "$rd" ready
	exec {rd}<&- {wr}>&-
	[ "$ready" = ready ]
}

# _syslog_fresh_dev: /dev a fresh tmpfs with the usual nodes and no log
# (inside a private mount namespace only).
_syslog_fresh_dev() {
	local old n
	old=$(mktemp -d) || return 1
	mount --bind /dev "$old" || return 1
	mount -t tmpfs -o mode=755 tmpfs /dev || return 1
	for n in null zero full random urandom tty ptmx; do
		[ -e "$old/$n" ] || continue
		touch "/dev/$n" && mount --bind "$old/$n" "/dev/$n"
	done
	if [ -d "$old/pts" ]; then
		mkdir /dev/pts && mount --bind "$old/pts" /dev/pts
	fi
	umount -l "$old" && rmdir "$old"
}

# with_syslog LOG CMD...: empty LOG, then run CMD (a program: a shell
# function does not cross into the namespace) with its syslog going to
# LOG.  Late records (a gate logging its close) get 0.3 s after CMD
# exits.  Returns CMD's status.
with_syslog() {
	local log=$1
	shift
	: > "$log"
	unshare -m --propagation private bash -c '
		. "$1"; log=$2; shift 2
		syslog_dev "$log" || echo "with_syslog: no listener on /dev/log" >&2
		"$@"; rc=$?
		sleep 0.3; kill "$SYSLOG_PID"; wait "$SYSLOG_PID" 2>/dev/null
		exit $rc' with_syslog "$SYSLOG_LIB" "$log" "$@"
}

# without_syslog CMD...: run CMD (a program) where nothing listens on
# /dev/log: a private mount namespace whose /dev has no log at all,
# whatever the host runs.  Returns CMD's status.
without_syslog() {
	unshare -m --propagation private bash -c '
		. "$1"; shift
		_syslog_fresh_dev || { echo "without_syslog: no fresh /dev" >&2; exit 1; }
		[ ! -e /dev/log ] || { echo "without_syslog: /dev/log still there" >&2; exit 1; }
		exec "$@"' without_syslog "$SYSLOG_LIB" "$@"
}
