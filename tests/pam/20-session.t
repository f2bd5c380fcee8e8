#!/bin/bash
# pam_aisb session phase: the home is made safely (mode, owner, no symlink
# races), /run/aisb/USER holds a root-owned record of the peer and tty,
# and a session close kills what the agent left behind.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
pam_require
PAMSESS="$(dirname "$0")/pamsess.py"

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
mkdir "$T/users.d"
conf() {	# conf HOMEPATH
	cat > "$T/aisb.conf" <<CONF
agents = {"${U1}"}
home { path = "$1" }
pam { services = {"${SP}-sess"} }
CONF
}
conf "$T/homes/%u"
tu_user ${U1} && usermod -s "$AISB_SHELL" ${U1}
tu_user ${U2}
at_exit "rm -rf /run/aisb/${U1} /run/aisb/${U2}"
pam_service ${SP}-sess "session required $PAM_SO conf=$T/aisb.conf"
pam_service ${SP}-sess-permit "session required $PAM_SO conf=$T/aisb.conf" \
	"session required pam_permit.so"

sess() { (umask 077; pamtester "$1" "$2" open_session close_session >/dev/null 2>&1); }
nosess() { ! sess "$@"; }
sattr() { stat -c '%U:%G %a %F' "$1" 2>&1; }

# The home: made with explicit owner and modes even under umask 077.
ok "session opens for the agent" sess ${SP}-sess ${U1}
is "$(sattr "$T/homes/${U1}")" "${U1}:${U1} 700 directory" "home made: agent-owned, 0700"
is "$(sattr "$T/homes")" "root:root 755 directory" "the missing parent made root-owned 0755"
touch "$T/homes/${U1}/keep" && chown ${U1} "$T/homes/${U1}/keep"
ok "second session with the home present" sess ${SP}-sess ${U1}
ok "an existing home is left as it is" test -e "$T/homes/${U1}/keep"

# Symlinks anywhere on the path are refused, never followed.
mkdir -m 0755 "$T/target" "$T/mid"
ln -s "$T/target" "$T/mid/link"
conf "$T/mid/link/%u"
ok "a symlink above the home: session refused" nosess ${SP}-sess ${U1}
ok "... and nothing made through it" test ! -e "$T/target/${U1}"
mkdir -m 0755 "$T/h2" "$T/elsewhere"
ln -s "$T/elsewhere" "$T/h2/${U1}"
conf "$T/h2/%u"
ok "the home itself a symlink: session refused" nosess ${SP}-sess ${U1}
is "$(sattr "$T/elsewhere")" "root:root 755 directory" "... and its target not chowned"

# A directory above the home that the agent (or anybody but root) owns
# could be swapped under us: refused.
mkdir -m 0755 "$T/agentowned" && chown ${U1} "$T/agentowned"
conf "$T/agentowned/h/%u"
ok "an agent-owned directory above the home: refused" nosess ${SP}-sess ${U1}
ok "... and nothing made in it" test ! -e "$T/agentowned/h"
mkdir -m 0777 "$T/open"
conf "$T/open/%u"
ok "a world-writable (not sticky) parent: refused" nosess ${SP}-sess ${U1}
mkdir -m 0755 "$T/taken" && mkdir -m 0700 "$T/taken/${U1}" && chown ${U2} "$T/taken/${U1}"
conf "$T/taken/%u"
ok "a home owned by another user: refused" nosess ${SP}-sess ${U1}
conf "tmpfs"
ok "home.path tmpfs: nothing to make, session opens" sess ${SP}-sess ${U1}
conf "$T/homes/%u"

# Everyone else: PAM_IGNORE, nothing made.
ok "non-agent: ignored, pam_permit decides" sess ${SP}-sess-permit ${U2}
ok "non-agent: the module alone is no answer" nosess ${SP}-sess ${U2}
ok "non-agent: no home made" test ! -e "$T/homes/${U2}"
ok "non-agent: no /run/aisb directory" test ! -e /run/aisb/${U2}

# The session record: root-owned, readable by the agent's group only.  A
# runtime directory left by an older account of the same name is never
# reused: what was in it goes, the directory is made again.
install -d -o root -g 65534 -m 0777 /run/aisb/${U1}
echo 'uid=1' > /run/aisb/${U1}/session-1
out=$(python3 "$PAMSESS" ${SP}-sess ${U1} "id -u; ls /run/aisb/${U1}")
like "$out" "^open 0" "python PAM application: session opened"
is "$(printf '%s\n' "$out" | grep -c '^out session-')" 1 "a stale /run/aisb/USER of another group: its old record is gone"
like "$out" "record-mode 640 0:$(id -g ${U1})" "record root:agent-group 0640"
like "$out" "record rhost=198\.51\.100\.7" "record holds PAM_RHOST"
like "$out" "record tty=/dev/pts/99" "record holds PAM_TTY"
like "$out" "record service=${SP}-sess" "record holds the service"
like "$out" "close 0" "session closed"
like "$out" "after-record no" "record removed at close"
like "$out" "after-dir no" "the account's last session ended: /run/aisb/USER removed"

