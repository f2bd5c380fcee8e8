#!/bin/bash
# bench/redact.sh: what redacting env.secret values costs a session's
# output.  In one run, interleaved, a session writes 1 GiB (QUICK:
# 64 MiB) of random-looking bytes to a pipe that dd reads:
#   direct    a session without secrets: the inner writes to the
#             caller's pipe itself;
#   redacted  a session with an env.secret: the inner's stdout is the
#             outer's pipe, and the outer reads, redacts and writes;
#             the outer makes its pipes 1 MiB, and dd's too once dd
#             has taken 4 MiB (shell/pty.c);
#   direct-1m direct with dd's pipe made 1 MiB before the session: what
#             the redacted path costs with the same pipe to dd;
# RUNS times each; the table has the median and the ratio to direct
# (the target is at least 0.90).
set -eu
: "${BUILD:=$(cd "$(dirname "$0")/.." && pwd)/build}"
QUICK=${QUICK:-}
mib=1024 runs=5
[ -n "$QUICK" ] && { mib=64; runs=1; }
[ "$(id -u)" = 0 ] || { echo "redact: needs root (creates a user)"; exit 0; }

u=tbench2
dir=/srv/aisbt-bench-redact
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
	pkill -KILL -u "$u" 2>/dev/null || true
	userdel -r "$u" >/dev/null 2>&1 || true
	rm -rf "$dir"
}
trap cleanup EXIT
userdel -r "$u" >/dev/null 2>&1 || true
useradd -m -s /bin/bash "$u"
install -d -m 0755 "$dir" "$dir/conf" "$dir/secrets"
install -d -o "$u" -m 0755 "$dir/$u" "$dir/$u/project"
printf 'bench-redact-%s\n' "$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')" > "$dir/secrets/tok"
chown "root:$u" "$dir/secrets/tok"
chmod 0640 "$dir/secrets/tok"
# 64 MiB of random bytes, written again and again: the scan sees
# data without a value, as a build log or a binary stream is.
head -c $((64 << 20)) /dev/urandom > "$dir/$u/project/rand"
chown "$u" "$dir/$u/project/rand"
for c in direct redacted; do
	{
		echo "project { path = \"$dir/%u/project\"  roots = {\"$dir/%u\"} }"
		echo 'home { path = "tmpfs" }'
		echo 'network { mode = "none" }'
		echo 'limits { memory = 0  pids = 0  cpu = "0%"  enforce = "best-effort" }'
		[ "$c" = redacted ] && echo "env { secret TOK { file = \"$dir/secrets/tok\" } }"
	} > "$dir/conf/$c.conf"
	chmod 0644 "$dir/conf/$c.conf"
done
uid=$(id -u "$u"); gid=$(id -g "$u")
n=$((mib / 64))

# CMD... with its stdout's pipe made 1 MiB.
# shellcheck disable=SC2317 # run through pre=() in one()
bigpipe() {
	python3 -c 'import fcntl, os, sys
fcntl.fcntl(1, 1031, 1 << 20)  # F_SETPIPE_SZ
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

one() { # PATH: MB/s of one transfer, or nothing
	local t0 t1 got conf=${1%-1m} pre=()
	[ "$1" = direct-1m ] && pre=(bigpipe)
	t0=$(date +%s.%N)
	got=$("${pre[@]}" setpriv --reuid="$uid" --regid="$gid" --clear-groups env -i PATH=/usr/bin:/bin HOME=/ \
	    "$BUILD/bin/aisb-shell" --config "$dir/conf/$conf.conf" \
	    -c "for i in \$(seq $n); do cat rand; done" </dev/null 2>/dev/null |
	    dd of=/dev/null bs=1M 2>&1 | awk '/bytes/ {print $1}')
	t1=$(date +%s.%N)
	[ "$got" = $((mib << 20)) ] || return 1
	awk -v b="$got" -v a="$t0" -v c="$t1" 'BEGIN {printf "%.1f", b / (c - a) / 1e6}'
}

declare -A res
rc=0
for ((r = 0; r < runs; r++)); do
	for c in direct redacted direct-1m; do
		if v=$(one "$c"); then
			res[$c]+=" $v"
		else
			echo "redact: $c failed"
			rc=1
		fi
	done
done
med() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {
    if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
printf '%s\n' "session output of $mib MiB to a pipe, median of $runs"
printf '%-10s %10s %10s\n' path "MB/s" "x direct"
# shellcheck disable=SC2086 # lists of numbers, split on purpose
d=$(med ${res[direct]:-0})
for c in direct redacted direct-1m; do
	[ -n "${res[$c]:-}" ] || continue
	# shellcheck disable=SC2086 # lists of numbers, split on purpose
	m=$(med ${res[$c]})
	printf '%-10s %10.1f %10.2f\n' "$c" "$m" "$(awk -v a="$m" -v b="$d" 'BEGIN {print (b > 0 ? a / b : 0)}')"
done
if [ -n "${res[direct-1m]:-}" ] && [ -n "${res[redacted]:-}" ]; then
	# shellcheck disable=SC2086 # lists of numbers, split on purpose
	printf 'redacted x direct-1m (the same pipe to dd): %.2f\n' "$(awk -v a="$(med ${res[redacted]})" -v b="$(med ${res[direct-1m]})" 'BEGIN {print (b > 0 ? a / b : 0)}')"
fi
exit $rc
