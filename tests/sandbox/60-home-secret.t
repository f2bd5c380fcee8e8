#!/bin/bash
# home.path and env.secret: a persistent home that is not the real one;
# secrets that only a safe file may provide and no message ever shows.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
sess_user tsbx6
hdir=$SESS_TOP/home-tsbx6
sdir=$SESS_TOP/secrets-tsbx6
install -d -m 0700 -o tsbx6 -g tsbx6 "$hdir"
install -d -m 0755 "$sdir"
at_exit "rm -rf '$hdir' '$sdir'"
secret="sbx-secret-value-$$-$RANDOM"
printf '%s\n' "$secret" > "$sdir/tok"
chown root:tsbx6 "$sdir/tok"; chmod 0640 "$sdir/tok"
conf=$(sess_conf home "home { path = \"$hdir\" }" \
    "env { secret SBX_TOKEN { file = \"$sdir/tok\" } }")
install -d -m 0700 -o tsbx6 -g tsbx6 /home/tsbx6/.ssh
echo "ssh-ed25519 AAAAsbxcanary" > /home/tsbx6/.ssh/authorized_keys

sess tsbx6 "$conf" -c 'echo kept > ~/state'
is "$(cat "$hdir/state" 2>&1)" "kept" "home.path is the home inside (written through)"
is "$(sess tsbx6 "$conf" -c 'cat ~/state; echo $HOME')" "$(printf 'kept\n/home/tsbx6')" \
    "the home persists across sessions, at the passwd home path"
is "$(sess tsbx6 "$conf" -c 'ls -A /home; getent passwd tsbx6 | cut -d: -f6')" \
    "$(printf 'tsbx6\n/home/tsbx6')" "/home holds only the agent's own home, as passwd says"
is "$(sess tsbx6 "$conf" -c 'ls -A ~/.ssh 2>&1 | head -c 0; test -e ~/.ssh/authorized_keys && echo visible || echo hidden')" \
    "hidden" "the real home's authorized_keys is not visible"

# Compared by hash: the value itself is redacted on its way out
# (tests/sandbox/65-redact.t).
is "$(sess tsbx6 "$conf" -c 'printf %s "$SBX_TOKEN" | sha256sum')" \
    "$(printf %s "$secret" | sha256sum)" \
    "a secret from a safe file reaches the environment (newline dropped)"

chmod 0644 "$sdir/tok"
out=$(sess tsbx6 "$conf" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "a secret file readable by other: 78"
like "$out" "$sdir/tok" "the error names the file"
unlike "$out" "$secret" "the error never shows the value"
chmod 0640 "$sdir/tok"
chown tsbx1 "$sdir/tok" 2>/dev/null || chown nobody "$sdir/tok"
out=$(sess tsbx6 "$conf" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "a secret file owned by another user: 78"
unlike "$out" "$secret" "that error never shows the value either"
chown root:tsbx6 "$sdir/tok"
mv "$sdir/tok" "$sdir/tok.gone"
out=$(sess tsbx6 "$conf" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "a missing secret file: 78"
mv "$sdir/tok.gone" "$sdir/tok"
is "$(sess tsbx6 "$conf" -c 'echo ran')" "ran" "with the file back it runs"

rmdir "$hdir" 2>/dev/null || rm -rf "$hdir"
out=$(sess tsbx6 "$conf" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "a missing home.path: 78"
like "$out" "$hdir" "the error names it"
install -d -m 0700 -o root -g root "$hdir"
out=$(sess tsbx6 "$conf" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "a home.path not owned by the agent: 78"
conf2=$(sess_conf home2 'home { path = "%h" }')
out=$(sess tsbx6 "$conf2" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "home.path = the real passwd home: 78"
conf3=$(sess_conf home3 'home { path = "tmpfs" }')
is "$(sess tsbx6 "$conf3" -c 'echo t > ~/f && cat ~/f && ls -A ~')" "$(printf 't\nf')" \
    "home \"tmpfs\" is an empty writable home"

done_testing
