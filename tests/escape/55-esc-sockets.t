#!/bin/bash
# Unix sockets and inherited descriptors (docs/threat-model.md, bypasses
# 16, 17, 18 and 21): a host socket under /run (and under /run/user/UID),
# an abstract socket of the host, the D-Bus system bus path and
# descriptors the caller leaves open (a connected socket and a pty) are
# all out of reach inside.
# Twins: the same user reaches the same sockets outside, and unix
# sockets made inside the session work.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" esc --helpers
exec </dev/null
sess_require
command -v python3 >/dev/null || skip_all "python3 not installed"
u=tesc2
sess_user "$u"
uid=$(id -u "$u")
conf=$(sess_conf sock)
r() { sess "$u" "$conf" -c "$1" 2>&1; }

# Listeners as root: a path socket in /run/aisbt-esc, one in
# /run/user/UID (what systemd --user would offer) and an abstract one.
# Each answers "canary" to whoever connects; the sockets are 0777.
rund=/run/aisbt-esc
install -d -m 0755 "$rund"
install -d -m 0700 -o "$u" -g "$u" "/run/user/$uid"
at_exit "rm -rf '$rund' '/run/user/$uid'"
listen() {
	python3 -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
a = sys.argv[1]
if a.startswith("@"):
    s.bind("\0" + a[1:])
else:
    s.bind(a); os.chmod(a, 0o777)
s.listen(8)
print("up", flush=True)
while True:
    c, _ = s.accept()
    try:
        c.sendall(b"canary\n")
    except OSError:
        pass  # a peer that closed first (the sandbox closes inherited fds)
    c.close()
' "$1" &
	at_exit "kill $! 2>/dev/null"
}
listen "$rund/canary.sock" > "$rund/up1"
listen "/run/user/$uid/bus" > "$rund/up2"
listen "@aisbt-esc-canary" > "$rund/up3"
for _ in $(seq 1 50); do
	[ -s "$rund/up1" ] && [ -s "$rund/up2" ] && [ -s "$rund/up3" ] && break
	sleep 0.1
done
chown "$u" "/run/user/$uid/bus"
# connect ADDR: prints what the socket says, or the error.
cat > "$SESS_TOP/$u/project/conn.py" <<'PY'
import socket, sys
a = sys.argv[1]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect("\0" + a[1:] if a.startswith("@") else a)
    print(s.recv(64).decode().strip())
except OSError as e:
    print("refused", e.strerror)
PY
chmod 0644 "$SESS_TOP/$u/project/conn.py"
c() { echo "python3 /project/conn.py $1"; }
hc() { as "$u" python3 "$SESS_TOP/$u/project/conn.py" "$1"; }

is "$(hc "$rund/canary.sock")" canary "host twin: the user reaches the /run canary socket"
like "$(r "$(c "$rund/canary.sock")")" "^refused" "inside: the /run canary socket is unreachable"
is "$(hc "/run/user/$uid/bus")" canary "host twin: the user reaches its /run/user/$uid/bus"
like "$(r "$(c "/run/user/$uid/bus")")" "^refused" "inside: /run/user/$uid/bus is unreachable"
is "$(r 'ls -A /run; ls -d /run/user 2>/dev/null; echo end')" "end" "inside: /run is empty, no /run/user"
is "$(r 'readlink /var/run; ls -A /var/run/; echo end')" "$(printf '/run\nend')" "inside: /var/run is the same empty /run"
like "$(r "$(c /run/dbus/system_bus_socket); $(c /var/run/dbus/system_bus_socket)" | tr '\n' ' ')" "^refused.*refused" \
    "inside: the D-Bus system bus path does not connect"
is "$(hc @aisbt-esc-canary)" canary "host twin: the user reaches the host's abstract canary socket"
like "$(r "$(c @aisbt-esc-canary)")" "^refused" "inside: the host's abstract socket is unreachable (new netns)"
is "$(r 'grep -c aisbt-esc /proc/net/unix')" 0 "inside: /proc/net/unix does not list the host's sockets"
like "$(grep -c aisbt-esc /proc/net/unix)" "^[1-9]" "host twin: the host's /proc/net/unix lists them"
# Twin: sockets made inside work, path and abstract.
out=$(r 'python3 -c "
import socket, os
for a in (\"/tmp/in.sock\", \"\0esc-inside\"):
    l = socket.socket(socket.AF_UNIX); l.bind(a); l.listen(1)
    c = socket.socket(socket.AF_UNIX); c.connect(a)
    s, _ = l.accept(); s.sendall(b\"x\"); print(\"in-ok\", c.recv(1).decode())
"')
is "$out" "$(printf 'in-ok x\nin-ok x')" "inside, twin: a session's own path and abstract sockets work"

# Inherited descriptors: the caller holds a socket connected to the
# canary (fd 5) and the master of a new pty (fd 6) and starts a session.
out=$(as "$u" python3 -c '
import os, pty, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
m, sl = pty.openpty()
os.dup2(s.fileno(), 5, inheritable=True); os.dup2(m, 6, inheritable=True)
os.dup2(sl, 7, inheritable=True)
os.execv(sys.argv[2], [sys.argv[2], "--config", sys.argv[3], "-c",
    "ls /proc/$$/fd >/tmp/fds; tr \"\\n\" \" \" </tmp/fds; for f in 5 6 7; do [ -e /dev/fd/$f ] && echo has-$f; done; echo"])
' "$rund/canary.sock" "$AISB_SHELL" "$conf" 2>&1)
is "$out" "0 1 2 " "inside: a socket, a pty master and a pty slave of the caller are not inherited"
out=$(as "$u" python3 -c '
import os, pty, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
m, sl = pty.openpty()
os.dup2(s.fileno(), 5, inheritable=True); os.dup2(m, 6, inheritable=True)
os.execv("/bin/sh", ["sh", "-c", "ls /proc/$$/fd | tr \"\\n\" \" \""])
' "$rund/canary.sock" 2>&1)
like "$out" "5 6" "host twin: without the sandbox the same descriptors are inherited"

done_testing
