#!/bin/bash
# PATH in the login forms: `su - agent` and an interactive ssh login run
# the inner shell as a login shell, which reads /etc/profile (and
# /etc/profile.d), and Debian's sets PATH for everyone.  The session's
# /etc/profile sets the session's PATH again at its end, so env.set's
# PATH holds there as in `aisb-shell -c`; without env.set PATH, the
# default one starts with the home's .local/bin, where per-user
# installers (pip install --user, native CLI installers) put programs.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
require_root
for c in sshd ssh tmux; do
	command -v "$c" >/dev/null || skip_all "$c not installed"
done
have_userns || skip_all "no unprivileged user namespaces"
[ -f /etc/profile ] || skip_all "this host has no /etc/profile to override"

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
SETPATH="/opt/aisbt-$R/bin:/usr/bin:/bin"
cat > "$T/aisb.conf" <<CONF
agents = {"${U1}", "${U2}"}
home { path = "$T/home/%u" }
project { path = "$T/proj/%u" }
network { mode = "none" }
limits { memory = "0"  pids = 0  cpu = "0%" }
CONF
chmod 0644 "$T/aisb.conf"
mkdir -p "$T/users.d"
# U1 sets PATH (with a quote in it: the profile line must quote it);
# U2 keeps the default.
cat > "$T/users.d/${U1}.conf" <<CONF
env { set += {"PATH=$SETPATH:/opt/it's"} }
CONF
chmod 0644 "$T/users.d/${U1}.conf"
test_shell
pam_group "$AG"
for u in ${U1} ${U2}; do
	tu_user "$u" && usermod -aG "$AG" -s "$TEST_SHELL" "$u"
done
install -d -m 0755 "$T/home" "$T/proj"
for u in ${U1} ${U2}; do
	install -d -o "$u" -m 0700 "$T/home/$u" "$T/proj/$u"
done
# A program where `pip install --user` would put one.
install -d -o ${U2} -m 0755 "$T/home/${U2}/.local" "$T/home/${U2}/.local/bin"
printf '#!/bin/sh\necho hello-from-local-bin\n' > "$T/home/${U2}/.local/bin/aisbt-hello"
chown ${U2} "$T/home/${U2}/.local/bin/aisbt-hello"
chmod 0755 "$T/home/${U2}/.local/bin/aisbt-hello"
# A host profile.d script that changes PATH, as packages' scripts do; it
# also marks that the login shell really read /etc/profile (the witness).
PD=/etc/profile.d/aisbt-pam-$R.sh
printf 'AISBT_PROFILE=read-%s; export AISBT_PROFILE\nPATH="/aisbt-profile-d:$PATH"\n' "$R" > "$PD"
at_exit "rm -f $PD"
sandbox_ready ${U1}
H2=$(getent passwd ${U2} | cut -d: -f6)

# su -, interactive: a login shell.  (`su - agent -c CMD` is one too
# with the real login shell, but not through the test wrapper, which
# keeps the login form only without arguments.)
tmux_run su1 "su - ${U1}; sleep 30"
ok "su -: a prompt" tmux_wait su1 '\$ *$'
tmux_keys su1 'echo "W=$AISBT_PROFILE"; echo "P=$PATH"; shopt -q login_shell && echo is-login' Enter
ok "su -: the login shell read /etc/profile and profile.d (witness)" tmux_wait su1 "^W=read-$R"
ok "su -: the inner shell is a login shell" tmux_wait su1 '^is-login'
ok "su -: env.set's PATH holds after /etc/profile" tmux_wait su1 "^P=$SETPATH:/opt/it's\$"
tmux_keys su1 'exit' Enter
tmux_run su2 "su - ${U2}; sleep 30"
ok "su - (default PATH): a prompt" tmux_wait su2 '\$ *$'
tmux_keys su2 'echo "W=$AISBT_PROFILE"; echo "P=$PATH"; aisbt-hello' Enter
ok "su - (default PATH): /etc/profile read" tmux_wait su2 "^W=read-$R"
ok "su - (default PATH): the home's .local/bin, then the system's" \
	tmux_wait su2 "^P=$H2/.local/bin:/usr/local/bin:/usr/bin:/bin\$"
ok "su -: a program in ~/.local/bin runs by name" tmux_wait su2 '^hello-from-local-bin'
tmux_keys su2 'exit' Enter
# The non-login form never read /etc/profile: the same PATH.
out=$(su ${U2} -c 'echo "P=$PATH"; aisbt-hello' 2>&1)
like "$out" "^P=$H2/.local/bin:/usr/local/bin:/usr/bin:/bin$" "su (no login): the same default PATH"
like "$out" "^hello-from-local-bin$" "su (no login): ~/.local/bin program runs"
# The host's /etc/profile is untouched; the view's is the host's plus the line.
unlike "$(cat /etc/profile)" "aisb:" "the host's /etc/profile is not changed"
is "$(su ${U1} -c 'head -n 1 /etc/profile' 2>&1)" "$(head -n 1 /etc/profile)" \
	"the view's /etc/profile starts as the host's"
out=$(su ${U1} -c 'tail -n 2 /etc/profile' 2>&1)
like "$out" "^PATH='$SETPATH:/opt/it'\\\\''s'$" "the view's /etc/profile ends by setting the session's PATH, quoted"

# Interactive ssh: a login shell too.
ssh_key ${U1}
sshd_start || { fail "sshd starts"; cat "$T/sshd.log" >&2; done_testing; exit 1; }
tmux_run ssh "ssh ${SSH_OPTS[*]} -tt -i $T/key-${U1} -p $SSHD_PORT ${U1}@127.0.0.1; sleep 30"
ok "ssh -tt: a prompt" tmux_wait ssh '\$ *$'
tmux_keys ssh 'echo "W=$AISBT_PROFILE"; echo "P=$PATH"' Enter
ok "ssh -tt: the login shell read /etc/profile (witness)" tmux_wait ssh "^W=read-$R"
ok "ssh -tt: env.set's PATH holds" tmux_wait ssh "^P=$SETPATH:/opt/it's\$"
tmux_keys ssh 'exit' Enter

done_testing
