#!/bin/bash
# The filesystem view: read-only system, hidden host state, writable
# /tmp, home and project; each attack next to the legitimate action.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
sess_user tsbx2
conf=$(sess_conf fs 'home { path = "tmpfs" }' 'hostname = "sbxhost"')
proj=$SESS_TOP/tsbx2/project
# Host canaries that must stay invisible.
install -d -m 0700 -o tsbx2 -g tsbx2 /home/tsbx2/.ssh
echo "ssh-ed25519 AAAAsbxcanarykey" > /home/tsbx2/.ssh/authorized_keys
chown tsbx2: /home/tsbx2/.ssh/authorized_keys
touch /root/sbx-root-canary
at_exit "rm -f /root/sbx-root-canary"

r() { sess tsbx2 "$conf" -c "$1" 2>&1; }

out=$(r 'cat /etc/shadow'); rc=$?
ok "reading /etc/shadow fails" [ "$rc" -ne 0 ]
unlike "$out" 'root:[^:]*:[0-9]' "no shadow entry leaks"
like "$(r 'cat /etc/passwd')" '^tsbx2:x:[0-9]+:[0-9]+:' \
    "reading /etc/passwd works and shows the agent"
unlike "$(r 'cat /etc/passwd')" "$(id -un 1 2>/dev/null || echo daemon):" \
    "the generated passwd has no host accounts"

is "$(r 'ls -A /home | grep -v "^tsbx2$"')" "" "/home shows nothing of the host"
is "$(r '[ -e /root ] && echo shown || echo absent')" absent "/root is not in the view"
is "$(r 'cat ~/.ssh/authorized_keys 2>&1 >/dev/null | head -c0; ls -A ~')" "" \
    "the agent's real home (authorized_keys) is not visible"
# One line per directory, so that an error of the session itself cannot
# pass for an empty listing or an absent directory.
is "$(r 'for d in /run /var/tmp /var/log /var/lib /srv /mnt; do if [ -e "$d" ]; then echo "$d:[$(ls -A "$d" | tr "\n" " ")]"; else echo "$d:absent"; fi; done')" \
    "$(printf '%s\n' '/run:[]' '/var/tmp:[]' '/var/log:absent' '/var/lib:absent' '/srv:absent' '/mnt:absent')" \
    "/run and /var/tmp are empty; /var/log, /var/lib, /srv, /mnt are not in the view"

key=$(find /etc/ssh -maxdepth 1 -name 'ssh_host_*_key' 2>/dev/null | sort | head -1)
if [ -n "$key" ] && [ -s "$key" ]; then
	is "$(r "stat -c '%s %a' $key")" "0 0" \
	    "a glob in hide covers $key (an empty mode-0 file)"
	like "$(r "cat $key.pub")" "^(ssh|ecdsa)-" "its public key stays readable"
else
	skip "a glob in hide covers the ssh host keys" "no ssh host key here"
	skip "its public key stays readable" "no ssh host key here"
fi

# The same user on the host gets EACCES for these (they are root's):
# only EROFS shows the read-only mount of the sandbox.
for d in / /usr /etc /var; do
	out=$(r "touch $d/sbx-probe"); rc=$?
	ok "writing $d fails" [ "$rc" -ne 0 ]
	like "$out" "^touch: cannot touch '/*$d/sbx-probe': Read-only file system$" \
	    "writing $d is refused by the read-only mount (EROFS)"
done
ok "no probe reached the host" eval '[ ! -e /sbx-probe ] && [ ! -e /usr/sbx-probe ] && [ ! -e /etc/sbx-probe ] && [ ! -e /var/sbx-probe ]'

is "$(r 'echo t > /tmp/x && cat /tmp/x')" "t" "writing /tmp works"
is "$(r 'echo h > ~/x && cat ~/x && echo "$HOME"')" "$(printf 'h\n/home/tsbx2')" \
    "writing \$HOME works, HOME is the home inside"
