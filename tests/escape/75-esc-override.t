#!/bin/bash
# Per-user overrides the agent could write: a users.d/USER.conf
# owned by the agent, or in a directory the agent owns, refuses the
# session (78) instead of applying it; admin options cannot be smuggled
# through the command of a login shell (sshd and su run `shell -c CMD`).
# Twins: a root-owned override applies; a plain -c command runs.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" esc --helpers
exec </dev/null
sess_require
u=tesc6
sess_user "$u"
# A config directory of its own, with users.d next to the config file.
cdir=$SESS_TOP/ov
rm -rf "$cdir"
install -d -m 0755 "$cdir" "$cdir/users.d"
at_exit "rm -rf '$cdir'"
conf=$cdir/aisb.conf
cp "$(sess_conf ov-base)" "$conf"
chmod 0644 "$conf"
ov=$cdir/users.d/$u.conf
run() { as "$u" env ESC_OV=arrived "$AISB_SHELL" --config "$conf" -c 'echo "ran ${ESC_OV:-absent}"' 2>&1; echo "rc=$?"; }

echo 'env { pass = {"ESC_OV"} }' > "$ov"
chmod 0644 "$ov"
like "$(run)" "ran arrived" "twin: a root-owned users.d/$u.conf applies (env.pass)"

chown "$u" "$ov"
out=$(run)
unlike "$out" "^ran" "users.d/$u.conf owned by the agent: no session"
like "$out" "rc=78" "... exit 78 (policy unsafe)"
like "$out" "owned by uid $(id -u "$u")" "... and says why"

chown root "$ov"
chmod 0666 "$ov"
out=$(run)
like "$out" "rc=78" "users.d/$u.conf writable by others: 78"
chmod 0644 "$ov"

chown "$u" "$cdir/users.d"
out=$(run)
unlike "$out" "^ran" "users.d owned by the agent (it could swap the file): no session"
like "$out" "rc=78" "... exit 78"
chown root "$cdir/users.d"
like "$(run)" "ran arrived" "twin: back to root-owned, the override applies again"

# Admin options as the command of a login shell: a word of the command,
# never an option of aisb-shell.  The loose policy binds a directory of
# the agent's (writable for it on the host, not visible in a session).
rm -f "$ov"
own=$SESS_TOP/$u/loose.conf
rw=$SESS_TOP/$u/rw
install -d -o "$u" -g "$u" "$rw"
printf 'filesystem { readwrite = {"%s"} }\n' "$rw" > "$own"
chown "$u" "$own"
out=$(as "$u" "$AISB_SHELL" --config "$conf" -c "--config $own -c 'touch $rw/esc-pwn'" 2>&1; echo "rc=$?")
ok "-c '--config FILE ...': no file was written through the loose policy" [ ! -e "$rw/esc-pwn" ]
like "$out" "^bash: --: invalid option$" "... the inner shell ran it as its command line, and refused it"
out=$(as "$u" bash -c "exec -a -aisb-shell '$AISB_SHELL' --config '$conf' -c 'echo login-ok'" 2>&1)
is "$out" "login-ok" "twin: the login form runs its command"

done_testing
