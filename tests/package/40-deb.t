#!/bin/bash
# The Debian package: builds with dpkg-buildpackage from the `make dist`
# tarball, is lintian clean, installs with apt, runs from the installed
# paths (--version, --doctor, a sandboxed `su - agent -c` session), and
# purges without leaving files behind but the agents' homes.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

require_root
skip_in_san
# One at a time machine-wide: the package, the test user and the PAM
# stacks are global, and `make check` may run in several trees at once.
exec {pkg_lock}>/run/aisb-tdoc-package.lock
flock -w 600 "$pkg_lock" || skip_all "another run of this test holds /run/aisb-tdoc-package.lock"
for c in dpkg-buildpackage dh lintian apt-get git; do
	command -v "$c" >/dev/null || skip_all "$c is missing (tests/deps.d/docs.txt)"
done
src=$AISB_SRC
git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1 ||
	skip_all "not a git checkout: make dist needs one"
[ -f "$src/etc/aisb/aisb.conf" ] ||
	skip_all "etc/aisb/aisb.conf is not on main yet (the package installs it)"
# Never clobber an aisb that is not ours: a package already installed, or
# files from `make install` that dpkg would silently overwrite and purge.
if dpkg-query -W -f='${Status}' aisb 2>/dev/null | grep -q 'ok installed'; then
	skip_all "the aisb package is already installed on this host"
fi
for f in /usr/bin/aisb-shell /etc/aisb /usr/libexec/aisb; do
	[ -e "$f" ] && skip_all "$f exists and is not from the package: refusing to overwrite it"
done
ver=$(sed -n 's/^#define AISB_VERSION[[:space:]]*"\(.*\)"/\1/p' "$src/lib/aisb.h")
arch=$(dpkg --print-architecture)
multi=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
user=tdoc1
tmp=$(mktemp -d)
chmod 0755 "$tmp"
at_exit "rm -rf '$tmp'"

# --- build ---------------------------------------------------------------
if make -s -C "$src" BUILD="$tmp" deb >"$tmp/build.log" 2>&1; then
	pass "dpkg-buildpackage -us -uc -b builds the package"
else
	fail "dpkg-buildpackage -us -uc -b builds the package" "$(tail -n 20 "$tmp/build.log")"
	done_testing; exit
fi
deb=$tmp/pkg/deb/aisb_${ver}_$arch.deb
ok "aisb_${ver}_$arch.deb exists" test -s "$deb"
list=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
has() { printf '%s\n' "$list" | grep -qxF "$1"; }
ok "it ships /usr/bin/aisb-shell" has /usr/bin/aisb-shell
ok "it ships /usr/libexec/aisb/aisb-shell-main (what the entry point runs)" \
    has /usr/libexec/aisb/aisb-shell-main
# Mode and owner as the package holds them: pam_aisb accepts the login
# shell only when it and its aisb-shell-main are root's alone.
perm() { dpkg-deb -c "$deb" | awk -v f="./${1#/}" '$6 == f || $6 == f "/" {print $1, $2}'; }
for f in /usr/bin/aisb-shell /usr/libexec/aisb/aisb-shell-main; do
	is "$(perm "$f")" "-rwxr-xr-x root/root" "in the package, $f is root's, 0755"
done
is "$(perm /usr/libexec/aisb)" "drwxr-xr-x root/root" "in the package, /usr/libexec/aisb/ is root's, 0755"
if compgen -G "$src/gate/*.c" >/dev/null; then
	ok "it ships /usr/libexec/aisb/aisb-gate" has /usr/libexec/aisb/aisb-gate
else
	skip "it ships /usr/libexec/aisb/aisb-gate" "gate/ is not on main yet"
fi
if compgen -G "$src/pam/*.c" >/dev/null; then
	ok "it ships pam_aisb.so in /usr/lib/$multi/security" has "/usr/lib/$multi/security/pam_aisb.so"
else
	skip "it ships pam_aisb.so" "pam/*.c is not on main yet"