# Owned by another uid: replaced, not reused.
install -d -o ${U2} -g ${U2} -m 0755 /run/aisb/${U1}
su -s /bin/sh ${U2} -c "echo planted > /run/aisb/${U1}/session-1"
out=$(python3 "$PAMSESS" ${SP}-sess ${U1} "stat -c '%U:%G %a' /run/aisb/${U1}; ls /run/aisb/${U1}")
like "$out" "out root:${U1} 750" "/run/aisb/USER owned by another uid: made again root:agent-group 0750"
unlike "$out" "out session-1$" "... the other uid's file is gone"
like "$out" "^open 0" "... and the session opens"

# The same group, a record of another uid (a new account that got a dead
# account's gid and name): the old record is not shown to it.
install -d -o root -g ${U1} -m 0750 /run/aisb/${U1}
printf 'user=%s\nuid=%s\n' ${U1} 999999 > /run/aisb/${U1}/session-1
chown root:${U1} /run/aisb/${U1}/session-1 && chmod 0640 /run/aisb/${U1}/session-1
out=$(python3 "$PAMSESS" ${SP}-sess ${U1} "cat /run/aisb/${U1}/session-1 2>&1")
unlike "$out" "uid=999999" "a record of another uid in /run/aisb/USER: removed before the session sees it"

# The twin: a live session of the same account keeps its record and the
# directory while a second session comes and goes; a record whose
# session process is gone is cleaned up; the directory goes with the
# last session.
rm -f "$T/go"
python3 "$PAMSESS" ${SP}-sess ${U1} "while [ ! -e $T/go ]; do sleep 0.1; done" > "$T/first.out" &
first=$!
at_exit "kill $first 2>/dev/null"
for _ in $(seq 1 100); do [ -n "$(ls /run/aisb/${U1} 2>/dev/null)" ] && break; sleep 0.1; done
live=$(ls /run/aisb/${U1})
printf 'user=%s\nuid=%s\n' ${U1} "$(id -u ${U1})" > /run/aisb/${U1}/session-999999999
chown root:${U1} /run/aisb/${U1}/session-999999999 && chmod 0640 /run/aisb/${U1}/session-999999999
out=$(python3 "$PAMSESS" ${SP}-sess ${U1} "ls /run/aisb/${U1}")
like "$out" "out $live" "a second session: the first one's record is kept"
unlike "$out" "out session-999999999" "... a record whose session process is gone is removed"
like "$out" "after-dir yes" "... the directory stays while the first session lasts"
touch "$T/go"
wait "$first"
like "$(cat "$T/first.out")" "after-dir no" "the last session ends: the directory goes"

# A directory of an account that no longer exists goes at the next
# agent session.
install -d -o root -g 65534 -m 0750 /run/aisb/${U1}gone
python3 "$PAMSESS" ${SP}-sess ${U1} true >/dev/null
ok "/run/aisb/NAME of an account that is gone: removed" test ! -e /run/aisb/${U1}gone
at_exit "rm -rf /run/aisb/${U1}gone"

# Close kills what the agent left behind (setsid + nohup escape the
# session and its terminal, not the cgroup).
out=$(python3 "$PAMSESS" ${SP}-sess ${U1} \
	'setsid nohup sleep 300 </dev/null >/dev/null 2>&1 & p=$!
	 for i in $(seq 100); do [ "$(cat /proc/$p/comm)" = sleep ] && break; sleep 0.05; done
	 echo "pid $p"; echo "comm $(cat /proc/$p/comm)"')
pid=$(printf '%s\n' "$out" | sed -n 's/^out pid //p')
# Gone, or a zombie waiting for PID 1 (which reaps when it likes).
dead() { [ ! -e "/proc/$1" ] || [ "$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
if printf '%s\n' "$out" | grep -q '^record cgroup=$'; then
	[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	skip "close kills a setsid+nohup leftover" "cgroup delegation not available on this host"
else
	at_exit "kill -KILL $pid"
	like "$out" "record cgroup=." "the session has a delegated cgroup"
	like "$out" "out comm sleep" "the leftover was running when the session closed"
	for _ in $(seq 1 20); do dead "$pid" && break; sleep 0.1; done
	ok "close killed the setsid+nohup leftover" dead "$pid"
fi
# The twin: a process outside the session's cgroup survives a close.
sleep 300 & keep=$!
at_exit "kill -KILL $keep"
python3 "$PAMSESS" ${SP}-sess ${U1} true >/dev/null
ok "a process outside the session survives its close" test "$(awk '{print $3}' /proc/$keep/stat)" != Z
kill -KILL "$keep"

done_testing