is "$(r 'echo p > /project/from-inside && cat /project/from-inside')" "p" \
    "writing /project works"
is "$(cat "$proj/from-inside" 2>&1)" "p" "the project write shows up on the host"
is "$(stat -c %U "$proj/from-inside")" "tsbx2" "and belongs to the agent there"

# Outside the project: the rest of the root and other directories are
# not even visible, and writable host places stay unreachable.
install -d -m 0777 "$SESS_TOP/tsbx2/other"
out=$(r "echo x > $SESS_TOP/tsbx2/other/f"); rc=$?
ok "writing outside the project fails" [ "$rc" -ne 0 ]
like "$out" "$SESS_TOP/tsbx2/other/f: No such file or directory" \
    "... because the place is not there at all"
ok "nothing was written outside the project" [ ! -e "$SESS_TOP/tsbx2/other/f" ]
shm=/dev/shm/sbx-shm-$$
rm -f "$shm"
is "$(r "echo x > $shm && cat $shm")" "x" "/dev/shm of the sandbox is writable"
ok "/dev/shm of the sandbox is not the host's" [ ! -e "$shm" ]

# The view itself.
mounts=$(r 'findmnt -rn -o TARGET,OPTIONS')
like "$mounts" '^/usr ro,nosuid,nodev' "/usr is read-only, nosuid, nodev"
like "$mounts" '^/proc [^ ]*nosuid,nodev,noexec' "/proc is fresh, nosuid, nodev, noexec"
like "$mounts" '^/tmp rw,nosuid,nodev' "/tmp is a writable tmpfs"
like "$mounts" '^/project rw,nosuid,nodev' "/project is writable, nosuid, nodev"
like "$mounts" '^/dev/pts ' "/dev/pts is its own devpts"
is "$(r 'ls /dev | tr "\n" " "')" \
    "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero " \
    "/dev holds only the minimal set"
is "$(r 'echo hi > /dev/null && head -c 4 /dev/zero | wc -c')" "4" \
    "/dev/null and /dev/zero work"
is "$(r 'hostname; cat /etc/hostname')" "$(printf 'sbxhost\nsbxhost')" \
    "hostname comes from the policy"
is "$(r 'cat /etc/resolv.conf | head -1')" "nameserver 127.0.0.1" \
    "resolv.conf points at the sandbox's own loopback"
is "$(r 'ip -o link 2>/dev/null | wc -l; cat /sys/class/net/*/operstate 2>/dev/null | head -0')" "1" \
    "the network namespace has only lo"
like "$(r 'cat /proc/self/uid_map')" "^ *$(id -u tsbx2) +$(id -u tsbx2) +1" \
    "the agent's uid maps to itself"

# filesystem.readonly / readwrite extra binds.  Both belong to the agent:
# on the host it may write either, so only the mount can refuse it.
xro=$(mktemp -d "$SESS_TOP/xro.XXXXXX"); xrw=$(mktemp -d "$SESS_TOP/xrw.XXXXXX")
chmod 0755 "$xro" "$xrw"; echo ro > "$xro/f"; chown -R tsbx2: "$xro" "$xrw"
at_exit "rm -rf '$xro' '$xrw'"
ok "host twin: the agent can write the readonly path outside" \
    as tsbx2 sh -c "echo x > '$xro/twin' && rm '$xro/twin'"
conf2=$(sess_conf fs2 "filesystem { readonly = {\"$xro\"} readwrite = {\"$xrw\"} }")
is "$(sess tsbx2 "$conf2" -c "cat $xro/f")" "ro" "a filesystem.readonly path is visible"
out=$(sess tsbx2 "$conf2" -c "echo x > $xro/g" 2>&1)
like "$out" "$xro/g: Read-only file system" "and read-only (EROFS)"
ok "... nothing reached the host" [ ! -e "$xro/g" ]
sess tsbx2 "$conf2" -c "echo x > $xrw/g"
ok "a filesystem.readwrite path is writable" [ -e "$xrw/g" ]

done_testing