fi
for f in /etc/aisb/aisb.conf /etc/aisb/users.d/ \
    /usr/share/aisb/apparmor/abi4/usr.bin.aisb-shell /usr/share/aisb/apparmor/abi3/usr.bin.aisb-shell \
    /usr/share/man/man8/aisb-shell.8.gz \
    /usr/share/man/man5/aisb.conf.5.gz /usr/share/man/man8/pam_aisb.8.gz \
    /usr/share/doc/aisb/admin-guide.md.gz /usr/share/doc/aisb/threat-model.md.gz; do
	ok "it ships $f" has "$f"
done
# Every docs/*.md the guide links is in the package (as dh_compress
# leaves it: .md.gz, or .md when small).
# shellcheck disable=SC2013 # names without blanks
for f in $(grep -oE '\]\([a-z0-9_-]+\.md(#[^)]*)?\)' "$src/docs/admin-guide.md" |
    sed -E 's/^\]\(//; s/(#.*)?\)$//' | sort -u); do
	if has "/usr/share/doc/aisb/$f.gz" || has "/usr/share/doc/aisb/$f"; then
		pass "it ships docs/$f, which the guide links"
	else
		fail "it ships docs/$f, which the guide links" "not in /usr/share/doc/aisb"
	fi
done
if [ -f "$src/etc/aisb/users.d/example.conf.sample" ]; then
	ok "it ships the users.d example in /usr/share/doc/aisb/examples" \
	    has /usr/share/doc/aisb/examples/example.conf.sample
fi
if [ -f "$src/etc/ssh/sshd_config.d/aisb.conf" ]; then
	ok "it ships the sshd drop-in under /usr/share/aisb" has /usr/share/aisb/sshd_config.d/aisb.conf
else
	skip "it ships the sshd drop-in" "etc/ssh/sshd_config.d/aisb.conf is not on main yet"
fi
unlike "$list" '(^|[[:space:]])/etc/ssh/' "the sshd drop-in is not enabled (nothing in /etc/ssh)"
unlike "$list" '(^|[[:space:]])/etc/apparmor\.d/' \
    "no AppArmor profile in /etc/apparmor.d: postinst installs the variant this host parses"
if [ -f "$src/etc/pam.d/pam-configs.aisb" ]; then
	ok "it ships the pam-auth-update profile" has /usr/share/pam-configs/aisb
	prof=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/share/pam-configs/aisb 2>/dev/null)
	ok "the pam-auth-update profile is not enabled by default" grep -qx 'Default: no' <<<"$prof"
else
	skip "it ships the pam-auth-update profile" "etc/pam.d/pam-configs.aisb is not on main yet"
fi
for u in "$src"/etc/systemd/*.service; do
	[ -f "$u" ] || continue
	ok "it ships /lib/systemd/system/${u##*/}" has "/lib/systemd/system/${u##*/}"
	unit=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO "./lib/systemd/system/${u##*/}" 2>/dev/null)
	like "$unit" 'ExecStart=/usr/bin/aisb-shell ' "${u##*/} runs the packaged /usr/bin/aisb-shell"
done
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles > "$tmp/conffiles" 2>/dev/null
ok "/etc/aisb/aisb.conf is a conffile" grep -qx /etc/aisb/aisb.conf "$tmp/conffiles"

# --- lintian -------------------------------------------------------------
lint=$(lintian --fail-on error,warning "$tmp"/pkg/deb/aisb_"${ver}"_"$arch".changes 2>&1)
rc=$?
lint=$(printf '%s\n' "$lint" | grep -v 'running with root privileges')
if [ $rc -eq 0 ]; then
	pass "lintian: no error or warning"
	[ -n "$lint" ] && diag "lintian: $lint"
else
	fail "lintian: no error or warning" "$lint"
fi

# --- install -------------------------------------------------------------
cleanup() {
	rm -f /etc/aisb/users.d/$user.conf
	rm -rf /etc/aisb/secrets
	if dpkg-query -W -f='${Status}' aisb 2>/dev/null | grep -q 'ok installed\|config-files'; then
		DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 purge -y -qq aisb >/dev/null 2>&1
	fi
	rm -rf "/srv/agents/$user" "/var/lib/aisb/home/$user"
	rmdir /srv/agents /var/lib/aisb/home /var/lib/aisb 2>/dev/null
	true
}
at_exit cleanup
export DEBIAN_FRONTEND=noninteractive
if apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "$deb" >"$tmp/apt.log" 2>&1; then
	pass "apt-get install ./aisb_${ver}_$arch.deb"
