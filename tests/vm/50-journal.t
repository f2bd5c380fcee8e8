#!/bin/bash
# The records reach the host's journal by its native protocol (the guest
# runs no syslog daemon): the session's start and end (aisb-shell),
# pam_aisb's session line (in sshd's), and the gate's start-up and its
# decision on a refused request (aisb-gate), each with the session's id;
# found by their fields (AISB_SESSION, AISB_EVENT, AISB_HOST, ...) with
# journalctl's matches and -o json.  /var/log/auth.log is checked when
# the guest has rsyslog (the image has none: skipped).
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

vm_need_setup
users_d_clear
at_exit users_d_clear
since=$(date '+%Y-%m-%d %H:%M:%S')
sleep 1

# A gated session (the shipped policy's empty allowlist) asks its proxy
# for a name nobody allowed: the gate refuses it without a lookup.
# shellcheck disable=SC2016 # expanded inside the sandbox
out=$(agent_ssh 'echo "id=$AISB_SESSION"; curl -sS -o /dev/null -w "code=%{http_code}\n" http://refused.example/ 2>&1' 2>&1)
id=$(sed -n 's/^id=//p' <<<"$out")
ok "a gated session ran (id ${id:-none})" test -n "$id"
like "$out" 'code=403' "the gate's proxy refused the request (403)"
journalctl --sync 2>/dev/null || sleep 2
j() { journalctl --no-pager -o cat --since "$since" "$@" 2>&1; }
like "$(j -t aisb-shell)" "session start id=$id user=$AGENT" "journal: aisb-shell's session start"
like "$(j -t aisb-shell)" "session end id=$id status=" "journal: aisb-shell's session end"
like "$(j -t aisb-gate)" "gate ready: session $id, user $AGENT" "journal: the gate's start-up record"
like "$(j -t aisb-gate)" 'deny proxy name=refused.example port=80' "journal: the gate's deny record"
like "$(j -t sshd)" "pam_aisb\(sshd:session\): session of agent '$AGENT'" "journal: pam_aisb's session record"
like "$(journalctl --no-pager -o verbose --since "$since" -t aisb-shell 2>&1)" 'SYSLOG_FACILITY=10' \
    "aisb-shell's records are facility authpriv"

# By field: journalctl's own matches, and every field with -o json.
# jget KEY < JSON lines: KEY of each record, one a line ("-" if absent).
jget() { python3 -c 'import json, sys
for l in sys.stdin:
    l = l.strip()
    if l: print(json.loads(l).get(sys.argv[1], "-"))' "$1"; }
js() { journalctl --no-pager -o json --since "$since" "$@" 2>/dev/null; }
ok "journal: the session id is a plain token (witness for the matches)" \
    bash -c '[[ $1 =~ ^[0-9a-f]{32}$ ]]' x "$id"
sess=$(js AISB_SESSION="$id")
is "$(jget SYSLOG_IDENTIFIER <<<"$sess" | sort -u | tr '\n' ' ')" "aisb-gate aisb-shell " \
    "journalctl AISB_SESSION=ID: the session's and its gate's records, nothing else"
is "$(js -t aisb-shell AISB_SESSION="$id" | jget AISB_EVENT | tr '\n' ' ')" "start end " \
    "journalctl -t aisb-shell AISB_SESSION=ID: start, then end"
is "$(js -t aisb-shell AISB_SESSION="$id" AISB_EVENT=start | jget AISB_USER)" "$AGENT" \
    "the start record's AISB_USER is the agent"
deny=$(js -t aisb-gate AISB_SESSION="$id" AISB_EVENT=deny | head -1)
is "$(jget AISB_HOST <<<"$deny")" refused.example "the gate's deny: AISB_HOST=refused.example"
is "$(jget AISB_PORT <<<"$deny")" 80 "the gate's deny: AISB_PORT=80"
is "$(jget AISB_RULE <<<"$deny")" network.allow "the gate's deny: AISB_RULE=network.allow"
like "$(jget MESSAGE <<<"$deny")" 'deny proxy name=refused.example port=80 rule=network.allow' \
    "the gate's deny: MESSAGE is the syslog line's text"
is "$(jget SYSLOG_FACILITY <<<"$deny")" 10 "the gate's deny: facility authpriv"
is "$(js -t aisb-gate AISB_HOST=refused.example AISB_SESSION="$id" | wc -l)" 1 \
    "journalctl -t aisb-gate AISB_HOST=NAME finds that one decision"
pam=$(js AISB_PROGRAM=pam_aisb AISB_USER="$AGENT" AISB_EVENT=session-open | tail -1)
like "$(jget MESSAGE <<<"$pam")" "pam_aisb\(sshd:session\): session of agent '$AGENT'" \
    "pam_aisb's session record, by AISB_PROGRAM and AISB_EVENT"
is "$(jget SYSLOG_IDENTIFIER <<<"$pam")/$(jget AISB_SERVICE <<<"$pam")" sshd/sshd \
    "... under sshd's identifier, AISB_SERVICE=sshd"

# /var/log/auth.log, where rsyslog runs beside journald.
if command -v rsyslogd >/dev/null && [ -f /var/log/auth.log ]; then
	like "$(cat /var/log/auth.log)" "aisb-gate\[[0-9]+\]: deny proxy name=refused\.example port=80 " \
	    "auth.log: the same deny line"
	like "$(cat /var/log/auth.log)" "aisb-shell\[[0-9]+\]: session start id=$id " \
	    "auth.log: the same session start"
else
	skip "auth.log: the same deny line" "no rsyslog in this guest"
	skip "auth.log: the same session start" "no rsyslog in this guest"
fi

done_testing
