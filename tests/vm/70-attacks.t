#!/bin/bash
# The outside attacker's attacks for which the host matters, on this
# guest's real kernel, systemd, logind, Debian's stock sshd and PAM
# stacks, each with its legitimate twin and a witness that the session
# ran:
# - a line discipline (TIOCSETD) on the session's pty: N_GSM and N_HDLC
#   are refused (EPERM) and their modules stay unloaded, while TIOCGETD
#   and the terminal work; the control, the same ioctl by an unprivileged
#   process outside any sandbox, does load n_hdlc on this kernel;
# - the loader's variables through Debian's sshd: Debian's own pam_env
#   line (user_readenv=1) reading the agent's ~/.pam_environment
#   (LD_PRELOAD, LD_AUDIT) and AcceptEnv widened to the client's SetEnv
#   (LD_LIBRARY_PATH, GCONV_PATH): a control account whose login shell is
#   a dynamic program runs the marker library in the host; the agent's
#   login runs, its command gets the values unchanged and loads the marker
#   inside, and the marker never runs in the host's mount namespace
#   (--doctor's lines on the hole: tests/pam/65-pam-env.t);
# - the view: a top-level directory made on this host (/data) is not
#   visible inside, and is when filesystem.readonly names it;
#   `aisb-shell --jailcheck` in a session reports clean with the default
#   view (what it finds in a wider one: tests/escape/80-esc-jailcheck.t).
# Kept to three logins and one jailcheck walk: the lane's budget is under
# a minute per kernel under emulation; what needs no real host is tested
# on the build host by the files named.
# Everything the test changes (the PAM stack, sshd's configuration, the
# files and the control account) is put back at exit, as it was.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

vm_need_setup
H=$AISB_HELPERS
for f in "$H/libaisbt-marker.so" "$H/ldpath/libconfuse.so.2" "$H/envprobe"; do
	[ -e "$f" ] || skip_all "$f is not built"
done
command -v python3 >/dev/null || skip_all "no python3 in the guest (tests/vm/image.sh installs it)"
t_start=$(date +%s%N)
diag "kernel $(uname -r)"

L=/opt/aisbt-lib	# the marker; readwrite inside, at the same path
D=/data			# a top-level directory nobody listed
CTL=aisbtctl		# the control account: a dynamic login shell
PAMD=/etc/pam.d/sshd
DROPIN=/etc/ssh/sshd_config.d/aisb.conf
ACCEPT=/etc/ssh/sshd_config.d/00-aisbt-accept.conf
ENVS=(LD_PRELOAD LD_AUDIT LD_LIBRARY_PATH GCONV_PATH)
AGENT_HOME=$(getent passwd "$AGENT" | cut -d: -f6)

sshd_up() { timeout 2 bash -c '</dev/tcp/127.0.0.1/22' 2>/dev/null; }
cleanup() {
	users_d_clear
	[ -f "$VM_STATE/70-pamd" ] && cat "$VM_STATE/70-pamd" >"$PAMD" && rm -f "$VM_STATE/70-pamd"
	if [ -f "$VM_STATE/70-dropin" ] || [ -f "$ACCEPT" ]; then
		[ -f "$VM_STATE/70-dropin" ] && cat "$VM_STATE/70-dropin" >"$DROPIN" && rm -f "$VM_STATE/70-dropin"
		rm -f "$ACCEPT"
		systemctl reload ssh
		wait_for sshd_up
	fi
	rm -rf "$L" "$D" "$AGENT_HOME/.pam_environment" "$PROJECT/aisbt-ldisc.py"
}
at_exit cleanup
cleanup

# --- one login: TIOCSETD on its pty, the default view, jailcheck ---------------
# One script for both sides of TIOCSETD: "stdin" works on its own
# terminal (inside the session), "pty" opens a pty pair and works on the
# slave (the control outside).
cat >"$PROJECT/aisbt-ldisc.py" <<'PY'
import errno, fcntl, os, pty, struct, sys, termios
SETD, GETD = 0x5423, 0x5424
if sys.argv[1] == "pty":
    m, fd = pty.openpty()
else:
    fd = 0
    try:
        print("tty=%s" % os.ttyname(fd))
    except OSError:
        print("tty=? isatty=%d" % os.isatty(fd))
def getd():
    return struct.unpack("i", fcntl.ioctl(fd, GETD, struct.pack("i", -1)))[0]
print("getd=%d" % getd())
for n in (21, 13):
    try:
        fcntl.ioctl(fd, SETD, struct.pack("i", n))
        r = "ok"
    except OSError as e:
        r = errno.errorcode.get(e.errno, str(e.errno))
    print("setd %d=%s" % (n, r))
if sys.argv[1] == "pty":
    fcntl.ioctl(fd, SETD, struct.pack("i", 0))