else
	fail "apt-get install ./aisb_${ver}_$arch.deb" "$(tail -n 20 "$tmp/apt.log")"
	done_testing; exit
fi
files=$(dpkg -L aisb)
is "$(/usr/bin/aisb-shell --version)" "aisb-shell $ver" "/usr/bin/aisb-shell --version"
ok "the installed entry point has no program interpreter (static)" \
    bash -c "! readelf -lW /usr/bin/aisb-shell | grep -q INTERP"
out=$(/usr/libexec/aisb/aisb-shell-main --version 2>&1)
is "$?" 77 "the installed aisb-shell-main refuses to run on its own"
for f in /usr/bin/aisb-shell /usr/libexec/aisb/aisb-shell-main /usr/libexec/aisb; do
	is "$(stat -c '%U:%G %a' "$f" 2>&1)" "root:root 755" "installed: $f is root's, 0755"
done
is "$(stat -c '%U %a' /var/lib/aisb/home 2>&1)" "root 755" "postinst made /var/lib/aisb/home (root, 0755)"
is "$(stat -c '%U %a' /var/lib/aisb/sessions 2>&1)" "root 1733" "postinst made the session registry /var/lib/aisb/sessions (root, 1733)"
is "$(stat -c '%U %a' /etc/aisb/aisb.conf 2>&1)" "root 644" "/etc/aisb/aisb.conf is root's, 0644"

out=$(/usr/bin/aisb-shell --doctor 2>&1)
rc=$?
if grep -q 'not implemented' <<<"$out"; then
	skip "aisb-shell --doctor runs from the installed paths" "--doctor is not on main yet"
else
	ok "aisb-shell --doctor runs from the installed paths (exit $rc)" test $rc -eq 0 -o $rc -eq 1
	like "$out" '^(ok|warn|fail): ' "--doctor prints ok/warn/fail lines"
	diag "doctor: $(grep -c '^fail: ' <<<"$out") fail line(s) on this host"
fi
out=$(/usr/bin/aisb-shell --check-config 2>&1)
rc=$?
if grep -q 'not implemented' <<<"$out"; then
	skip "the installed /etc/aisb/aisb.conf passes --check-config" "--check-config is not on main yet"
else
	is "$rc" 0 "the installed /etc/aisb/aisb.conf passes --check-config"
fi

# --- one sandboxed session from the installed package ---------------------
# As docs/admin-guide.md says: the agent's login shell, its project, a
# per-user policy, and pam_aisb enabled with pam-auth-update (its session
# makes the sandbox home and the delegated cgroup that the default strict
# limits need).  The host's PAM files are saved first and restored if the
# package's prerm did not take pam_aisb out again.
tu_user "$user" >/dev/null
usermod -s /usr/bin/aisb-shell "$user"
install -d -m 0755 /srv/agents
install -d -m 0755 -o "$user" -g "$user" "/srv/agents/$user" "/srv/agents/$user/project"
# An agent by its own users.d file (no global group); no egress needed
# for the first session: the gate has its own tests.
printf 'agents = {"%s"}\nnetwork {\n\tmode = "none"\n}\n' "$user" > /etc/aisb/users.d/$user.conf
# A secret, as step 5 of the guide makes it.
install -d -m 0755 /etc/aisb/secrets
install -d -m 0750 -o root -g "$user" "/etc/aisb/secrets/$user"
( umask 027; printf '%s\n' 'tdoc-secret-value' > "/etc/aisb/secrets/$user/anthropic" )
chgrp "$user" "/etc/aisb/secrets/$user/anthropic"
printf 'env {\n\tsecret ANTHROPIC_API_KEY { file = "/etc/aisb/secrets/%%u/anthropic" }\n}\n' \
    >> /etc/aisb/users.d/$user.conf
