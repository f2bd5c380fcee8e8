#!/bin/bash
# The shell forms aisb-shell accepts, exit statuses, refusals, and a binary
# stdin round trip.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
sess_user tsbx1
conf=$(sess_conf inv)

# Refusals come first: nothing may run for them.
out=$("$AISB_SHELL" --config "$conf" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "uid 0 is refused with 78"
like "$out" "root" "the refusal says why"
unlike "$out" "^ran" "nothing ran for uid 0"

out=$(sess tsbx1 "$conf" -c 'echo ran' 2>&1); rc=$?
is "$rc" 0 "the agent's session runs (twin of the uid 0 refusal)"
is "$out" "ran" "-c CMD runs CMD"

# Every form, each proving it reached the inner bash in that form.
is "$(sess tsbx1 "$conf" -c 'echo "$0|$1|$2"' zero one two)" "zero|one|two" \
    "-c CMD ARG0 ARGS passes \$0 and the arguments"
is "$(sess tsbx1 "$conf" -l -c 'shopt -q login_shell && echo login')" "login" \
    "-l makes the inner shell a login shell"
is "$(as tsbx1 bash -c 'exec -a -aisb-shell "$0" --config "$1" -c "shopt -q login_shell && echo login"' "$AISB_SHELL" "$conf")" \
    "login" "argv[0] '-name' makes the inner shell a login shell"
is "$(sess tsbx1 "$conf" -c 'shopt -q login_shell && echo login || echo plain')" \
    "plain" "without -l or '-name' the inner shell is not a login shell"
is "$(echo 'echo "[$-]"' | sess tsbx1 "$conf" -i 2>/dev/null | tr -d '\n' | grep -o '\[[a-zA-Z]*\]' | grep -c i)" \
    "1" "-i makes the inner shell interactive"
is "$(printf 'echo from-stdin\necho "$1"\n' | sess tsbx1 "$conf" -s argone)" \
    "$(printf 'from-stdin\nargone')" "-s reads commands from stdin, with arguments"
is "$(printf 'echo script-on-stdin\nexit 5\n' | sess tsbx1 "$conf"; echo "rc=$?")" \
    "$(printf 'script-on-stdin\nrc=5')" "a script on stdin runs, its status comes back"
printf 'echo "file:$1"\n' > "$SESS_TOP/tsbx1/project/s.sh"
chown tsbx1: "$SESS_TOP/tsbx1/project/s.sh"
is "$(sess tsbx1 "$conf" s.sh a1)" "file:a1" \
    "a script file argument runs (resolved inside, from /project)"

# Exit statuses exactly, including death by a signal.
for st in 0 1 42; do
	sess tsbx1 "$conf" -c "exit $st"
	is "$?" "$st" "exit status $st comes back"
done
sess tsbx1 "$conf" -c 'kill -9 $$'
is "$?" 137 "death by SIGKILL comes back as 128+9"

# 10 MB of random bytes through stdin and stdout, byte for byte.
tmp=$(mktemp -d)
at_exit "rm -rf '$tmp'"
head -c 10M /dev/urandom > "$tmp/in"
sess tsbx1 "$conf" -c cat < "$tmp/in" > "$tmp/out"
is "$(sha256sum < "$tmp/out")" "$(sha256sum < "$tmp/in")" \
    "10 MB binary stdin round trip is byte-identical"

# --config FILE reads users.d/USER.conf next to FILE, as the admin forms.
install -d -m 0755 "$SESS_CONF_DIR/users.d"
echo 'hostname = "sbxperuser"' > "$SESS_CONF_DIR/users.d/tsbx1.conf"
chmod 0644 "$SESS_CONF_DIR/users.d/tsbx1.conf"
at_exit "rm -f '$SESS_CONF_DIR/users.d/tsbx1.conf'"
is "$(sess tsbx1 "$conf" -c hostname)" "sbxperuser" \
    "--config FILE: users.d/USER.conf next to it applies"
rm -f "$SESS_CONF_DIR/users.d/tsbx1.conf"
is "$(sess tsbx1 "$conf" -c hostname)" "aisb" "without it the default hostname"

# Policy problems: 78 with a reason, and nothing runs.
bad=$(sess_conf inv-bad 'no_such_key = 1')
out=$(sess tsbx1 "$bad" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "an invalid policy exits 78"
like "$out" "inv-bad.conf:[0-9]+" "the error names FILE:LINE"
unlike "$out" "^ran" "nothing ran under an invalid policy"

rm -rf "${SESS_TOP:?}/tsbx1/project"
out=$(sess tsbx1 "$conf" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "a missing project exits 78"
like "$out" "$SESS_TOP/tsbx1/project" "the error names the project path"
install -d -m 0755 -o tsbx1 -g tsbx1 "$SESS_TOP/tsbx1/project"
is "$(sess tsbx1 "$conf" -c 'echo ran')" "ran" "with the project back it runs"

done_testing
