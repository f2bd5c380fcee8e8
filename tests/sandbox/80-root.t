#!/bin/bash
# filesystem.root: an image directory instead of the host's /.  Its
# top-level symlinks are recreated, a mount inside it comes along
# (recursive bind), and nothing of the host's / shows.  The system view
# takes the image's system set only; whole-root-unsafe all of it.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
sess_user tsbx8
img=$SESS_TOP/img-tsbx8
umount -l "$img/usr" 2>/dev/null
rm -rf "$img"
install -d -m 0755 "$img" "$img/usr" "$img/etc" "$img/var" "$img/opt/extra"
at_exit "umount -l '$img/usr'; rm -rf '$img'"
for l in bin sbin lib lib64; do
	[ -e "/usr/$l" ] && ln -s "usr/$l" "$img/$l"
done
# The image's /usr is a mount of its own: a recursive bind must carry it.
mount --bind /usr "$img/usr"
touch "$img/etc/passwd" "$img/etc/group" "$img/etc/hosts"
echo image > "$img/etc/marker"
# As with systemd-resolved: the link's target lives in a /run that the
# sandbox hides.
install -d -m 0755 "$img/run/systemd/resolve"
echo "nameserver 198.51.100.53" > "$img/run/systemd/resolve/stub-resolv.conf"
ln -s ../run/systemd/resolve/stub-resolv.conf "$img/etc/resolv.conf"
echo extra > "$img/opt/extra/file"
conf=$(sess_conf root "filesystem { root = \"$img\" }")
whole=$(sess_conf root-whole "filesystem { root = \"$img\"  view = \"whole-root-unsafe\" }")

is "$(sess tsbx8 "$conf" -c 'cat /etc/marker; [ -e /opt ] || echo no-opt')" "$(printf 'image\nno-opt')" \
    "the system view is the image's system set: its /etc, not its /opt"
is "$(sess tsbx8 "$whole" -c 'cat /etc/marker /opt/extra/file')" "$(printf 'image\nextra')" \
    "whole-root-unsafe: the view is the whole image"
out=$(sess tsbx8 "$whole" -c 'ls -A /')
unlike "$out" "^(work|srv|boot|root)$" "nothing of the host's / shows"
like "$out" "^project$" "the project is there"
is "$(sess tsbx8 "$conf" -c 'readlink /bin')" "usr/bin" "a top-level symlink is recreated"
is "$(sess tsbx8 "$conf" -c 'bash -c "echo via-usr"')" "via-usr" \
    "programs run from the image's /usr (a mount inside the image)"
sess tsbx8 "$whole" -c 'touch /usr/x /etc/x /opt/x' 2>/dev/null
ok "the image is read-only" eval '[ ! -e /usr/x ] && [ ! -e "$img/etc/x" ] && [ ! -e "$img/opt/x" ]'
like "$(sess tsbx8 "$conf" -c 'grep tsbx8 /etc/passwd')" "^tsbx8:x:" \
    "the generated passwd covers the image's"

is "$(sess tsbx8 "$conf" -c 'head -1 /etc/resolv.conf')" "nameserver 127.0.0.1" \
    "a symlinked /etc/resolv.conf is covered (the link itself is mounted over)"
is "$(readlink "$img/etc/resolv.conf")" "../run/systemd/resolve/stub-resolv.conf" \
    "and the image's link is untouched"

# The host replaces covered files by rename during a session (useradd and
# /etc/passwd, passwd(1) and /etc/shadow): the covers must hold.
echo "sbxhostaccount:x:5:5::/:/bin/sh" > "$img/etc/passwd"
echo hidden-secret > "$img/etc/secretfile"
conf2=$(sess_conf root2 "filesystem { root = \"$img\"  hide = {\"/etc/secretfile\"} }")
# The session says when its view is up and waits for the host's
# replacement (a file in the project) before it reads.
proj=$SESS_TOP/tsbx8/project
rm -f "$proj/up" "$proj/go"
sess tsbx8 "$conf2" -c 'echo up > /project/up
for i in $(seq 1 100); do [ -e /project/go ] && break; sleep 0.1; done
cat /etc/passwd /etc/secretfile' > "$img.out" 2>&1 &
bgp=$!
for _ in $(seq 1 100); do [ -s "$proj/up" ] && break; sleep 0.1; done
ok "the session runs before the host replaces its files" [ -s "$proj/up" ]
echo "sbxnewaccount:x:6:6::/:/bin/sh" > "$img/etc/.p" && mv "$img/etc/.p" "$img/etc/passwd"
echo new-secret > "$img/etc/.s" && mv "$img/etc/.s" "$img/etc/secretfile"
touch "$proj/go"
wait "$bgp"
out=$(cat "$img.out"); rm -f "$img.out"
like "$out" "^tsbx8:x:" "a session still sees the generated passwd after the host replaced its own"
unlike "$out" "sbxhostaccount|sbxnewaccount" "and never the host's accounts"
unlike "$out" "hidden-secret|new-secret" "a hidden file replaced on the host stays hidden"

rm -f "$img/etc/passwd"
is "$(sess tsbx8 "$conf" -c 'grep -c tsbx8 /etc/passwd')" "1" \
    "an image without /etc/passwd still gets the generated one"

done_testing