chmod 0644 /etc/aisb/users.d/$user.conf
echo "from the host" > "/srv/agents/$user/project/canary"
mkdir -p "$tmp/pam-save/pam.d" "$tmp/pam-save/lib"
cp -a /etc/pam.d/common-* "$tmp/pam-save/pam.d/"
cp -a /var/lib/pam/. "$tmp/pam-save/lib/" 2>/dev/null
pam_restore() {
	if grep -qs pam_aisb /etc/pam.d/common-*; then
		cp -a "$tmp/pam-save/pam.d/." /etc/pam.d/
		cp -a "$tmp/pam-save/lib/." /var/lib/pam/
	fi
}
at_exit pam_restore
# The packaged unit template, as an instance for this agent, is a valid
# systemd unit that runs the installed aisb-shell.
unit=/lib/systemd/system/aisb-harness@.service
if [ ! -f "$unit" ]; then
	skip "systemd-analyze verify: the installed harness unit" "no unit template in the package"
elif ! command -v systemd-analyze >/dev/null; then
	skip "systemd-analyze verify: the installed harness unit" "systemd-analyze not installed"
else
	cp "$unit" "$tmp/aisb-harness@$user.service"
	out=$(systemd-analyze verify --man=no "$tmp/aisb-harness@$user.service" 2>&1)
	is "$?:$out" "0:" "systemd-analyze verify: the installed harness unit, instance $user"
fi
if pam-auth-update --enable aisb >"$tmp/pau.log" 2>&1 &&
    grep -q pam_aisb /etc/pam.d/common-account; then
	pass "pam-auth-update --enable aisb (the installed profile)"
else
	fail "pam-auth-update --enable aisb (the installed profile)" "$(cat "$tmp/pau.log")"
fi
ok "no sandbox home before the first login" test '!' -e "/var/lib/aisb/home/$user"

