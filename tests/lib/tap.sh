#!/bin/bash
# tap.sh: TAP helpers for bash integration tests.  Source it:
#   . "$(dirname "$0")/../lib/tap.sh"
#   ok "root is read-only" ! touch /usr/x
#   skip_all "no user namespaces"      # whole script
#   done_testing
# BUILD (absolute) points at the build tree; AISB_SHELL at the binary.

: "${BUILD:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build}"
AISB_SHELL="$BUILD/bin/aisb-shell"
AISB_GATE="$BUILD/libexec/aisb/aisb-gate"
AISB_HELPERS="$BUILD/tests/helpers"
AISB_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export BUILD AISB_SHELL AISB_GATE AISB_HELPERS AISB_SRC

_tap_n=0
_tap_failed=0

# ok DESC CMD...: passes when CMD exits 0.  Prefix CMD with ! to invert.
ok() {
	local desc=$1 want=0 rc=0; shift
	# "!" is a shell keyword only when typed: here it is an argument.
	if [ "${1-}" = "!" ]; then want=1; shift; fi
	"$@" || rc=1
	if [ "$rc" = "$want" ]; then
		pass "$desc"
	else
		fail "$desc"
	fi
}

pass() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1"; }

fail() {
	_tap_n=$((_tap_n + 1)); _tap_failed=$((_tap_failed + 1))
	echo "not ok $_tap_n - $1"
	[ $# -gt 1 ] && printf '#   %s\n' "${@:2}"
	return 0
}

skip() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $1 # SKIP $2"; }

# is GOT WANT DESC
is() {
	if [ "$1" = "$2" ]; then
		pass "$3"
	else
		fail "$3" "got:  '$1'" "want: '$2'"
	fi
}

# like GOT REGEX DESC (grep -E on the text)
like() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		pass "$3"
	else
		fail "$3" "got:  '${1:0:400}'" "want match: '$2'"
	fi
}

unlike() {
	if printf '%s' "$1" | grep -Eq -- "$2"; then
		fail "$3" "got:  '${1:0:400}'" "must not match: '$2'"
	else
		pass "$3"
	fi
}

# RC_FAILED: for like, a line ending in "rc=N" where the command ran and
# failed (1-125).  126 and 127 (it could not be run at all: a missing
# tool) and 128+ (it died of a signal) are not the refusal a test wants.
# shellcheck disable=SC2034  # read by the test scripts
RC_FAILED='rc=([1-9]|[1-9][0-9]|1[01][0-9]|12[0-5])$'

diag() { printf '# %s\n' "$*"; }

skip_all() { echo "1..0 # SKIP $*"; exit 0; }

done_testing() {
	echo "1..$_tap_n"
	[ "$_tap_failed" -eq 0 ]
}

require_root() {
	[ "$(id -u)" = 0 ] || skip_all "needs root (creates users)"
}

# san_build: BUILD is the ASan+UBSan build (`make asan`).
san_build() {
	nm "$BUILD/libexec/aisb/aisb-shell-main" 2>/dev/null | grep -q __asan_init
}

# skip_in_san: a test that builds the package from the source and runs
# what it installs uses nothing of BUILD, so a sanitizer build has
# nothing to add to it: `make check` runs it.
skip_in_san() {
	san_build && skip_all "runs the package built from the source, nothing of the ASan build (make check runs it)"
	return 0
}

# Can an unprivileged user create a user namespace here?
have_userns() {
	local u=${1:-nobody}
	setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --clear-groups \
	    unshare -U true 2>/dev/null
}

# Test users: tu_user NAME [HOMEDIR] creates NAME (removed at exit).
_tu_users=()
_tu_cleanups=()
tu_user() {
	local name=$1 home=${2:-/home/$1}
	userdel -r "$name" >/dev/null 2>&1 || true
	useradd -m -d "$home" -s /bin/bash "$name" >/dev/null 2>&1 ||
		{ echo "# useradd $name failed" >&2; return 1; }
	_tu_users+=("$name")
}

# at_exit CMD: run CMD (a string) at exit, last registered first.
at_exit() { _tu_cleanups=("$1" "${_tu_cleanups[@]}"); }

_tu_exit() {
	local c u
	for c in "${_tu_cleanups[@]}"; do eval "$c" >/dev/null 2>&1 || true; done
	for u in "${_tu_users[@]}"; do
		pkill -KILL -u "$u" >/dev/null 2>&1 || true
		userdel -r "$u" >/dev/null 2>&1 || true
	done
}
trap _tu_exit EXIT

# as USER CMD...: run CMD as USER with a clean environment, from /.
as() {
	local u=$1; shift
	(cd / && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$(getent passwd "$u" | cut -d: -f6)" \
	    USER="$u" LOGNAME="$u" \
	    setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --init-groups "$@")
}

# Scratch files of the tests, programs included, go below TAP_SCRATCH:
# not /tmp (the policy loader refuses files below a world-writable
# directory, sticky or not) and not /run (on a systemd host a noexec
# tmpfs: Debian's initramfs mounts it so, and a program copied there
# cannot run).
TAP_SCRATCH=/var/lib

# tap_need_exec DIR: skip the whole script, with a line that says so,
# when DIR is on a noexec mount (rather than fail later with a bare
# "Permission denied").  Call it in the script's own shell.
tap_need_exec() {
	local mnt opts
	read -r mnt opts < <(findmnt -n -o TARGET,OPTIONS -T "$1" 2>/dev/null)
	case ",$opts," in
	*,noexec,*) skip_all "$1 is on a noexec mount ($mnt: $opts): programs placed there cannot run" ;;
	esac
}

# tap_scratch NAME: a fresh root-owned 0755 directory below TAP_SCRATCH,
# printed; the caller removes it (at_exit).
tap_scratch() {
	local d
	d=$(mktemp -d "$TAP_SCRATCH/aisbt-$1.XXXXXX") || return 1
	chmod 0755 "$d" && echo "$d"
}
