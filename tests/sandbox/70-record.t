#!/bin/bash
# The session record in syslog: one start line, one end line, with the
# same id as AISB_SESSION inside; a secret value never appears in it.
# syslog goes to a listener on /dev/log in a private mount namespace
# (tests/lib/syslog.sh; the host's /dev/log, if any, is untouched).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
# shellcheck source=tests/lib/syslog.sh
. "$(dirname "$0")/../lib/syslog.sh"
exec </dev/null
sess_require
command -v python3 >/dev/null || skip_all "python3 missing"
sess_user tsbx7
sdir=$SESS_TOP/secrets-tsbx7
install -d -m 0755 "$sdir"
at_exit "rm -rf '$sdir'"
secret="sbx-record-secret-$$-$RANDOM"
printf '%s\n' "$secret" > "$sdir/tok"
chown root:tsbx7 "$sdir/tok"; chmod 0640 "$sdir/tok"
conf=$(sess_conf record "env { secret SBX_TOKEN { file = \"$sdir/tok\" } }")
log=$(mktemp); at_exit "rm -f '$log' '$log.out'"
# tap.sh's `as`, spelled out: a function does not cross into unshare.
as7=(setpriv --reuid="$(id -u tsbx7)" --regid="$(id -g tsbx7)" --init-groups
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/tsbx7 USER=tsbx7)

with_syslog "$log" "${as7[@]}" SSH_CONNECTION="198.51.100.7 5555 198.51.100.1 22" \
    "$AISB_SHELL" --config "$conf" -c 'echo "$AISB_SESSION"; exit 3' > "$log.out"
rc=$?
is "$rc" 3 "the session ran and its status came back"
id=$(cat "$log.out")
start=$(grep "session start" "$log")
end=$(grep "session end" "$log")
is "$(grep -c "session start" "$log")" 1 "one start line"
is "$(grep -c "session end" "$log")" 1 "one end line"
like "$start" "^<(8[0-9]|[0-9]{2,3})>" "logged with a priority (authpriv facility)"
like "$start" "id=$id user=tsbx7 uid=$(id -u tsbx7) " "start: the id of AISB_SESSION, user and uid"
like "$start" "project='$SESS_TOP/tsbx7/project' \\(project.path\\)" "start: the project and how it was chosen"
like "$start" "policy=[0-9a-f]{16} " "start: the policy hash"
like "$start" "peer=198.51.100.7:5555 " "start: the peer from SSH_CONNECTION"
like "$start" "form=command" "start: the shell form"
like "$end" "id=$id status=3 duration=[0-9]+\\.[0-9]{3}s" "end: the same id, status and duration"
unlike "$(cat "$log")" "$secret" "no secret value in the record"
grep -q "^<" "$log" || diag "log: $(cat "$log")"

# A hostile SSH_CONNECTION cannot forge record fields or lines.
with_syslog "$log" "${as7[@]}" SSH_CONNECTION=$'1.2.3.4 5 x\nsession end id=forged status=0' \
    AISB_PROJECT="$SESS_TOP/tsbx7/project" \
    "$AISB_SHELL" --config "$conf" -c 'exit 0' >/dev/null
unlike "$(cat "$log")" "id=forged" "a newline in SSH_CONNECTION cannot add a record line"
like "$(grep "session start" "$log")" "\\(AISB_PROJECT\\)" "AISB_PROJECT is named as the choice"

done_testing
