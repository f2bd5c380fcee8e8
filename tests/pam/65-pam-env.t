#!/bin/bash
# What the agent writes does not configure the outer aisb-shell: pam_env's
# user_readenv (Debian's /etc/pam.d/sshd has it) reads ~/.pam_environment
# from the agent's passwd home, and sshd and su put what it sets into the
# login shell's environment.  Through a real sshd with the host's own PAM
# stack and through su, for LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH and
# GCONV_PATH:
# - control: the same .pam_environment for an account whose login shell
#   is a dynamic program (tests/helpers/envprobe, named aisb-shell) runs
#   the marker library in the host: the attack is real here;
# - the agent, whose login shell is a copy of the entry point: the login
#   happens (sshd logs it, the command runs inside the sandbox), the value
#   reaches the inner shell unchanged (env.pass names it) and loads the
#   marker there, and the marker never runs in the host's namespaces.
# su's stack has no user_readenv: this test adds one pam_env line naming
# a file only this run writes (user_envfile=.aisbt-pam.XXXXXX), under the
# lock tests/pam/55-sshd-pam.t uses, and takes it out (also a crashed
# run's, whose directory is gone).  The same for sshd if the host's stack
# lacks user_readenv.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
require_root
for c in sshd ssh su iconv; do
	command -v "$c" >/dev/null || skip_all "$c not installed"
done
have_userns || skip_all "no unprivileged user namespaces"
H=$AISB_HELPERS
MAIN=$BUILD/libexec/aisb/aisb-shell-main
for f in "$H/libaisbt-marker.so" "$H/ldpath/libconfuse.so.2" "$H/envprobe" "$H/cfgshell" "$MAIN"; do
	[ -e "$f" ] || skip_all "$f is not built"
done
for f in /etc/pam.d/sshd /etc/pam.d/su; do
	[ -f "$f" ] || skip_all "no $f"
done

T=$(pam_tmpdir)
at_exit "rm -rf $T"
hostmnt=$(readlink /proc/self/ns/mnt)
L=$T/lib
install -d -m 0755 "$L" "$L/ldpath" "$L/gconv"
cp "$H/libaisbt-marker.so" "$H/envprobe" "$L/"
cp "$H/ldpath/libconfuse.so.2" "$L/ldpath/"
printf 'module AISBT-MARKER// INTERNAL %s/libaisbt-marker 1\nmodule INTERNAL AISBT-MARKER// %s/libaisbt-marker 1\n' \
	"$L" "$L" > "$L/gconv/gconv-modules"
wit_reset() { : > "$L/witness.log"; : > "$L/ldpath/witness.log"; chmod 0666 "$L/witness.log" "$L/ldpath/witness.log"; }
wit() { cat "$L/witness.log" "$L/ldpath/witness.log"; }
wit_host() { wit | grep -F "mnt=$hostmnt exe="; }
wit_inside() { wit | grep -vF "mnt=$hostmnt exe="; }

cat > "$T/aisb.conf" <<CONF
agents = {"${U1}"}
home { path = "$T/home/%u" }
project { path = "$T/proj/%u" }
network { mode = "none" }
limits { memory = "0"  pids = 0  cpu = "0%" }
env { pass = {"TERM", "LANG", "AISBT_CANARY", "LD_PRELOAD", "LD_AUDIT",
              "LD_LIBRARY_PATH", "GCONV_PATH"} }
filesystem { readwrite = {"$L"} }
CONF
mkdir -p "$T/users.d"

# The agent's login shell: a copy of the entry point, and beside it
# cfgshell, which runs the build's aisb-shell-main with this policy.
install -d -m 0755 "$T/e/bin" "$T/e/libexec/aisb" "$T/c/bin"
cp "$AISB_SHELL" "$T/e/bin/aisb-shell"
cp "$H/cfgshell" "$T/e/libexec/aisb/aisb-shell-main"
printf '%s\n%s\n' "$MAIN" "$T/aisb.conf" > "$T/e/libexec/aisb/aisb-shell-main.args"
# The control's: a dynamic program in the same place.
cp "$H/envprobe" "$T/c/bin/aisb-shell"

pam_group "$AG"
tu_user ${U1} && usermod -aG "$AG" -s "$T/e/bin/aisb-shell" ${U1}
tu_user ${U2} && usermod -aG "$AG" -s "$T/c/bin/aisb-shell" ${U2}
install -d -m 0755 "$T/home" "$T/proj"
install -d -o ${U1} -m 0700 "$T/home/${U1}" "$T/proj/${U1}"
chown -R ${U1} "$L"
ssh_key ${U1}
ssh_key ${U2}

