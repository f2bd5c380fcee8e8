#!/bin/bash
# Trust before parse: ownership, modes, symlinks, file type and size of
# the config file and every directory above it, for root and for a user
# running --config.  Each refusal is paired with the legitimate twin.
. "$(dirname "$0")/../lib/tap.sh"
require_root

tu_user tpol1 || skip_all "cannot create users"
tu_user tpol2 || skip_all "cannot create users"

# Fixtures under a root-owned 0755 directory (not /tmp: /tmp is 1777,
# and a world-writable directory above a policy is refused).
top=$(mktemp -d /var/lib/aisbt-policy.XXXXXX)
chmod 0755 "$top"
at_exit "rm -rf '$top'"
good='shell = /bin/sh'

check() {	# check FILE [as USER]: sets rc and out (stderr)
	local f=$1
	if [ $# -gt 1 ]; then
		out=$(as "$2" "$AISB_SHELL" --config "$f" --check-config 2>&1 >/dev/null)
	else
		out=$("$AISB_SHELL" --config "$f" --check-config 2>&1 >/dev/null)
	fi
	rc=$?
}

mkconf() {	# mkconf PATH [MODE [OWNER]]
	printf '%s\n' "$good" > "$1"
	chmod "${2:-0644}" "$1"
	chown "${3:-root}:root" "$1"
}

# Legitimate: root-owned 0644 under root-owned 0755 directories.
mkconf "$top/ok.conf"
check "$top/ok.conf"
is "$rc" 0 "root-owned 0644 file in root-owned 0755 dirs is accepted"

mkconf "$top/g.conf" 0664
check "$top/g.conf"
is "$rc $out" "78 $top/g.conf: unsafe: the file is writable by group or other (mode 0664); chmod go-w
aisb-shell: the policy is invalid or unsafe" "group-writable file refused"

mkconf "$top/o.conf" 0646
check "$top/o.conf"
like "$rc $out" "^78 $top/o.conf: unsafe: the file is writable by group or other \(mode 0646\)" \
    "other-writable file refused"

mkdir -m 0757 "$top/owdir"
chmod 0757 "$top/owdir"
mkconf "$top/owdir/a.conf"
check "$top/owdir/a.conf"
like "$rc $out" "^78 $top/owdir/a.conf: unsafe: directory $top/owdir is writable by group or other \(mode 0757\)" \
    "parent directory writable by other refused"

mkdir "$top/gwdir"
chmod 0775 "$top/gwdir"
mkconf "$top/gwdir/a.conf"
check "$top/gwdir/a.conf"
like "$rc $out" "^78 $top/gwdir/a.conf: unsafe: directory $top/gwdir is writable by group" \
    "parent directory writable by group refused"

mkdir "$top/stickydir"
chmod 1777 "$top/stickydir"
mkconf "$top/stickydir/a.conf"
check "$top/stickydir/a.conf"
like "$rc $out" "^78 .*directory $top/stickydir is writable by group or other \(mode 1777\)" \
    "sticky world-writable directory (like /tmp) refused"

f=$(mktemp /tmp/aisbt-policy.XXXXXX)
mkconf "$f"
check "$f"
like "$rc $out" "^78 $f: unsafe: directory /tmp is writable by group or other \(mode 1777\)" \
    "a config under /tmp is refused"
rm -f "$f"

mkconf "$top/other.conf" 0644 tpol1
check "$top/other.conf"
like "$rc $out" "^78 $top/other.conf: unsafe: the file is owned by uid $(id -u tpol1) \(must be root\)" \
    "file owned by another user refused (root invoking)"

mkdir "$top/udir"
chown tpol1 "$top/udir"
mkconf "$top/udir/a.conf"
check "$top/udir/a.conf"
like "$rc $out" "^78 $top/udir/a.conf: unsafe: directory $top/udir is owned by uid $(id -u tpol1)" \
    "directory owned by another user refused (root invoking)"

# --config by a user: the user's own files are trusted, others' are not.
mkdir "$top/t1"
chown tpol1 "$top/t1"
mkconf "$top/t1/own.conf" 0644 tpol1
check "$top/t1/own.conf" tpol1
is "$rc" 0 "--config: a user's own file in the user's own dir is accepted"
mkconf "$top/t1/theirs.conf" 0644 tpol2
check "$top/t1/theirs.conf" tpol1
like "$rc $out" "^78 $top/t1/theirs.conf: unsafe: the file is owned by uid $(id -u tpol2) \(must be root or the invoking user\)" \
    "--config: a file owned by a third user is refused"
check "$top/t1/own.conf" tpol2
like "$rc $out" "^78 $top/t1/own.conf: unsafe: directory $top/t1 is owned by uid $(id -u tpol1)" \
    "--config: another user's directory is refused"

ln -s "$top/ok.conf" "$top/link.conf"
check "$top/link.conf"
is "$rc $out" "78 $top/link.conf: unsafe: the policy file is a symlink
aisb-shell: the policy is invalid or unsafe" "a symlinked config is refused"

ln -s "$top" "$top/linkdir"
check "$top/linkdir/ok.conf"
like "$rc $out" "^78 $top/linkdir/ok.conf: unsafe: $top/linkdir is a symlink or not a directory" \
    "a symlinked directory on the way is refused"

check "$top/missing.conf"
like "$rc $out" "^78 $top/missing.conf: cannot open: No such file or directory" \
    "a missing config is an error, not defaults"

mkfifo "$top/fifo.conf"
chmod 0644 "$top/fifo.conf"
out=$(timeout 10 "$AISB_SHELL" --config "$top/fifo.conf" --check-config 2>&1 >/dev/null)
rc=$?
like "$rc $out" "^78 $top/fifo.conf: unsafe: not a regular file" "a FIFO is refused without hanging"

mkdir "$top/dir.conf"
check "$top/dir.conf"
like "$rc $out" "^78 $top/dir.conf: unsafe: not a regular file" "a directory is refused"

: > "$top/empty.conf"
chmod 0644 "$top/empty.conf"
check "$top/empty.conf"
is "$rc" 0 "an empty file is valid (all defaults)"
v=$("$AISB_SHELL" --config "$top/empty.conf" --print-policy --json | python3 -c '
import json, sys
k = json.load(sys.stdin)["keys"]
print(k["shell"]["value"], k["shell"]["origin"], k["network.allow"]["value"])')
is "$v" "/bin/bash default []" "empty file: defaults, deny-all network"

# 10 MB: refused with a clear message, in bounded memory.
truncate -s 10M "$top/big.conf"
chmod 0644 "$top/big.conf"
# (The entry point is static: what ASan instruments is aisb-shell-main.)
main=$BUILD/libexec/aisb/aisb-shell-main
if ldd "$main" 2>/dev/null | grep -q asan || nm "$main" 2>/dev/null | grep -q __asan_init; then
	check "$top/big.conf"
else
	out=$(prlimit --as=$((64 * 1024 * 1024)) "$AISB_SHELL" --config "$top/big.conf" --check-config 2>&1 >/dev/null)
	rc=$?
fi
is "$rc $out" "78 $top/big.conf: larger than 1048576 bytes (10485760): not a policy file
aisb-shell: the policy is invalid or unsafe" "a 10 MB file is refused clearly (64M address space)"
# A file that grows past the limit while being read is cut off too:
# covered by the read loop's bound; here, exactly the limit is fine.
printf '%s\n' "$good" > "$top/limit.conf"
truncate -s 1048576 "$top/limit.conf"
chmod 0644 "$top/limit.conf"
check "$top/limit.conf"
like "$rc $out" "^78 $top/limit.conf:2: NUL byte in the file" \
    "a file of exactly the limit is read (and judged on its content)"

# users.d next to --config: absent is fine, present must be safe.
mkdir -p "$top/sys/users.d"
mkconf "$top/sys/aisb.conf"
check "$top/sys/aisb.conf"
is "$rc" 0 "no users.d/USER.conf: fine"
mkconf "$top/sys/users.d/root.conf" 0666
check "$top/sys/aisb.conf"
like "$rc $out" "^78 $top/sys/users.d/root.conf: unsafe: the file is writable by group or other \(mode 0666\)" \
    "an unsafe users.d/USER.conf is an error"
rm -f "$top/sys/users.d/root.conf"
ln -s "$top/ok.conf" "$top/sys/users.d/root.conf"
check "$top/sys/aisb.conf"
like "$rc $out" "^78 $top/sys/users.d/root.conf: unsafe: the policy file is a symlink" \
    "a symlinked users.d/USER.conf is an error"
rm -f "$top/sys/users.d/root.conf"
chmod 0777 "$top/sys/users.d"
check "$top/sys/aisb.conf"
like "$rc $out" "^78 $top/sys/users.d/root.conf: unsafe: directory $top/sys/users.d is writable" \
    "a world-writable users.d is an error even without a user file"
chmod 0755 "$top/sys/users.d"

# Relative --config is made absolute without resolving symlinks.
out=$(cd "$top" && "$AISB_SHELL" --config ok.conf --check-config 2>&1)
is "$?" 0 "relative --config works"
out=$(cd "$top" && "$AISB_SHELL" --config link.conf --check-config 2>&1)
like "$? $out" "^78 $top/link.conf: unsafe: the policy file is a symlink" \
    "relative --config to a symlink is still refused"

# Admin usage.
out=$(as tpol1 "$AISB_SHELL" --user root --print-policy 2>&1)
is "$? $out" "2 aisb-shell: --user needs root" "--user is for root only"
out=$("$AISB_SHELL" --user aisbt-no-such-user --config "$top/ok.conf" --print-policy 2>&1)
is "$? $out" "2 aisb-shell: no such user 'aisbt-no-such-user'" "--user of an unknown user"

done_testing