# shellcheck disable=SC2016 # expanded inside the sandbox
out=$(cd / && timeout 60 su - "$user" -c 'echo "session=$AISB_SESSION"; cat /project/canary;
	echo "home=$(ls -A /home | tr "\n" " ")"; echo "key=$ANTHROPIC_API_KEY"; echo "keysum=$(printf %s "$ANTHROPIC_API_KEY" | sha256sum | cut -c1-64)"; cat /etc/shadow >/dev/null 2>&1 && echo shadow-readable;
	touch /usr/aisb-x 2>/dev/null && echo usr-writable; echo made > /project/out; echo done' 2>&1)
rc=$?
sessions=yes
if grep -Eq 'not implemented|not built yet' <<<"$out"; then
	sessions=
	skip "a sandboxed su - $user -c session works" "sessions are not on main yet"
elif [ $rc -eq 77 ] && ! have_userns nobody; then
	sessions=
	skip "a sandboxed su - $user -c session works" "no unprivileged user namespaces here"
else
	is "$rc" 0 "su - $user -c CMD from the installed package exits 0"
	like "$out" 'session=[^[:space:]]+' "inside: AISB_SESSION is set"
	like "$out" 'from the host' "inside: the project is at /project"
	unlike "$out" 'shadow-readable|usr-writable' "inside: /etc/shadow unreadable, /usr read-only"
	like "$out" "home=$user \$" "inside: /home holds only the agent's own home"
	# Printed, the value reaches the caller only as the redaction
	# marker; its hash shows it is the file's.
	like "$out" "keysum=$(printf %s tdoc-secret-value | sha256sum | cut -c1-64)" \
		"inside: the env.secret is set from its file"
	like "$out" 'key=\[aisb: redacted ANTHROPIC_API_KEY\]$' "... and reaches the caller redacted"
	is "$(cat "/srv/agents/$user/project/out" 2>&1)" "made" "a write to /project shows on the host"
	is "$(stat -c '%U %a' "/var/lib/aisb/home/$user" 2>&1)" "$user 700" \
	    "pam_aisb made the sandbox home (the agent's, 0700)"
	[ $rc -eq 0 ] || diag "$out"
fi
if [ -n "$sessions" ]; then
	# The account phase: a shell that is not aisb-shell is refused.
	usermod -s /bin/bash "$user"
	out=$(cd / && timeout 30 su - "$user" -c 'echo unsandboxed' 2>&1)
	rc=$?
	ok "with pam_aisb, su to the agent with /bin/bash as shell is refused (status $rc)" \
	    test $rc -ne 0
	unlike "$out" 'unsandboxed' "and nothing ran"
	usermod -s /usr/bin/aisb-shell "$user"
fi

# A gated session needs the installed gate, found next to the installed
# aisb-shell (/usr/bin/../libexec/aisb/aisb-gate).  No traffic: only that
# it starts and the proxy is announced.
printf 'agents = {"%s"}\n' "$user" > /etc/aisb/users.d/$user.conf
if ! compgen -G "$src/gate/*.c" >/dev/null; then
	skip "a gated session starts the installed gate" "gate/ is not on main yet"
elif [ -z "$sessions" ]; then
	skip "a gated session starts the installed gate" "sessions do not run here (above)"
else
	# shellcheck disable=SC2016 # expanded inside the sandbox
	out=$(cd / && timeout 60 su - "$user" -c 'echo "proxy=$HTTPS_PROXY"' 2>&1)
	rc=$?
	is "$rc" 0 "a gated session from the installed package exits 0"
	like "$out" 'proxy=http://127\.0\.0\.1:[0-9]+' "and announces the installed gate's proxy"
	[ $rc -eq 0 ] || diag "$out"
fi
rm -f /etc/aisb/users.d/$user.conf
rm -rf /etc/aisb/secrets

had_home=
[ -d "/var/lib/aisb/home/$user" ] && had_home=yes
# pam_aisb's log: written by the su session above on a host without a
# syslog receiver; made here as pam_aisb makes it where one listens.
if [ -e /var/log/aisb/pam.log ]; then
	log_how="written by pam_aisb"
else
	log_how="made by the test"
	install -d -m 0700 /var/log/aisb && install -m 0600 /dev/null /var/log/aisb/pam.log
fi
# --- purge ---------------------------------------------------------------
if apt-get -o DPkg::Lock::Timeout=300 purge -y -qq aisb >"$tmp/purge.log" 2>&1; then
	pass "apt-get purge aisb"
else
	fail "apt-get purge aisb" "$(tail -n 20 "$tmp/purge.log")"
fi
left=
while read -r f; do
	[ -e "$f" ] || continue
	[ -d "$f" ] && continue	# shared directories such as /usr/bin
	left="$left $f"
done <<<"$files"
is "$left" "" "purge removes every file of the package"
for d in /etc/aisb /usr/libexec/aisb /usr/share/aisb /usr/share/doc/aisb; do
	ok "purge removes $d" test '!' -e "$d"
done
# Agent homes are the agents' data: they stay, and nothing else does.
rest=$(find /var/lib/aisb -mindepth 1 2>/dev/null | grep -Ev '^/var/lib/aisb/home(/[^/]+(/.*)?)?$' | tr '\n' ' ')
is "$rest" "" "purge leaves nothing under /var/lib/aisb but agent homes"
ok "purge removes pam_aisb's log /var/log/aisb ($log_how)" test '!' -e /var/log/aisb
if [ -n "$had_home" ]; then
	ok "the agent's home is kept" test -d "/var/lib/aisb/home/$user"
else
	ok "no agent home, no /var/lib/aisb/home" test '!' -e /var/lib/aisb/home -o -n "$(ls -A /var/lib/aisb/home 2>/dev/null)"
fi
# The cgroups aisb made (each hierarchy's "aisb", which the strict
# sessions above used) go, but for any a running session still holds
# (other runs on this host may have one).
cg_left=
for d in /sys/fs/cgroup/aisb /sys/fs/cgroup/*/aisb; do
	[ -d "$d" ] || continue
	busy=$(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null | head -n 1)
	[ -n "$busy" ] || cg_left="$cg_left $d"
done
is "$cg_left" "" "purge removes every aisb cgroup no process is in"
ok "the prerm took pam_aisb out of the PAM stacks" '!' grep -qs pam_aisb /etc/pam.d/common-account \
    /etc/pam.d/common-session /etc/pam.d/common-session-noninteractive
done_testing
