#!/bin/bash
# shellcheck disable=SC2016 # inner shells expand their own variables
# Records in the journal with their fields (docs/admin-guide.md, "Where
# the records are").  With a journal socket (tests/lib/syslog.sh
# with_journal: a private mount namespace whose /run/systemd/journal/
# socket is a test listener that decodes the native protocol, and a
# listener on /dev/log beside it): a gated session's start and end
# (aisb-shell), its gate's start-up, its proxy's deny of a refused name
# and its DNS stub's answer (aisb-gate), and pam_aisb's refusal (the
# loading program's identifier) each arrive once, as a record with
# MESSAGE the syslog line's text, PRIORITY, SYSLOG_FACILITY=10
# (authpriv), SYSLOG_IDENTIFIER and the AISB_* fields; nothing goes to
# /dev/log too.  The twin: no journal socket, and the same lines reach
# /dev/log as before.  And --doctor says which receiver takes them.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/lib/syslog.sh
. "$(dirname "$0")/../lib/syslog.sh"
# shellcheck source=tests/lib/registry.sh
. "$(dirname "$0")/../lib/registry.sh"
pam_require
command -v python3 >/dev/null || skip_all "python3 missing"
command -v curl >/dev/null || skip_all "curl missing"
[ -d /run/systemd ] || skip_all "no /run/systemd to cover with a test journal"
have_userns nobody || skip_all "no unprivileged user namespaces"

T=$(pam_tmpdir)
at_exit "rm -rf $T"
chmod 0755 "$T"
reg_ensure || skip_all "cannot make $REG_DIR"
tu_user "$U1" && usermod -s "$AISB_SHELL" "$U1"
reg_forget "$U1"
install -d -m 0755 -o "$U1" -g "$U1" "$T/proj" "$T/proj/$U1"
cat > "$T/aisb.conf" <<CONF
agents = {"$U1"}
project {
  path = "$T/proj/%u"
  roots = {"$T/proj"}
}
home { path = "tmpfs" }
limits { memory = 0  pids = 0  cpu = "0%"  enforce = "best-effort" }
network {
  mode = "gated"
  allow = {"allowed.test"}
  notices = false
}
pam { services = {"$SP-sshd"} }
CONF
chmod 0644 "$T/aisb.conf"
pam_service "$SP-cron" "account required $PAM_SO conf=$T/aisb.conf"
uid=$(id -u "$U1")
as1=(setpriv --reuid="$uid" --regid="$(id -g "$U1")" --init-groups
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp USER="$U1")
# A refused name, through the gate's proxy (a deny with host, port and
# rule) and through its DNS stub.
inner='echo "$AISB_SESSION"
curl -sS -o /dev/null -w "code=%{http_code}\n" http://refused.test/ 2>&1
getent hosts refused.test >/dev/null; exit 3'

# rec FILE TEXT: the JSON line of FILE whose MESSAGE starts with TEXT.
rec() { grep -F -- "\"MESSAGE\": \"$2" "$1" | head -1; }
# fld LINE KEY: that record's KEY, or "(none)".
fld() {
	python3 -c 'import json, sys
r = json.loads(sys.argv[1] or "{}")
print(r.get(sys.argv[2], "(none)"))' "$1" "$2"
}

# ---- a journal socket: records with fields ---------------------------
with_journal "$T/j" "$T/s" "${as1[@]}" "$AISB_SHELL" --config "$T/aisb.conf" -c "$inner" \
    > "$T/out" 2> "$T/err"
is "$?" 3 "journal: the session ran and its status came back"
id=$(head -1 "$T/out")
ok "journal: the session has an id (${id:-none})" test -n "$id"
like "$(cat "$T/out")" "code=403" "journal: the gate's proxy refused the name (witness)"
unlike "$(cat "$T/j")" "MALFORMED" "journal: every datagram decodes as the native protocol"

r=$(rec "$T/j" "session start id=$id user=$U1 uid=$uid ")
ok "journal: aisb-shell's session start, its MESSAGE the syslog line's text" test -n "$r"
is "$(fld "$r" SYSLOG_IDENTIFIER)" aisb-shell "journal: start: SYSLOG_IDENTIFIER=aisb-shell"
is "$(fld "$r" SYSLOG_FACILITY)" 10 "journal: start: SYSLOG_FACILITY=10 (authpriv)"
is "$(fld "$r" PRIORITY)" 6 "journal: start: PRIORITY=6 (info)"
is "$(fld "$r" AISB_EVENT)" start "journal: start: AISB_EVENT=start"
is "$(fld "$r" AISB_SESSION)" "$id" "journal: start: AISB_SESSION is the session's id"
is "$(fld "$r" AISB_USER)" "$U1" "journal: start: AISB_USER is the agent"
is "$(fld "$r" AISB_PROJECT)" "$T/proj/$U1" "journal: start: AISB_PROJECT"
like "$(fld "$r" SYSLOG_PID)" '^[0-9]+$' "journal: start: SYSLOG_PID"

r=$(rec "$T/j" "session end id=$id status=3 ")
is "$(fld "$r" AISB_EVENT)" end "journal: aisb-shell's session end, AISB_EVENT=end"
is "$(fld "$r" AISB_STATUS)" 3 "journal: end: AISB_STATUS=3"
is "$(fld "$r" AISB_SESSION)" "$id" "journal: end: AISB_SESSION"

