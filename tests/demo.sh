#!/bin/bash
# tests/demo.sh: what `make demo` shows: a real sandboxed session of an
# unprivileged user, with proof of what it can and cannot do.
#
# As root it creates the user "aisbdemo" (kept for the next run; remove it
# with `userdel -r aisbdemo`), a root-owned policy under /srv/aisb-demo
# and the project /srv/aisb-demo/aisbdemo/project.
set -eu
: "${BUILD:=$(cd "$(dirname "$0")/.." && pwd)/build}"
shell="$BUILD/bin/aisb-shell"
user=aisbdemo
top=/srv/aisb-demo
echo "== aisb-shell --version"
"$shell" --version
if [ "$(id -u)" != 0 ]; then
	echo "demo: run as root (it creates the user '$user' and a root-owned"
	echo "      policy), e.g. sudo make demo"
	exit 1
fi
if ! id "$user" >/dev/null 2>&1; then
	echo "== creating the unprivileged user $user"
	useradd -m -s /bin/bash "$user"
fi
install -d -m 0755 -o root -g root "$top" "$top/conf"
install -d -m 0755 -o "$user" -g "$user" "$top/$user" "$top/$user/project"
conf=$top/conf/aisb.conf
cat > "$conf" <<CONF
# The demo's policy: the defaults, with this tree as the project root,
# no network (no gate needed) and no cgroup limits (they need pam_aisb's
# delegation, which a plain setpriv call does not have).
project {
  path = "$top/%u/project"
  roots = {"$top/%u"}
}
home { path = "tmpfs" }
network { mode = "none" }
limits { memory = 0  pids = 0  cpu = "0%" }
CONF
chmod 0644 "$conf"
rm -f "$top/$user/project/hello.txt"

run() {
	(cd / && env -i PATH=/usr/local/bin:/usr/bin:/bin TERM="${TERM:-dumb}" \
	    setpriv --reuid="$user" --regid="$user" --init-groups \
	    "$shell" --config "$conf" -c "$1") </dev/null
}

echo "== id, inside"
run 'id; echo "hostname: $(hostname)  cwd: $PWD  pid of this shell: $$"'
echo
echo "== the mount view, inside"
run 'findmnt -n -o TARGET,FSTYPE,OPTIONS | cut -c1-110'
echo
echo "== cat /etc/shadow (must be denied)"
run 'cat /etc/shadow' && echo "DEMO FAILED: /etc/shadow was readable" && exit 1
echo
echo "== ls -A /home; ls -d /root (nothing of the host: only the agent's own home)"
run 'ls -A /home; ls -d /root 2>&1' | grep -v '^/root$' || true
run 'test -e /root' && echo "DEMO FAILED: /root is in the view" && exit 1
echo
echo "== echo hello > /project/hello.txt, inside"
run 'echo "hello from the sandbox" > /project/hello.txt && ls -l /project/hello.txt'
echo "== on the host: $top/$user/project/hello.txt"
cat "$top/$user/project/hello.txt"
echo
echo "== touch /usr/evil (must fail)"
run 'touch /usr/evil' && echo "DEMO FAILED: /usr was writable" && exit 1
[ ! -e /usr/evil ] && echo "(and /usr/evil does not exist on the host)"
echo
echo "== capabilities and seccomp of the shell inside"
run 'grep -E "^(Cap(Eff|Prm|Bnd|Amb)|NoNewPrivs|Seccomp):" /proc/self/status'
echo
echo "== exit status 42 comes back"
set +e
run 'exit 42'
echo "status: $?"
