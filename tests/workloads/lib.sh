#!/bin/bash
# tests/workloads/lib.sh: what every workload test shares (sourced after
# tap.sh and internet.sh).  A test user, a root-owned policy that allows
# the test internet's names, the CA bundle the tools trust, and `s`/`sin`
# to run a command in a gated aisb-shell session as that user.
#
# Names of this run only (several people may run make check at once):
# user twrk<K>x<PID>, internet wrk<K><PID mod 10000>, /srv/aisbt-wrk.*.

# shellcheck source=tests/lib/syslog.sh
. "$(dirname "$0")/../lib/syslog.sh"

# wl_setup K: user, directories, internet; skip_all when the host cannot.
wl_setup() {
	local k=$1
	require_root
	[ -x "$AISB_SHELL" ] || skip_all "aisb-shell not built"
	have_userns nobody || skip_all "no unprivileged user namespaces"
	command -v nft >/dev/null || skip_all "nft missing (tests/deps.sh test)"
	U=twrk${k}x$$
	WN=wrk$k$(($$ % 10000))
	mkdir -p /srv
	TOP=$(mktemp -d /srv/aisbt-wrk.XXXXXX) ||
		skip_all "cannot make a directory in /srv"
	chmod 0755 "$TOP"
	at_exit "rm -rf '$TOP'"
	install -d -m 0755 -o root -g root "$TOP/conf" "$TOP/ca"
	tu_user "$U" || skip_all "cannot create $U"
	install -d -m 0755 -o "$U" -g "$U" "$TOP/$U" "$TOP/$U/project"
	# shellcheck disable=SC2034 # the tests use P
	P=$TOP/$U/project
	internet_up "$WN" || skip_all "cannot build the test internet"
	# The host's bundle plus the test CA, bound over the bundle inside
	# (filesystem.readonly SRC:DST): OpenSSL, GnuTLS (git, wget), pip
	# and Python read it without any setting.  Node keeps its own
	# roots: NODE_EXTRA_CA_CERTS (env.set) names the same file.
	cat /etc/ssl/certs/ca-certificates.crt "$INET_CA" \
	    > "$TOP/ca/bundle.pem" 2>/dev/null ||
		cp "$INET_CA" "$TOP/ca/bundle.pem"
	chmod 0644 "$TOP/ca/bundle.pem"
	WL_BUNDLE=/etc/ssl/certs/ca-certificates.crt
}

# wl_conf NAME [LINES...]: a root-owned gated policy allowing the test
# names (origin.test, *.example.test except denied, git.test:22,80,443),
# with extra top-level LINES appended; prints its path.
wl_conf() {
	local f=$TOP/conf/$1.conf
	shift
	cat > "$f" <<C
project {
  path = "$TOP/%u/project"
  roots = {"$TOP/%u"}
  protect = {}
}
home { path = "tmpfs" }
limits { memory = 0  pids = 0  cpu = "0%" }
filesystem {
  readonly = {"$TOP/ca/bundle.pem:$WL_BUNDLE"}
}
env {
  set = {"PATH=/usr/local/bin:/usr/bin:/bin",
	"NODE_EXTRA_CA_CERTS=$WL_BUNDLE"}
}
network {
  mode = "gated"
  allow = {"origin.test", "api.example.test", "www.example.test",
	"git.test:22,80,443"}
  deny = {"denied.example.test"}
  allow_cidr = {"$INET_ORIGIN_NET"}
  resolver = "$INET_DNS"
}
C
	printf '%s\n' "$@" >> "$f"
	chmod 0644 "$f"
	echo "$f"
}

# s CMD: run CMD (a string for bash -c) in a gated session of $U with
# $CONF, stdin from /dev/null; stdout and stderr merged.
s() { as "$U" "$AISB_SHELL" --config "$CONF" -c "$1" 2>&1 </dev/null; }

# sl LOG CMD: like s, but the session (aisb-shell, its gate) runs in a
# private mount namespace whose /dev/log is a listener writing LOG, one
# message a line: the gate's decision records and the session record,
# as an admin's syslog would have them (tests/lib/syslog.sh).
sl() {
	local log=$1 cmd=$2
	with_syslog "$log" env -C / -i PATH=/usr/local/bin:/usr/bin:/bin \
	    HOME="$(getent passwd "$U" | cut -d: -f6)" USER="$U" LOGNAME="$U" \
	    setpriv --reuid="$(id -u "$U")" --regid="$(id -g "$U")" --init-groups \
	    "$AISB_SHELL" --config "$CONF" -c "$cmd" 2>&1 </dev/null
}

# timed CMD: CMD for a session, followed by a line "ms=N": how long CMD
# took inside the session (the session's own start-up not counted).
timed() {
	# shellcheck disable=SC2016 # expanded in the session
	printf 't0=$(date +%%s%%N); %s\necho "ms=$(( ($(date +%%s%%N) - t0) / 1000000 ))"' "$1"
}
# ms_of OUT: the N of timed's last "ms=N" line.
ms_of() { printf '%s\n' "$1" | sed -n 's/^ms=//p' | tail -1; }