# --- the PAM stacks ---------------------------------------------------------
ENVFILE=.${T##*/}	# .aisbt-pam.XXXXXX: only this run writes it
pamd_lock() { exec 9>/run/aisbt-pam.pamd.lock && flock 9; }
pamd_unlock() { flock -u 9; exec 9>&-; }
pam_clean() {	# our lines, and those of runs whose directory is gone
	local f l d
	pamd_lock
	for f in /etc/pam.d/sshd /etc/pam.d/su; do
		while read -r l; do
			d=$(printf '%s\n' "$l" | sed -n "s#.*user_envfile=\\.\\(aisbt-pam\\.[A-Za-z0-9]*\\).*#$TAP_SCRATCH/\\1#p")
			[ -n "$d" ] || continue
			if [ "$d" = "$T" ] || [ ! -d "$d" ]; then
				grep -vxF "$l" "$f" > "$T/pam.tmp" && cat "$T/pam.tmp" > "$f"
			fi
		done < <(grep 'pam_env\.so .*user_envfile=\.aisbt-pam\.' "$f")
	done
	pamd_unlock
}
pam_clean
at_exit pam_clean
OURLINE="session optional pam_env.so readenv=0 conffile=/dev/null user_readenv=1 user_envfile=$ENVFILE"
# sshd: Debian's own line reads ~/.pam_environment; only without one
# (another distribution, an edited stack) does the test add its own.
if grep -Eq '^[[:space:]]*session[[:space:]].*pam_env\.so.*user_readenv=1' /etc/pam.d/sshd; then
	SSHD_ENVFILE=.pam_environment
	diag "sshd: the host's stack reads ~/.pam_environment: $(grep -E 'pam_env\.so.*user_readenv=1' /etc/pam.d/sshd)"
else
	SSHD_ENVFILE=$ENVFILE
	pamd_lock; echo "$OURLINE" >> /etc/pam.d/sshd; pamd_unlock
	diag "sshd: the host's stack has no user_readenv; added: $OURLINE"
fi
pamd_lock; echo "$OURLINE" >> /etc/pam.d/su; pamd_unlock

# envset USER FILE VAR=VALUE...: USER's own file in its passwd home, as
# the agent would write it (pam_env's "NAME DEFAULT=value" lines).
envset() {
	local u=$1 f=$2 home kv
	home=$(getent passwd "$u" | cut -d: -f6)
	shift 2
	for kv in "$@"; do printf '%s DEFAULT=%s\n' "${kv%%=*}" "${kv#*=}"; done > "$home/$f"
	chown "$u:" "$home/$f"
}
envclear() {
	local u home
	for u in ${U1} ${U2}; do
		home=$(getent passwd "$u" | cut -d: -f6)
		rm -f "$home/.pam_environment" "$home/$ENVFILE"
	done
}

sshd_start || { fail "sshd starts"; cat "$T/sshd.log" >&2; done_testing; exit 1; }

# Twin: the agent's own TERM and LANG still reach the inner shell.
out=$(LANG=C.UTF-8 TERM=xterm-aisbt sshc ${U1} -tt -o SendEnv=LANG -- 'cat /proc/1/comm; printenv LANG TERM' 2>&1 | tr -d '\r')
like "$out" "^aisb" "twin: ssh into the agent runs the command inside the sandbox"
is "$(sed -n 2,3p <<<"$out")" "C.UTF-8
xterm-aisbt" "twin: LANG (AcceptEnv) and TERM (the pty) reach the inner shell unchanged"

# One login per variable: CHECK is what runs inside the sandbox to load
# the marker there on purpose.
declare -A VAL CHECK HOW
VAL[LD_PRELOAD]=$L/libaisbt-marker.so;	CHECK[LD_PRELOAD]=true;		HOW[LD_PRELOAD]=ctor
VAL[LD_AUDIT]=$L/libaisbt-marker.so;	CHECK[LD_AUDIT]=true;		HOW[LD_AUDIT]=audit
VAL[LD_LIBRARY_PATH]=$L/ldpath;		CHECK[LD_LIBRARY_PATH]=$L/envprobe;	HOW[LD_LIBRARY_PATH]=ldpath
VAL[GCONV_PATH]=$L/gconv;		CHECK[GCONV_PATH]="iconv -f AISBT-MARKER -t UTF-8 </dev/null"; HOW[GCONV_PATH]=gconv

for v in LD_PRELOAD LD_AUDIT LD_LIBRARY_PATH GCONV_PATH; do
	# ssh, control.
	envclear
	envset ${U2} "$SSHD_ENVFILE" "$v=${VAL[$v]}" "AISBT_CANARY=canary-$v"
	wit_reset
	out=$(sshc ${U2} -- true 2>&1)
	like "$out" "env\[[0-9]+\]=$v=${VAL[$v]}" "ssh $v, control: pam_env put it in the login shell's environment"
	like "$(wit_host)" "^${HOW[$v]} .*exe=$T/c/bin/aisb-shell" \
		"ssh $v, control: a dynamic login shell runs the marker in the host"

	# ssh, the agent.
	envclear
	envset ${U1} "$SSHD_ENVFILE" "$v=${VAL[$v]}" "AISBT_CANARY=canary-$v"
	wit_reset
	out=$(sshc ${U1} -- "cat /proc/1/comm; printenv $v AISBT_CANARY; ${CHECK[$v]} >/dev/null 2>&1; echo done" 2>&1)
	like "$(grep -c "Accepted publickey for ${U1} " "$T/sshd.log")" "^[1-9]" "ssh $v: sshd let the agent in"
	is "$out" "$(printf 'aisb-shell-main\n%s\ncanary-%s\ndone' "${VAL[$v]}" "$v")" \
		"ssh $v: the command ran inside, and got the value pam_env set, unchanged"
	is "$(wit_host)" "" "ssh $v: the marker never ran outside the sandbox"
	like "$(wit_inside)" "^${HOW[$v]} " "ssh $v: inside, it does run (loaded on purpose)"

	# su, control and agent (su's stack with the added line).
	envclear
	envset ${U2} "$ENVFILE" "$v=${VAL[$v]}"
	wit_reset
	out=$(cd / && su ${U2} -c true 2>&1)
	like "$out" "env\[[0-9]+\]=$v=${VAL[$v]}" "su $v, control: pam_env put it in the shell's environment"
	like "$(wit_host)" "^${HOW[$v]} .*exe=$T/c/bin/aisb-shell" "su $v, control: the marker runs in the host"
	envclear
	envset ${U1} "$ENVFILE" "$v=${VAL[$v]}" "AISBT_CANARY=su-$v"
	wit_reset
	out=$(cd / && su ${U1} -c "cat /proc/1/comm; printenv $v AISBT_CANARY; ${CHECK[$v]} >/dev/null 2>&1; echo done" 2>&1)
	is "$out" "$(printf 'aisb-shell-main\n%s\nsu-%s\ndone' "${VAL[$v]}" "$v")" \
		"su $v: ran inside with the value unchanged"
	is "$(wit_host)" "" "su $v: the marker never ran outside the sandbox"
	like "$(wit_inside)" "^${HOW[$v]} " "su $v: inside, it does run"
done

# --doctor fails on both halves of the hole: a stack of the agent's
# services that reads a file in its home, and such a file.
envclear
envset ${U1} .pam_environment "LD_PRELOAD=$L/libaisbt-marker.so"
doc() { "$AISB_SHELL" --config "$1" --user ${U1} --doctor 2>&1; }
out=$(doc "$T/aisb.conf")
like "$out" "^fail: pam env\[${U1}\]: the sshd stack reads the agent's ~/$SSHD_ENVFILE " \
	"doctor: fails on the sshd stack's pam_env user_readenv=1"
like "$out" "^fail: pam env\[${U1}\]: the su stack reads the agent's ~/$ENVFILE \(/etc/pam.d/su: session pam_env.so user_readenv=1\)" \
	"doctor: fails on the su stack's (this test's line, with its user_envfile)"
like "$out" "^fail: env file\[${U1}\]: /home/${U1}/.pam_environment exists" "doctor: fails on a .pam_environment in the passwd home"
envclear
out=$(doc "$T/aisb.conf")
like "$out" "^ok: env file\[${U1}\]: no /home/${U1}/.pam_environment" "doctor, twin: no such file, ok"
# Twin: an agent whose services' stacks do not read its home.
install -d -m 0755 "$T/c2/users.d"
sed 's/^agents = .*/&\npam { services = {"'"$SP"'-noenv"} }/' "$T/aisb.conf" > "$T/c2/aisb.conf"
chmod 0644 "$T/c2/aisb.conf"
pam_service "$SP-noenv" "session optional pam_env.so readenv=0" "session optional pam_permit.so"
out=$(doc "$T/c2/aisb.conf")
like "$out" "^ok: pam env\[${U1}\]: no PAM stack of the agent reads a file in its home" \
	"doctor, twin: services whose stacks do not read it, ok"
unlike "$out" "^fail: (pam env|env file)" "doctor, twin: no fail line about it"

# su -l: a login (su clears most of the environment, then pam_env adds).
envclear
envset ${U1} "$ENVFILE" "LD_PRELOAD=$L/libaisbt-marker.so"
wit_reset
out=$(cd / && su - ${U1} -c 'cat /proc/1/comm; printenv LD_PRELOAD' 2>&1)
is "$out" "aisb-shell-main
$L/libaisbt-marker.so" "su - LD_PRELOAD: ran inside with the value"
is "$(wit_host)" "" "su - LD_PRELOAD: the marker never ran outside the sandbox"
envclear

done_testing
