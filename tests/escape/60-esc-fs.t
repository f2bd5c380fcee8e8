#!/bin/bash
# The filesystem from inside: nothing is writable outside the project,
# the home, /tmp and /dev/shm (a sweep of every mount and every
# directory); a hard link cannot carry a protected file out of its
# read-only bind; `..` and very long paths as the project or the cwd
# land on a checked directory or are refused; a symlink swapped at the
# project path while sessions start never redirects the bind.  Twins:
# the project, home, /tmp and /dev/shm are writable, hard links inside
# the project work, a deep project works.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" esc --helpers
exec </dev/null
sess_require
u=tesc3
sess_user "$u"
proj=$SESS_TOP/$u/project
conf=$(sess_conf fs)
r() { sess "$u" "$conf" -c "$1" 2>&1; }
# A .git with a config: project.protect binds .git/config and .git/hooks
# read-only (a missing one would be created as an empty directory).
install -d -o "$u" -g "$u" "$proj/.git" "$proj/.git/hooks"
printf '[core]\n\tbare = false\n' > "$proj/.git/config"
chown "$u:$u" "$proj/.git/config"

# Every read-write mount, by mount point.  /proc is a read-write proc
# whose writable files are the process's own; /dev/pts is the session's
# devpts.
out=$(r 'awk '\''{ split($6, o, ","); if (o[1] == "rw") print $5 }'\'' /proc/self/mountinfo | sort -u | tr "\n" " "')
home=$(getent passwd "$u" | cut -d: -f6)
want=$(printf '%s\n' /dev/full /dev/null /dev/pts /dev/random /dev/shm /dev/tty /dev/urandom /dev/zero /proc /project /project/.git /tmp "$home" | sort | tr '\n' ' ')
is "$out" "$want" "inside: the only read-write mounts are the project (and its .git, bound onto itself), home, /tmp, /dev/shm, /proc, /dev/pts and the bound devices"
# Every writable file or directory outside those (find -writable uses
# access(2), which knows about read-only mounts).
out=$(r 'find / \( -path /proc -o -path /sys -o -path /project -o -path "$HOME" -o -path /tmp -o -path /dev/shm -o -path /dev/pts \) -prune -o ! -type l -writable -print 2>/dev/null | grep -v -x -e /dev/null -e /dev/zero -e /dev/full -e /dev/random -e /dev/urandom -e /dev/tty -e /dev/ptmx | head -20; echo end')
is "$out" "end" "inside: find -writable outside them finds nothing but the standard devices"
out=$(r 'for d in /project "$HOME" /tmp /dev/shm; do f=$d/esc-w; echo x > $f && rm $f && echo "w $d"; done')
is "$(echo "$out" | tr '\n' ' ')" "w /project w /home/$u w /tmp w /dev/shm " "inside, twin: project, home, /tmp and /dev/shm are writable"
# Each refusal must be EROFS: this user gets EACCES for most of these on
# the host too, and only the read-only mount is the sandbox's.
out=$(r 'for d in / /etc /usr /var /var/tmp /dev /run /home /sys; do
	if touch $d/esc-w 2>/tmp/err; then echo "WROTE $d"
	elif ! grep -q "Read-only file system" /tmp/err; then echo "not EROFS: $(cat /tmp/err)"; fi
done; for d in /opt /srv /var/lib; do
	if mkdir $d 2>/tmp/err; then echo "MADE $d"
	elif ! grep -q "Read-only file system" /tmp/err; then echo "not EROFS: $(cat /tmp/err)"; fi
done; echo end')
is "$out" "end" "inside: /, /etc, /usr, /var, /var/tmp, /dev, /run, /home, /sys are read-only (EROFS); /opt, /srv, /var/lib cannot be made"

# Hard links and the protected .git/config (a read-only bind inside the
# writable project: the same inode, so a link would be writable).
sum=$(sha256sum < "$proj/.git/config")
out=$(r 'ln /project/.git/config /project/cfg-link; echo rc=$?; ln /project/.git/config /tmp/cfg-link; echo rc=$?; echo "[alias] x = !touch /tmp/pwn" >> /project/cfg-link; echo done')
like "$(echo "$out" | tr '\n' ' ')" "rc=1 .*rc=1 " "inside: hard-linking .git/config into the project or /tmp fails (EXDEV)"
is "$(sha256sum < "$proj/.git/config")" "$sum" "host: .git/config is unchanged"
out=$(r 'echo x > /project/plain && ln /project/plain /project/.git/hooks/pre-commit; echo rc=$?; ln -s /project/plain /project/.git/hooks/post-checkout; echo rc=$?')
like "$(echo "$out" | tr '\n' ' ')" "rc=1 .*rc=1 $" "inside: no hard or symbolic link can be created in .git/hooks"
ok "host: .git/hooks is still empty" [ -z "$(ls -A "$proj/.git/hooks")" ]
is "$(r 'ln /project/plain /project/plain2 && cat /project/plain2')" x "inside, twin: a hard link inside the project works"
# A hard link made on the host before the session (the agent owns the
# project) is the same inode as .git/config: the protection is per
# path, so writing through it is the documented residual.
rm -f "$proj/plain" "$proj/plain2"

# `..` in AISB_PROJECT and the cwd: the result is checked after
# resolution, so it can only name a directory under the roots.
out=$(as "$u" env AISB_PROJECT="$proj/../../../etc" "$AISB_SHELL" --config "$conf" -c 'ls /project | head -3; echo ran' 2>&1; echo "rc=$?")
unlike "$out" "passwd|ran" "AISB_PROJECT with .. out of the roots: refused, /etc never becomes /project"
like "$out" "rc=78" "... exit 78"
mkdir -p "$proj/sub"
chown "$u:$u" "$proj/sub"
out=$(as "$u" env AISB_PROJECT="$proj/sub/.." "$AISB_SHELL" --config "$conf" -c 'ls -d /project/sub' 2>&1)
is "$out" "/project/sub" "inside, twin: AISB_PROJECT with .. that stays inside the roots works"

# Very long paths: a project below 60 levels of 80-character names
# (about 4900 bytes, longer than PATH_MAX) is refused or works, never
# anything else.
deep=$SESS_TOP/$u/deep
name=$(printf 'd%.0s' $(seq 1 80))
as "$u" bash -c "mkdir -p '$deep' && cd '$deep' && for i in \$(seq 1 60); do mkdir $name && cd $name; done && touch marker"
out=$(as "$u" bash -c "cd '$deep' && for i in \$(seq 1 60); do cd $name; done && '$AISB_SHELL' --config '$conf' -c 'ls /project; echo ran'" 2>&1; echo "rc=$?")
if [[ $out == *ran* ]]; then
	like "$out" "marker" "a cwd longer than PATH_MAX: the session's /project is that directory"
else
	like "$out" "rc=(77|78)" "a cwd longer than PATH_MAX: refused with 77/78"
fi
unlike "$out" "rc=(1[3-9][0-9])" "... no crash"
out=$(as "$u" env AISB_PROJECT="$deep/$(printf "$name/%.0s" $(seq 1 60))" "$AISB_SHELL" --config "$conf" -c 'ls /project; echo ran' 2>&1; echo "rc=$?")
unlike "$out" "rc=(1[3-9][0-9])" "AISB_PROJECT longer than PATH_MAX: no crash"
unlike "$out" "passwd" "... and no host directory instead"
rm -rf "$deep"

# The symlink race (TOCTOU on the bind source): the agent swaps its
# project path between a directory and a symlink to /etc while
# sessions start.  Each session either refuses or mounts the directory.
race=$SESS_TOP/$u/race
as "$u" bash -c "mkdir -p '$race' && touch '$race/esc-real'"
setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --init-groups \
    bash -c "while :; do mv -T '$race' '$race.d'; ln -s /etc '$race'; rm '$race'; mv -T '$race.d' '$race'; done" \
    </dev/null >/dev/null 2>&1 &
swapper=$!
at_exit "kill $swapper 2>/dev/null"
bad=0 good=0 refused=0
for i in $(seq 1 150); do
	[ "$i" -gt 20 ] && [ "$good" -ge 3 ] && [ "$refused" -ge 3 ] && break
	out=$(as "$u" env AISB_PROJECT="$race" "$AISB_SHELL" --config "$conf" -c 'ls /project' 2>&1)
	case "$out" in
	*passwd*) bad=$((bad + 1)) ;;
	*esc-real*) good=$((good + 1)) ;;
	*) refused=$((refused + 1)) ;;
	esac
done
kill "$swapper" 2>/dev/null; wait "$swapper" 2>/dev/null
[ -d "$race" ] || mv -T "$race.d" "$race" 2>/dev/null
is "$bad" 0 "symlink race on the project path: /etc never became /project ($good bound, $refused refused)"
ok "... and the race was real (some sessions refused, some bound)" [ "$refused" -gt 0 ] && [ "$good" -gt 0 ]

done_testing
