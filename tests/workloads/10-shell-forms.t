#!/bin/bash
# The ways agent harnesses call their shell, each run against a gated
# session of a test user with the test internet behind it: Claude Code
# style `-c 'bash -l -c "cmd"'` (and `-c -l CMD`, its spawn order), `-lc`,
# a script on stdin, `-s ARGS`, a command with quotes, newlines and
# non-ASCII, 100 KB of arguments and a 100 KB script; SHELL is bash inside
# and the proxy settings survive a login shell's profile.
# shellcheck disable=SC2016 # commands for the session, expanded there
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
# shellcheck source=tests/workloads/lib.sh
. "$(dirname "$0")/lib.sh"
wl_setup 1
CONF=$(wl_conf base)
sh_() { as "$U" "$AISB_SHELL" --config "$CONF" "$@" 2>&1; }

# --- Claude Code: aisb-shell -c 'bash -l -c "CMD"'
out=$(s 'bash -l -c "echo \$SHELL; shopt -q login_shell && echo login; curl -sS --max-time 10 http://origin.test/"')
is "$out" "/bin/bash
login
aisb-origin ok" "-c 'bash -l -c \"cmd\"': SHELL is bash, a login bash, the network works"
out=$(sh_ -c -l 'shopt -q login_shell && echo login; echo "$HTTPS_PROXY"; curl -sS --max-time 10 https://origin.test/' </dev/null)
is "$out" "login
http://127.0.0.1:3128
aisb-origin ok" "-c -l CMD (the harness spawn order): a login shell, proxy kept through /etc/profile"
out=$(sh_ -lc 'echo "$SHELL"; shopt -q login_shell && echo login; curl -sS --max-time 10 http://api.example.test/' </dev/null)
is "$out" "/bin/bash
login
aisb-origin ok" "-lc CMD"
out=$(sh_ -c 'echo "$0|$1|$2"' name 'a b' c </dev/null)
is "$out" "name|a b|c" "-c CMD ARG0 ARGS: positional parameters as given"

# --- scripts on stdin (what ssh HOST with a piped command, or a harness
# writing to the shell's stdin, does)
out=$(printf 'echo from-stdin\ncurl -sS --max-time 10 http://origin.test/\necho "$SHELL"\n' |
	sh_)
is "$out" "from-stdin
aisb-origin ok
/bin/bash" "a script on stdin"
out=$(printf 'echo "stdin-s:$#:$1:$2"\n' | sh_ -s 'x y' z)
is "$out" "stdin-s:2:x y:z" "-s ARGS with the script on stdin"

# --- awkward text: quotes, newlines, non-ASCII, a glob, a backslash
weird="it's \"quoted\" \$HOME \`x\` \\ * é ✓ 日本
second line	tab"
out=$(sh_ -c 'printf "%s" "$1"' x "$weird" </dev/null)
is "$out" "$weird" "an argument with quotes, newlines, tabs and UTF-8 arrives unchanged"
out=$(sh_ -c "cat <<'X'
$weird
X
echo \"ü=\$(printf 'ü' | od -An -tx1 | tr -d ' ')\"" </dev/null)
is "$out" "$weird
ü=c3bc" "the same text inside the command string, and UTF-8 bytes intact"
out=$(s "bash -l -c 'printf \"%s|\" \"it'\\''s\" \"a \\\"b\\\"\" \"ü\"'")
is "$out" "it's|a \"b\"|ü|" "nested quoting through -c and bash -l -c"

# --- size: 100 KB of arguments, a 100 KB command, a 100 KB script
big=$(head -c 76000 /dev/urandom | base64 -w0 | head -c 100000)
want=$(printf '%s' "$big" | sha256sum | cut -d' ' -f1)
out=$(sh_ -c 'printf %s "$1" | sha256sum | cut -d" " -f1; echo "$#"' x "$big" </dev/null)
is "$out" "$want
1" "a 100 KB argument arrives intact"
# shellcheck disable=SC2046
out=$(sh_ -c 'echo "$#"; printf %s "$*" | sha256sum | cut -d" " -f1' x $(seq 1 20000) </dev/null)
is "$out" "20000
$(seq 1 20000 | paste -sd' ' | tr -d '\n' | sha256sum | cut -d' ' -f1)" \
	"20000 arguments (108 KB) arrive intact"
cmd="v='$big'; printf %s \"\$v\" | sha256sum | cut -d' ' -f1"
is "$(sh_ -c "$cmd" </dev/null)" "$want" "a 100 KB single command (-c)"
is "$(printf '%s\n' "$cmd" | sh_)" "$want" "a 100 KB single command on stdin"

# --- exit status, stderr and stdout kept apart
out=$(as "$U" "$AISB_SHELL" --config "$CONF" -c 'echo out; echo err >&2; exit 7' 2>/dev/null </dev/null)
rc=$?
is "$out|$rc" "out|7" "stdout alone, and the exit status comes back"
out=$(as "$U" "$AISB_SHELL" --config "$CONF" -c 'echo out; echo err >&2' 2>&1 >/dev/null </dev/null)
is "$out" "err" "stderr alone"
done_testing
