#!/bin/bash
# tests/lib/syslog.sh: catch what a command sends to syslog(3) in a file,
# one message a line, without touching the host's /dev/log.  The command
# runs in a private mount namespace whose /dev is a fresh tmpfs: the
# host's usual device nodes bound in, and /dev/log a datagram socket that
# a small listener copies to the file.  In that namespace /run/systemd
# has no journal directory (the rest of it stays), so journald's native
# socket (/run/systemd/journal/socket) is absent, or, with with_journal,
# a listener of its own that writes each record as one JSON object a
# line.
# Needs root and python3; does not need tap.sh.

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

# The journal's listener: each datagram decoded (KEY=VALUE lines, or KEY,
# 64-bit little-endian length, value) into one JSON line of argv[1];
# a datagram that does not decode is written as {"MALFORMED": ...}.
_journal_py='
import json, os, socket, struct, sys
os.makedirs("/run/systemd/journal", exist_ok=True)
p = "/run/systemd/journal/socket"
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(p)
os.chmod(p, 0o666)
out = open(sys.argv[1], "a")
print("ready", flush=True)
while True:
    d = s.recv(1 << 20)
    rec, i = {}, 0
    try:
        while i < len(d):
            nl = d.index(b"\n", i)
            line = d[i:nl]
            if b"=" in line:
                k, v = line.split(b"=", 1)
                i = nl + 1
            else:
                k = line
                n = struct.unpack("<Q", d[nl + 1:nl + 9])[0]
                v = d[nl + 9:nl + 9 + n]
                if len(v) != n or d[nl + 9 + n] != 10:
                    raise ValueError("bad length")
                i = nl + 10 + n
            rec[k.decode()] = v.decode("utf-8", "replace")
        rec["_BYTES"] = len(d)
    except Exception as e:
        rec = {"MALFORMED": repr(d[:200]), "why": str(e)}
    out.write(json.dumps(rec, sort_keys=True) + "\n")
    out.flush()
'

# _syslog_no_journal: /run/systemd without its journal (inside a private
# mount namespace only): a fresh tmpfs with every other entry of the
# host's bound back (/run/systemd/system tells aisb it runs under
# systemd), so no journal socket is there, whatever the host runs, and
# a test listener may make one.
_syslog_no_journal() {
	local old e n
	[ -d /run/systemd ] || return 0
	old=$(mktemp -d) || return 1
	mount --bind /run/systemd "$old" || return 1
	mount -t tmpfs -o mode=755 tmpfs /run/systemd || return 1
	for e in "$old"/* "$old"/.[!.]*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		n=${e##*/}
		[ "$n" = journal ] && continue
		if [ -L "$e" ]; then
			cp -P "$e" "/run/systemd/$n"
		elif [ -d "$e" ]; then
			mkdir "/run/systemd/$n" && mount --bind "$e" "/run/systemd/$n"
		else
			touch "/run/systemd/$n" && mount --bind "$e" "/run/systemd/$n"
		fi
	done
	umount -l "$old" && rmdir "$old"
}

# journal_run LOG: only inside a private mount namespace: a journal
# socket whose listener appends to LOG.  Returns once it is bound; its
# pid is in JOURNAL_PID.
journal_run() {
	local log=$1 ready='' rd wr
	[ -d /run/systemd ] || { echo "journal_run: no /run/systemd to cover" >&2; return 1; }
	_syslog_no_journal || return 1
	coproc _journal_co { exec python3 -c "$_journal_py" "$log"; }
	# shellcheck disable=SC2034,SC2154 # for the caller; set by coproc
	JOURNAL_PID=$_journal_co_PID
	rd=${_journal_co[0]} wr=${_journal_co[1]}
	read -r -t 5 -u "$rd" ready
	exec {rd}<&- {wr}>&-
	[ "$ready" = ready ]
}

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
		_syslog_no_journal || echo "with_syslog: /run/systemd not covered" >&2
		syslog_dev "$log" || echo "with_syslog: no listener on /dev/log" >&2
		"$@"; rc=$?
		sleep 0.3; kill "$SYSLOG_PID"; wait "$SYSLOG_PID" 2>/dev/null
		exit $rc' with_syslog "$SYSLOG_LIB" "$log" "$@"
}

# with_journal JLOG SLOG CMD...: as with_syslog, with a journal socket
# too: its records go to JLOG (one JSON object a line), what reaches
# /dev/log to SLOG.  Returns CMD's status.
with_journal() {
	local jlog=$1 slog=$2
	shift 2
	: > "$jlog"
	: > "$slog"
	unshare -m --propagation private bash -c '
		. "$1"; jlog=$2 slog=$3; shift 3
		journal_run "$jlog" || echo "with_journal: no listener on the journal socket" >&2
		syslog_dev "$slog" || echo "with_journal: no listener on /dev/log" >&2
		"$@"; rc=$?
		sleep 0.3; kill "$SYSLOG_PID" "$JOURNAL_PID"
		wait "$SYSLOG_PID" "$JOURNAL_PID" 2>/dev/null
		exit $rc' with_journal "$SYSLOG_LIB" "$jlog" "$slog" "$@"
}

# without_syslog CMD...: run CMD (a program) where nothing listens on
# /dev/log or the journal's socket: a private mount namespace whose /dev
# has no log at all and /run/systemd no journal, whatever the host runs.  Returns CMD's status.
without_syslog() {
	unshare -m --propagation private bash -c '
		. "$1"; shift
		_syslog_no_journal || { echo "without_syslog: /run/systemd not covered" >&2; exit 1; }
		_syslog_fresh_dev || { echo "without_syslog: no fresh /dev" >&2; exit 1; }
		[ ! -e /dev/log ] || { echo "without_syslog: /dev/log still there" >&2; exit 1; }
		exec "$@"' without_syslog "$SYSLOG_LIB" "$@"
}
