#!/bin/bash
# Supplementary groups stay effective inside (a residual risk, shown as
# it is): a rootless sandbox cannot call setgroups(2), so a group the
# agent belongs to on the host still opens files inside, though the
# group shows as the overflow gid (nogroup).  docs/admin-guide.md and
# docs/threat-model.md say so; aisb-shell --doctor warns about it.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
sess_user tsbx25
sess_user tsbx26
g=tsbxg25
groupdel "$g" >/dev/null 2>&1
groupadd "$g" || skip_all "cannot create a group"
at_exit "groupdel $g"
usermod -aG "$g" tsbx25
# A file only the group can read, in each agent's project (/project
# inside).
for u in tsbx25 tsbx26; do
	echo "group-secret-$$" > "$SESS_TOP/$u/project/group-only"
	chown root:"$g" "$SESS_TOP/$u/project/group-only"
	chmod 0640 "$SESS_TOP/$u/project/group-only"
done
f=$SESS_TOP/tsbx25/project/group-only
conf=$(sess_conf groups)
ovf=$(cat /proc/sys/kernel/overflowgid)

is "$(as tsbx25 cat "$f" 2>&1)" "group-secret-$$" "on the host: the group member reads the file"
is "$(sess tsbx25 "$conf" -c "cat /project/group-only" 2>&1)" "group-secret-$$" \
    "inside: the group member still reads it (supplementary groups are kept)"
like "$(sess tsbx25 "$conf" -c 'id -G' 2>&1)" "(^| )$ovf( |$)" \
    "... the group shows as the overflow gid $ovf inside"
out=$(sess tsbx25 "$conf" -c "cat /proc/self/setgroups; setpriv --clear-groups true 2>&1 || echo refused" 2>&1)
like "$out" "^deny" "... setgroups is denied in the sandbox's user namespace"
like "$out" "refused" "... so the group cannot be dropped from inside"
out=$(sess tsbx26 "$conf" -c "cat /project/group-only 2>&1 || echo refused" 2>&1)
like "$out" "Permission denied" "an agent not in the group: refused inside"
unlike "$out" "group-secret" "... and never sees the content"

done_testing
