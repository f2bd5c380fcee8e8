#!/bin/bash
# filesystem.readonly / .readwrite sources under the host's /tmp: they
# are the host's (opened before the sandbox's own /tmp covers it), shown
# at their paths inside, read-only or writable as named.  Twin: the
# sandbox's /tmp is still its own: a host /tmp file outside the named
# sources is not visible, and what the session writes in /tmp stays in
# the sandbox.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
sess_user tsbx22

# The sources belong to the agent: on the host it may write either, so
# only the mount can refuse a write.
ro=$(mktemp -d /tmp/aisbt-sbx-ro.XXXXXX)
rw=$(mktemp -d /tmp/aisbt-sbx-rw.XXXXXX)
gl=$(mktemp -d /tmp/aisbt-sbx-glob.XXXXXX)
outside=$(mktemp /tmp/aisbt-sbx-out.XXXXXX)
at_exit "rm -rf '$ro' '$rw' '$gl' '$outside'"
chmod 0755 "$ro" "$rw" "$gl"
echo ro-canary >"$ro/f"
mkdir "$gl/a" "$gl/b"
echo glob-a >"$gl/a/f"
echo glob-b >"$gl/b/f"
chown -R tsbx22: "$ro" "$rw" "$gl"
echo host-tmp-canary >"$outside"
chmod 0644 "$outside"
ok "host twin: the agent can write the readonly source outside" \
    as tsbx22 sh -c "echo x > '$ro/twin' && rm '$ro/twin'"
ok "host twin: and it reads the other /tmp file there" \
    as tsbx22 grep -q host-tmp-canary "$outside"

conf=$(sess_conf tmpbinds "filesystem { readonly = {\"$ro\", \"$gl/*\"} readwrite = {\"$rw\"} }")
r() { sess tsbx22 "$conf" -c "$1" 2>&1; }

out=$(r "cat $ro/f"); rc=$?
is "$out" ro-canary "a readonly source under /tmp is visible at its path (rc $rc)"
out=$(r "echo x > $ro/g")
like "$out" "$ro/g: Read-only file system" "... and read-only (EROFS)"
ok "... nothing reached the host" [ ! -e "$ro/g" ]
like "$(r "findmnt -rn -o TARGET,OPTIONS $ro")" "^$ro ro," \
    "... it is a read-only mount of its own"
is "$(r "cat $gl/a/f $gl/b/f")" "$(printf 'glob-a\nglob-b')" \
    "a readonly glob under /tmp shows each directory it matches"

r "echo w > $rw/g"
is "$(cat "$rw/g" 2>&1)" w "a readwrite source under /tmp is writable, and the write is on the host"
is "$(stat -c %U "$rw/g" 2>&1)" tsbx22 "... as the agent's"

# The twin: the private /tmp.
out=$(r "cat $outside 2>&1; ls -A /tmp")
unlike "$out" host-tmp-canary "the host's other /tmp file is not readable inside"
like "$out" "$outside: No such file or directory" "... it is not there at all"
is "$(printf '%s\n' "$out" | grep -v ': No such file' | sort | tr '\n' ' ')" \
    "$(printf '%s\n' "${ro#/tmp/}" "${rw#/tmp/}" "${gl#/tmp/}" | sort | tr '\n' ' ')" \
    "/tmp inside holds only the mount points of the named sources"
mine=/tmp/aisbt-sbx-mine-$$
rm -f "$mine"
is "$(r "echo m > $mine && cat $mine")" m "writing /tmp inside works"
ok "... and stays in the sandbox" [ ! -e "$mine" ]

# The same sources without the sandbox's /tmp in the way: a missing
# one is still a policy error (78), named.
bad=$(sess_conf tmpbad "filesystem { readonly = {\"$ro-missing\"} }")
out=$(sess tsbx22 "$bad" -c 'echo ran' 2>&1); rc=$?
is "$rc" 78 "a missing readonly source under /tmp is refused with 78"
like "$out" "filesystem.readonly: $ro-missing: No such file or directory" "... naming it"
unlike "$out" '^ran$' "... and nothing ran"

done_testing
