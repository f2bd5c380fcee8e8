#!/bin/bash
# shellcheck disable=SC2016 # inner shells expand their own variables
# Records never vanish (docs/admin-guide.md, "Where the records are").
# Where nothing listens on /dev/log (a private mount namespace whose /dev
# has no log, tests/lib/syslog.sh without_syslog): a session's lines and
# its gate's decision records go to /var/lib/aisb/sessions/UID/ID.log,
# pam_aisb's to /var/log/aisb/pam.log (a tmpfs over /var/log here: the
# host's is untouched), and --doctor fails, saying where they are or,
# with no registry either, that the session's are not kept at all.  The
# twin: with a receiver on /dev/log (with_syslog), the same records
# reach it and no file is made.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/lib/syslog.sh
. "$(dirname "$0")/../lib/syslog.sh"
# shellcheck source=tests/lib/registry.sh
. "$(dirname "$0")/../lib/registry.sh"
pam_require
command -v python3 >/dev/null || skip_all "python3 missing"
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
}
pam { services = {"$SP-sshd"} }
CONF
chmod 0644 "$T/aisb.conf"
pam_service "$SP-sshd" "account required $PAM_SO conf=$T/aisb.conf"
pam_service "$SP-cron" "account required $PAM_SO conf=$T/aisb.conf"
uid=$(id -u "$U1")
as1=(setpriv --reuid="$uid" --regid="$(id -g "$U1")" --init-groups
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp USER="$U1")
# A refused name: the gate's DNS stub decides and records it.
inner='echo "$AISB_SESSION"; getent hosts refused.test >/dev/null; exit 3'

# ---- no receiver: the session's file --------------------------------
without_syslog "${as1[@]}" "$AISB_SHELL" --config "$T/aisb.conf" -c "$inner" \
    > "$T/out" 2> "$T/err"
is "$?" 3 "no syslog: the session ran and its status came back"
id=$(head -1 "$T/out")
f=$REG_DIR/$uid/$id.log
ok "no syslog: the session's log file $REG_DIR/UID/ID.log exists" test -f "$f"
is "$(stat -c '%U %a' "$f" 2>/dev/null)" "$U1 600" "no syslog: the file is the agent's, 0600, in its 0700 registry directory"
log=$(cat "$f" 2>/dev/null)
like "$log" "aisb-shell\\[[0-9]+\\]: session start id=$id user=$U1 uid=$uid " "no syslog: the session start record is in it"
like "$log" "aisb-shell\\[[0-9]+\\]: session end id=$id status=3 " "no syslog: the session end record is in it"
like "$log" "aisb-gate\\[[0-9]+\\]: gate ready: session $id" "no syslog: the gate's record is in it"
like "$log" "aisb-gate\\[[0-9]+\\]: .*refused\\.test" "no syslog: the gate's decision on the refused name is in it"
like "$log" "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}[-+][0-9]{4} " "no syslog: each line starts with the time"
unlike "$(cat "$T/err")" "not kept" "no syslog, a file: nothing about it on the session's stderr"
fds=$(without_syslog "${as1[@]}" "$AISB_SHELL" --config "$T/aisb.conf" \
    -c 'ls -l /proc/self/fd/' 2>&1)
like "$fds" " 2 -> " "no syslog: the inside lists its descriptors (witness)"
unlike "$fds" "\\.log|$REG_DIR" "no syslog: the file is not open inside"
inside=$(without_syslog "${as1[@]}" "$AISB_SHELL" --config "$T/aisb.conf" \
    -c "cat '$f'" 2>&1)
like "$inside" "No such file or directory" "no syslog: the file is not visible inside"

# ---- no receiver and no registry: the doctor says so ----------------
# A tmpfs over /var/lib/aisb (inside the namespace only): no registry.
cat > "$T/noreg.sh" <<'SH'
#!/bin/bash
# noreg.sh CMD...: CMD with no /dev/log and no registry.
. "$SYSLOG_LIB"
without_syslog bash -c 'mount -t tmpfs -o mode=755 tmpfs /var/lib/aisb && exec "$@"' x "$@"
SH
chmod 0755 "$T/noreg.sh"
export SYSLOG_LIB
"$T/noreg.sh" "${as1[@]}" "$AISB_SHELL" --config "$T/aisb.conf" -c "$inner" \
    > "$T/out" 2> "$T/err"
