#!/bin/bash
# The records reach the host's journal through journald's syslog socket
# (the guest runs no syslog daemon): the session's start and end
# (aisb-shell), pam_aisb's session line (in sshd's), and the gate's
# start-up and its decision on a refused request (aisb-gate), each with
# the session's id.
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

done_testing
