#!/bin/bash
# Secrets and the session's syslog record: a secret in the command line,
# in the caller's environment or in a refused URL never reaches a log
# line, and the inside cannot write syslog records at all (no /dev/log).
# The session runs in a private mount namespace whose /dev/log is a test
# listener (tests/lib/syslog.sh; the host's is untouched).
# Twins: the record is written (start, end, the gate's decision), and a
# variable the policy passes does reach the inside.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" esc --helpers
# shellcheck source=tests/lib/syslog.sh
. "$(dirname "$0")/../lib/syslog.sh"
exec </dev/null
sess_require
command -v python3 >/dev/null || skip_all "python3 not installed"
u=tesc4
sess_user "$u"
secret="esc-secret-$$-$RANDOM$RANDOM"
conf=$(sess_conf log 'env { pass = {"ESC_PASSED"} }')
gconf=$(sess_conf glog 'network { mode = "gated"  allow = {"allowed.esc.test"}  resolver = "127.0.0.1" }')
log=$(mktemp)
at_exit "rm -f '$log'"
asu=(setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --init-groups
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$(getent passwd "$u" | cut -d: -f6)" USER="$u")

out=$(with_syslog "$log" "${asu[@]}" AWS_SECRET_ACCESS_KEY="$secret" GITHUB_TOKEN="$secret" \
    ESC_PASSED="passed-$secret" "$AISB_SHELL" --config "$conf" \
    -c "echo in:\$ESC_PASSED; env | grep -c '$secret-x'; : $secret; logger --socket-errors=on -t esc esc-forged-$secret; echo logger=\$?" 2>&1)
like "$(grep 'session start' "$log")" "user=$u" "twin: the session start is recorded"
like "$(grep 'session end' "$log")" "status=0" "twin: the session end is recorded"
like "$out" "in:passed-$secret" "inside, twin: a passed variable arrives"
unlike "$(cat "$log")" "$secret" "no secret (command line, caller environment, passed variable) in any log line"
unlike "$(cat "$log")" "esc-forged" "inside: logger cannot write to the host's syslog"
like "$out" "^logger=1$" "... logger fails (no /dev/log inside)"
out=$(with_syslog "$log" "${asu[@]}" "$AISB_SHELL" --config "$conf" -c 'ls -l /dev/log /run/systemd/journal/socket 2>&1' 2>&1)
unlike "$out" "^s" "inside: no syslog or journal socket"
with_syslog "$log" "${asu[@]}" logger -t esc "esc-host-twin" >/dev/null 2>&1
like "$(cat "$log")" "esc-host-twin" "host twin: the same user's logger reaches the listener"

# A refused session: the error names the problem, not the secret.
out=$(with_syslog "$log" "${asu[@]}" AISB_PROJECT="/etc/$secret" GITHUB_TOKEN="$secret" \
    "$AISB_SHELL" --config "$conf" -c 'echo ran' 2>&1)
unlike "$out" "^ran" "a refused AISB_PROJECT: no session"
unlike "$(grep -v AISB_PROJECT "$log")" "$secret" "... the caller's token is in no log line"

# Gated: a refused URL carrying a token in its path and query; the
# gate's record names the host and port, never the request line.
out=$(with_syslog "$log" "${asu[@]}" "$AISB_SHELL" --config "$gconf" \
    -c "curl -sS --max-time 5 -o /dev/null -w '%{http_code}' 'http://denied.esc.test/p/$secret?token=$secret' -H 'Authorization: Bearer $secret'" 2>&1)
if [[ $out == 403 ]]; then
	pass "gated twin: the refused request got its 403"
	like "$(cat "$log")" "deny proxy name=denied.esc.test" "gated twin: the gate recorded the refusal"
	unlike "$(cat "$log")" "$secret" "gated: no path, query or header secret in the gate's record"
else
	skip "gated twin: the refused request got its 403" "gated session: ${out:0:200}"
	skip "gated twin: the gate recorded the refusal" "no gated session"
	skip "gated: no path, query or header secret in the gate's record" "no gated session"
fi

done_testing
