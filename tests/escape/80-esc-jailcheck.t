#!/bin/bash
# aisb-shell --jailcheck, the in-session audit (shell/jailcheck.c): it
# reports a default session clean, and it finds what a policy
# deliberately exposes (a host socket directory bound read-only;
# every host path outside the system set, as with the whole-root view)
# or what the session itself creates (an abstract socket).  Its twin is
# the same check run by the same user outside any sandbox: findings.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" esc --helpers
exec </dev/null
sess_require
u=tesc8
sess_user "$u"
# The program as a session sees it: a copy in the project (the build
# tree may lie under a hidden directory such as /root) of the entry
# point and of the aisb-shell-main it runs from ../libexec/aisb.
cp_shell() {	# cp_shell DIR: DIR/bin/aisb-shell and what it runs
	install -D -m 0755 "$AISB_SHELL" "$1/bin/aisb-shell"
	install -D -m 0755 "$BUILD/libexec/aisb/aisb-shell-main" "$1/libexec/aisb/aisb-shell-main"
}
cp_shell "$SESS_TOP/$u/project"
jc=/project/bin/aisb-shell
conf=$(sess_conf jc)

out=$(sess "$u" "$conf" -c "$jc --jailcheck; echo rc=\$?" 2>&1)
like "$out" "jailcheck: clean" "inside a default session: clean"
like "$out" "^rc=0$" "... exit 0"
unlike "$out" "FOUND" "... no finding"
like "$out" "ok +caps: CapEff 0+$" "... reports the capabilities"
like "$out" "ok +no_new_privs: 1" "... reports no_new_privs"
like "$out" "ok +seccomp: 2" "... reports seccomp"
like "$out" "ok +tty: TIOCSETD refused" "... a pty's line discipline cannot be changed"
like "$out" "ok +network: 169.254.169.254:80 unreachable" "... the metadata address is unreachable"
like "$out" "ok +walk: [0-9]+ entries" "... walked the filesystem"
like "$out" "ok +git: /project/.git/config cannot be created" "... a project without a repository: .git/config cannot be created"
like "$out" "ok +view: nothing outside the system set" "... nothing of the host outside the system set"

# A top-level host directory and file nobody listed: the whole-root view
# shows them and the check lists each; the default view has neither.
top=/aisbtest-$$-escj
rm -rf "$top" "$top.f"
install -d -m 0755 "$top"
echo canary > "$top/c"
echo canary > "$top.f"
at_exit "rm -rf '$top' '$top.f'"
whole=$(sess_conf jc-whole 'filesystem { view = "whole-root-unsafe" }')
out=$(sess "$u" "$whole" -c "cat $top/c; $jc --jailcheck; echo rc=\$?" 2>&1)
like "$out" "^canary$" "whole-root-unsafe: the top-level directory is really shown (witness)"
like "$out" "FOUND view: $top is shown" "whole-root-unsafe: the top-level directory is found"
like "$out" "FOUND view: $top.f is shown" "whole-root-unsafe: the top-level file is found"
like "$out" "^rc=1$" "... exit 1"
out=$(sess "$u" "$conf" -c "$jc --jailcheck" 2>&1)
unlike "$out" "$top" "default view: neither is there to find"

# Twin: the same user, no sandbox.
out=$(as "$u" "$SESS_TOP/$u/project/bin/aisb-shell" --jailcheck 2>&1; echo "rc=$?")
like "$out" "FOUND no_new_privs: 0" "outside: no_new_privs is reported missing"
like "$out" "FOUND tty: TIOCSETD works" "outside: a line discipline can be attached, and is reported"
like "$out" "FOUND seccomp: 0" "outside: no seccomp is reported"
like "$out" "^rc=1$" "outside: exit 1"