print("getd=%d" % getd())
termios.tcsetattr(fd, termios.TCSANOW, termios.tcgetattr(fd))
print("tty-works")
PY
chown "$AGENT:" "$PROJECT/aisbt-ldisc.py"
install -d -m 0755 "$D"
echo data-canary >"$D/f"
chmod 0644 "$D/f"
mods() { local m; for m in n_gsm n_hdlc; do [ -e "/sys/module/$m" ] && echo "$m"; done; }
autoload=$(cat /proc/sys/dev/tty/ldisc_autoload 2>/dev/null || echo "?")
before=$(mods)
diag "dev.tty.ldisc_autoload=$autoload; loaded before: ${before:-none}"
# shellcheck disable=SC2016 # expanded inside the sandbox
out=$(agent_ssh -tt 'echo "session=$AISB_SESSION pid1=$(cat /proc/1/comm)";
	python3 /project/aisbt-ldisc.py stdin; cat /data/f 2>&1; ls -d /data 2>&1;
	aisb-shell --jailcheck; echo rc=$?' 2>&1 | tr -d '\r')
like "$out" 'session=[0-9a-f]+ pid1=aisb-shell-main' "ssh -tt: the command runs in an aisb session (witness)"
like "$out" '^tty=(/dev/pts/[0-9]+|\? isatty=1)$' "... on a pty"
like "$out" '^setd 21=EPERM$' "TIOCSETD N_GSM on the session's pty: EPERM"
like "$out" '^setd 13=EPERM$' "TIOCSETD N_HDLC on the session's pty: EPERM"
is "$(grep -c '^getd=0$' <<<"$out")" 2 "twin: TIOCGETD works, N_TTY before and after"
like "$out" '^tty-works$' "twin: the terminal still works (tcgetattr, tcsetattr, output)"
if [ -n "$before" ]; then
	skip "neither module loaded by the attempts" "present before the test: $before"
else
	is "$(mods)" "" "neither n_gsm nor n_hdlc was loaded by the attempts"
fi
unlike "$out" 'data-canary' "view: /data, made on this host, is not shown by default"
like "$out" 'ls: cannot access .*/data.*No such file' "view: ... not even its name"
like "$out" 'jailcheck: clean' "jailcheck in a default session: clean"
like "$out" 'ok +view: nothing outside the system set' "... nothing of the host outside the system set"
like "$out" 'ok +tty: TIOCSETD refused' "... the line discipline cannot be changed"
like "$out" '^rc=0$' "... exit 0"
[ "$_tap_failed" = 0 ] || diag "$out"
# The control: the same ioctl by an unprivileged process outside any
# sandbox reaches the kernel's autoload (the surface the denial closes).
if [ "$autoload" = 1 ] && [ -z "$before" ] && modinfo n_hdlc >/dev/null 2>&1; then
	out=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups python3 - pty <"$PROJECT/aisbt-ldisc.py" 2>&1)
	like "$out" '^setd 13=ok$' "control: outside, nobody sets N_HDLC on a pty"
	like "$(mods)" 'n_hdlc' "control: ... and the kernel loaded n_hdlc for it"
	diag "control: $(grep '^setd 21' <<<"$out") (n_gsm: $(modinfo -F filename n_gsm 2>&1)); loaded after: $(mods | tr '\n' ' ')"
	for m in n_gsm n_hdlc; do rmmod "$m" 2>/dev/null; done
else
	skip "control: outside, an unprivileged TIOCSETD loads n_hdlc" \
	    "ldisc_autoload=$autoload, modinfo n_hdlc: $(modinfo -F filename n_hdlc 2>&1)"
fi
rm -f "$PROJECT/aisbt-ldisc.py"
diag "TIOCSETD, view, jailcheck: $((($(date +%s%N) - t_start) / 1000000)) ms"

# --- the loader's variables through Debian's sshd --------------------------------
t=$(date +%s%N)
install -d -m 0755 "$L" "$L/ldpath" "$L/gconv"
cp "$H/libaisbt-marker.so" "$H/envprobe" "$L/"
cp "$H/ldpath/libconfuse.so.2" "$L/ldpath/"
printf 'module AISBT-MARKER// INTERNAL %s/libaisbt-marker 1\nmodule INTERNAL AISBT-MARKER// %s/libaisbt-marker 1\n' \
    "$L" "$L" >"$L/gconv/gconv-modules"
: >"$L/witness.log"
: >"$L/ldpath/witness.log"
chown -R "$AGENT:" "$L"
chmod 0666 "$L/witness.log" "$L/ldpath/witness.log"
hostmnt=$(readlink "/proc/$(systemctl show -P MainPID ssh)/ns/mnt")
wit() { cat "$L/witness.log" "$L/ldpath/witness.log"; }
wit_host() { wit | grep -F "mnt=$hostmnt "; }
wit_inside() { wit | grep -vF "mnt=$hostmnt "; }
wit_reset() { : >"$L/witness.log"; : >"$L/ldpath/witness.log"; }