is "$?" 3 "no syslog, no registry: the session still runs"
unlike "$(cat "$T/err")" "aisb: .*(record|syslog)" "no syslog, no registry: nothing about it on the session's stderr (a harness's model reads it)"
out=$("$T/noreg.sh" env AISB_SSHD_CONFIG=/dev/null "$AISB_SHELL" --config "$T/aisb.conf" --user "$U1" --doctor 2>&1)
like "$out" "fail: syslog: nothing listens on /dev/log or /run/systemd/journal/socket and there is no $REG_DIR: session and gate records are not kept at all, pam_aisb's go only to /var/log/aisb/pam.log; fix: install and start" \
    "doctor, no syslog and no registry: fail, the records are not kept at all"

# ---- a receiver: syslog, no file --------------------------------------
before=$(find "$REG_DIR/$uid" -name '*.log' | wc -l)
with_syslog "$T/syslog" "${as1[@]}" "$AISB_SHELL" --config "$T/aisb.conf" -c "$inner" \
    > "$T/out" 2> "$T/err"
is "$?" 3 "syslog: the session ran"
id=$(head -1 "$T/out")
sl=$(cat "$T/syslog")
like "$sl" "aisb-shell\\[[0-9]+\\]: session start id=$id" "syslog: the start record reached the receiver"
like "$sl" "aisb-gate\\[[0-9]+\\]: gate ready: session $id" "syslog: the gate's record reached the receiver"
like "$sl" "aisb-gate\\[[0-9]+\\]: .*refused\\.test" "syslog: the gate's decision reached the receiver"
ok "syslog: no fallback file for that session" test ! -e "$REG_DIR/$uid/$id.log"
is "$(find "$REG_DIR/$uid" -name '*.log' | wc -l)" "$before" "syslog: no new .log file at all"

# ---- pam_aisb --------------------------------------------------------
# A refusal (a service not in pam.services), in a namespace with a
# tmpfs over /var/log: pam_aisb makes /var/log/aisb itself.
pamrun='mount -t tmpfs -o mode=755 tmpfs /var/log || exit 1
	pamtester "$1" "$2" acct_mgmt >/dev/null 2>&1; echo "rc=$?"
	stat -c "%U %a" /var/log/aisb /var/log/aisb/pam.log 2>&1
	cat /var/log/aisb/pam.log 2>&1'
out=$(without_syslog bash -c "$pamrun" x "$SP-cron" "$U1")
like "$out" "rc=[1-9]" "pam, no syslog: the refusal stands"
like "$out" "root 700
root 600" "pam, no syslog: /var/log/aisb root's 0700, pam.log 0600"
like "$out" "pam_aisb\\[[0-9]+\\] service=$SP-cron user=$U1: .*$SP-cron" \
    "pam, no syslog: the refusal and its service are in pam.log"
out=$(with_syslog "$T/syslog" bash -c "$pamrun" x "$SP-cron" "$U1")
like "$(cat "$T/syslog")" "pam_aisb\\($SP-cron:account\\).*$SP-cron" "pam, syslog: the refusal reached the receiver"
like "$out" "No such file" "pam, syslog: no pam.log is made"
# A root-owned directory others may write to is not trusted.
out=$(without_syslog bash -c 'mount -t tmpfs -o mode=755 tmpfs /var/log &&
	install -d -m 0777 /var/log/aisb && pamtester "$1" "$2" acct_mgmt >/dev/null 2>&1
	ls /var/log/aisb' x "$SP-cron" "$U1")
is "$out" "" "pam, no syslog: nothing written in a /var/log/aisb others may write to"

# ---- the doctor ------------------------------------------------------
out=$(without_syslog env AISB_SSHD_CONFIG=/dev/null "$AISB_SHELL" --config "$T/aisb.conf" --user "$U1" --doctor 2>&1)
like "$out" "fail: syslog: nothing listens on /dev/log or /run/systemd/journal/socket: session, gate and pam_aisb records go only to $REG_DIR/UID/ID.log and /var/log/aisb/pam.log; fix: install and start a syslog daemon" \
    "doctor, no syslog, an agent: fail, with where the records are and the fix"
out=$(with_syslog "$T/syslog" env AISB_SSHD_CONFIG=/dev/null "$AISB_SHELL" --config "$T/aisb.conf" --user "$U1" --doctor)
like "$out" "ok: syslog: a receiver listens on /dev/log" "doctor, syslog: ok"
echo 'agents = {"aisbt-no-such-agent"}' > "$T/none.conf"
chmod 0644 "$T/none.conf"
out=$(without_syslog env AISB_SSHD_CONFIG=/dev/null "$AISB_SHELL" --config "$T/none.conf" --doctor 2>&1)
like "$out" "warn: syslog: nothing listens on /dev/log" "doctor, no syslog, no agent account yet: a warning"

done_testing