# The project's repository (docs/threat-model.md, "The project's git
# metadata"): what the human's git reads is held inside and reported
# so; the agent's own login outside can change it, and is told.
if command -v git >/dev/null; then
	as "$u" git init -q "$SESS_TOP/$u/project"
	out=$(sess "$u" "$conf" -c "$jc --jailcheck; echo rc=\$?" 2>&1)
	like "$out" "ok +git: /project/.git/config read-only" "a repository: its config is read-only inside"
	like "$out" "ok +git: /project/.git/hooks read-only" "... its hooks"
	like "$out" "ok +git: /project/.git/commondir read-only" "... its commondir"
	like "$out" "^rc=0$" "... and the session is clean"
	out=$(as "$u" sh -c "cd '$SESS_TOP/$u/project' && ./bin/aisb-shell --jailcheck" 2>&1)
	like "$out" "FOUND git: $SESS_TOP/$u/project/.git/config is writable" "twin: outside, the same login can change it"
	like "$out" "FOUND git: $SESS_TOP/$u/project/.git/hooks is writable" "... and the hooks"
else
	for i in 1 2 3 4 5 6; do skip "repository check $i" "no git"; done
fi

# A policy that binds a host socket directory read-only: connect() works
# on a read-only bind, and the checker says so.
rund=/run/aisbt-escj
install -d -m 0755 "$rund"
at_exit "rm -rf '$rund'"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$rund/canary.sock"
exposed=$(sess_conf jc-exposed "filesystem { readonly = {\"$rund\"} }")
out=$(sess "$u" "$exposed" -c "$jc --jailcheck; echo rc=\$?" 2>&1)
like "$out" "FOUND socket: $rund/canary.sock" "exposed policy: the bound host socket is found"
like "$out" "^rc=1$" "... exit 1"

# An abstract socket in the session's network namespace.
out=$(sess "$u" "$conf" -c 'python3 -c "
import socket, subprocess, sys
s = socket.socket(socket.AF_UNIX); s.bind(\"\0esc-jc-abstract\")
sys.exit(subprocess.run([\"'"$jc"'\", \"--jailcheck\"]).returncode)"; echo rc=$?' 2>&1)
like "$out" "FOUND socket: abstract @esc-jc-abstract" "an abstract socket inside is found"
like "$out" "^rc=1$" "... exit 1"

# The doctor runs it in a session of the agent: a copy of the binary in
# a directory bound read-only at the same path, so the session sees it.
bin=$SESS_TOP/bin-$u
install -d -m 0755 "$bin"
at_exit "rm -rf '$bin'"
cp_shell "$bin"
dconf=$(sess_conf jc-doctor "filesystem { readonly = {\"$bin\"} }")
out=$("$bin/bin/aisb-shell" --config "$dconf" --doctor --jailcheck --user "$u" 2>&1)
like "$out" "warn: jailcheck\[$u\]: jailcheck: FOUND view: $bin is shown" "--doctor --jailcheck: the bound directory is listed as a warning"
unlike "$out" "fail: jailcheck" "... and nothing fails"
dwhole=$(sess_conf jc-doctor-whole "filesystem { view = \"whole-root-unsafe\"  readonly = {\"$bin\"} }")
out=$("$bin/bin/aisb-shell" --config "$dwhole" --doctor --jailcheck --user "$u" 2>&1)
like "$out" "warn: jailcheck\[$u\]: jailcheck: FOUND view: $top is shown" "--doctor --jailcheck, whole-root-unsafe: the top-level directory is listed"
dexp=$(sess_conf jc-doctor-exposed "filesystem { readonly = {\"$bin\", \"$rund\"} }")
out=$("$bin/bin/aisb-shell" --config "$dexp" --doctor --jailcheck --user "$u" 2>&1)
like "$out" "fail: jailcheck\[$u\]: jailcheck: FOUND socket: $rund/canary.sock" "--doctor --jailcheck: the exposed socket is a failure"
out=$("$bin/bin/aisb-shell" --config "$dconf" --doctor --user "$u" 2>&1)
unlike "$out" "jailcheck" "twin: --doctor alone starts no session"
out=$("$AISB_SHELL" --print-policy --jailcheck 2>&1; echo " rc=$?")
like "$(tr "\n" " " <<<"$out")" "goes alone or with --doctor  rc=2" "--jailcheck with another admin form: usage error"

out=$(sess "$u" "$conf" -c "$jc --jailcheck extra; echo rc=\$?" 2>&1)
like "$out" "^rc=2$" "--jailcheck takes no argument (usage error)"

done_testing