# The values: pam_env brings two, the client's SetEnv the other two.
declare -A VAL HOW
VAL[LD_PRELOAD]=$L/libaisbt-marker.so HOW[LD_PRELOAD]=ctor
VAL[LD_AUDIT]=$L/libaisbt-marker.so HOW[LD_AUDIT]=audit
VAL[LD_LIBRARY_PATH]=$L/ldpath HOW[LD_LIBRARY_PATH]=ldpath
VAL[GCONV_PATH]=$L/gconv HOW[GCONV_PATH]=gconv
pamenv() {	# pamenv HOME: the file as the agent would write it
	printf 'LD_PRELOAD DEFAULT=%s\nLD_AUDIT DEFAULT=%s\n' "${VAL[LD_PRELOAD]}" "${VAL[LD_AUDIT]}" >"$1/.pam_environment"
}
setenv="-oSetEnv=LD_LIBRARY_PATH=${VAL[LD_LIBRARY_PATH]} GCONV_PATH=${VAL[GCONV_PATH]}"

# The host as an admin who undid part of the guide's step 6 and widened
# AcceptEnv would leave it: Debian's own pam_env line (user_readenv=1)
# back in sshd's stack, and the loader's names in AcceptEnv, the agents'
# Match block included.
cp -p "$PAMD" "$VM_STATE/70-pamd"
sed -i 's/^\(session[[:space:]].*pam_env\.so\)\(.*envfile=\/etc\/default\/locale\)$/\1 user_readenv=1\2/' "$PAMD"
like "$(grep -v '^#' "$PAMD")" 'pam_env\.so user_readenv=1' "sshd's stack reads ~/.pam_environment again (Debian's line)"
cp -p "$DROPIN" "$VM_STATE/70-dropin"
sed -i "s/^\([[:space:]]*AcceptEnv LANG LC_\*\)$/\1 ${ENVS[*]}/" "$DROPIN"
echo "AcceptEnv LANG LC_* ${ENVS[*]}" >"$ACCEPT"
systemctl reload ssh
wait_for sshd_up
tu_user "$CTL"
usermod -s "$L/envprobe" "$CTL"
CTL_HOME=$(getent passwd "$CTL" | cut -d: -f6)
install -d -m 0700 -o "$CTL" -g "$CTL" "$CTL_HOME/.ssh"
install -m 0600 -o "$CTL" -g "$CTL" "$AGENT_KEY.pub" "$CTL_HOME/.ssh/authorized_keys"

# Control: the same file and SetEnv for an account whose login shell is
# a dynamic program; the loader acts on all four, in the host.
pamenv "$CTL_HOME"
chown "$CTL:" "$CTL_HOME/.pam_environment"
wit_reset
out=$(timeout 120 ssh -i "$AGENT_KEY" -o BatchMode=yes -o StrictHostKeyChecking=no \
    -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR "$setenv" "$CTL@localhost" true 2>&1)
for v in "${ENVS[@]}"; do
	like "$out" "env\[[0-9]+\]=$v=${VAL[$v]}\$" "control: sshd put $v in the login shell's environment"
	like "$(wit_host)" "^${HOW[$v]} .*exe=$L/envprobe\$" "control: $v runs the marker in the host"
done

# The agent: the same file in its passwd home, the same SetEnv.
pamenv "$AGENT_HOME"
chown "$AGENT:" "$AGENT_HOME/.pam_environment"
# users.d: the guide's file, with env.pass naming the four (so the
# command shows what the outer was started with), the marker's
# directory shown inside, and /data named (the view's twin).
{
	echo 'env {'
	echo '	secret ANTHROPIC_API_KEY { file = "/etc/aisb/secrets/%u/anthropic" }'
	echo "	pass += {$(printf '"%s", ' "${ENVS[@]}" | sed 's/, $//')}"
	echo '}'
	echo "filesystem { readwrite = {\"$L\"}  readonly = {\"$D\"} }"
} >"/etc/aisb/users.d/$AGENT.conf"
wit_reset
# shellcheck disable=SC2016
out=$(agent_ssh "$setenv" 'echo "session=$AISB_SESSION pid1=$(cat /proc/1/comm)";
	for v in '"${ENVS[*]}"'; do printf "%s=%s\n" $v "$(printenv $v)"; done; '"$L"'/envprobe >/dev/null;
	cat /data/f; touch /data/x 2>/dev/null && echo data-writable; echo done' 2>&1)
like "$out" 'session=[0-9a-f]+ pid1=aisb-shell-main' "agent: the login runs its command in an aisb session"
for v in "${ENVS[@]}"; do
	like "$out" "^$v=${VAL[$v]}\$" "agent: $v reached the command inside, unchanged"
	like "$(wit_inside)" "^${HOW[$v]} " "agent: inside, $v loads the marker (on purpose)"
done
like "$out" '^done$' "agent: the command ran to its end"
is "$(wit_host)" "" "agent: the marker never ran in the host's mount namespace"
[ -z "$(wit_host)" ] || diag "$(wit_host)"
like "$out" '^data-canary$' "view, twin: named in filesystem.readonly, /data is shown"
unlike "$out" 'data-writable' "... read-only"
diag "loader, view twin: $((($(date +%s%N) - t) / 1000000)) ms"

diag "70-attacks: $((($(date +%s%N) - t_start) / 1000000)) ms on $(uname -r)"

done_testing