r=$(rec "$T/j" "gate ready: session $id, user $U1")
is "$(fld "$r" SYSLOG_IDENTIFIER)" aisb-gate "journal: the gate's start-up, SYSLOG_IDENTIFIER=aisb-gate"
is "$(fld "$r" AISB_EVENT)" ready "journal: ready: AISB_EVENT=ready"
is "$(fld "$r" AISB_SESSION)/$(fld "$r" AISB_USER)" "$id/$U1" "journal: ready: AISB_SESSION and AISB_USER"
is "$(fld "$r" SYSLOG_FACILITY)" 10 "journal: ready: authpriv"

r=$(rec "$T/j" "deny proxy name=refused.test port=80 ")
ok "journal: the gate's deny of the refused name" test -n "$r"
is "$(fld "$r" AISB_EVENT)" deny "journal: deny: AISB_EVENT=deny"
is "$(fld "$r" AISB_HOST)" refused.test "journal: deny: AISB_HOST"
is "$(fld "$r" AISB_PORT)" 80 "journal: deny: AISB_PORT"
is "$(fld "$r" AISB_RULE)" network.allow "journal: deny: AISB_RULE names the rule (network.allow)"
like "$(fld "$r" MESSAGE)" "rule=$(fld "$r" AISB_RULE) " "journal: deny: ... the one the line names"
is "$(fld "$r" AISB_SESSION)" "$id" "journal: deny: AISB_SESSION"
is "$(fld "$r" AISB_KIND)" proxy "journal: deny: AISB_KIND=proxy"

r=$(rec "$T/j" "dns udp query name=refused.test ")
is "$(fld "$r" AISB_EVENT)/$(fld "$r" AISB_HOST)" "dns/refused.test" "journal: the DNS stub's answer: AISB_EVENT=dns, AISB_HOST"
like "$(fld "$r" AISB_DECISION)" '^deny' "journal: dns: AISB_DECISION"

is "$(grep -c 'aisb-\(shell\|gate\)\[' "$T/s")" 0 "journal: no record went to /dev/log as well"
ok "journal: no fallback file for that session" test ! -e "$REG_DIR/$uid/$id.log"
unlike "$(cat "$T/err")" "aisb: .*(record|syslog|journal)" "journal: nothing about records on the session's stderr"

# ---- no journal socket: /dev/log, as before ---------------------------
with_syslog "$T/s" "${as1[@]}" "$AISB_SHELL" --config "$T/aisb.conf" -c "$inner" \
    > "$T/out" 2> "$T/err"
is "$?" 3 "syslog: the session ran"
id=$(head -1 "$T/out")
sl=$(cat "$T/s")
like "$sl" "aisb-shell\\[[0-9]+\\]: session start id=$id user=$U1 " "syslog: the start record reached /dev/log"
like "$sl" "aisb-shell\\[[0-9]+\\]: session end id=$id status=3 " "syslog: the end record too"
like "$sl" "aisb-gate\\[[0-9]+\\]: deny proxy name=refused\\.test port=80 " "syslog: the gate's deny too"
like "$sl" "^<86>" "syslog: facility authpriv, priority info (<86>)"

# ---- pam_aisb ---------------------------------------------------------
pamrun='pamtester "$1" "$2" acct_mgmt >/dev/null 2>&1; echo "rc=$?"'
out=$(with_journal "$T/j" "$T/s" bash -c "$pamrun" x "$SP-cron" "$U1")
like "$out" "rc=[1-9]" "pam, journal: the refusal stands"
r=$(rec "$T/j" "pam_aisb($SP-cron:account): refusing agent '$U1' on service '$SP-cron'")
ok "pam, journal: the refusal, as pam_syslog's text" test -n "$r"
is "$(fld "$r" SYSLOG_IDENTIFIER)" pamtester "pam, journal: the loading program's identifier, as pam_syslog's"
is "$(fld "$r" SYSLOG_FACILITY)/$(fld "$r" PRIORITY)" 10/3 "pam, journal: authpriv, err"
is "$(fld "$r" AISB_PROGRAM)" pam_aisb "pam, journal: AISB_PROGRAM=pam_aisb"
is "$(fld "$r" AISB_EVENT)" refuse "pam, journal: AISB_EVENT=refuse"
is "$(fld "$r" AISB_USER)/$(fld "$r" AISB_SERVICE)" "$U1/$SP-cron" "pam, journal: AISB_USER and AISB_SERVICE"
unlike "$(cat "$T/s")" "pam_aisb" "pam, journal: nothing to /dev/log as well"
with_syslog "$T/s" bash -c "$pamrun" x "$SP-cron" "$U1" >/dev/null
like "$(cat "$T/s")" "pamtester(\\[[0-9]+\\])?: pam_aisb\\($SP-cron:account\\): refusing agent '$U1'" \
    "pam, no journal: the same line on /dev/log"

# ---- the doctor -------------------------------------------------------
out=$(with_journal "$T/j" "$T/s" env AISB_SSHD_CONFIG=/dev/null "$AISB_SHELL" --config "$T/aisb.conf" --user "$U1" --doctor 2>&1)
like "$out" "ok: syslog: journald listens on /run/systemd/journal/socket: records go to the journal" \
    "doctor, journal: ok, and says the journal takes the records"
out=$(with_syslog "$T/s" env AISB_SSHD_CONFIG=/dev/null "$AISB_SHELL" --config "$T/aisb.conf" --user "$U1" --doctor 2>&1)
like "$out" "ok: syslog: a receiver listens on /dev/log: records go there" \
    "doctor, no journal: ok, /dev/log takes them"

done_testing
