#!/bin/bash
# An agent's entry in the session registry must be its own.  The
# registry (/var/lib/aisb/sessions, root 1733) lets every account make
# an entry, so another account can make the agent's UID directory
# first.  Then the agent's session still runs, unlisted: its record
# says so at warning level, --sessions does not show it, and --doctor
# fails the agent's registry line with the fix.  The twin: after the
# fix the next session is listed and the doctor's line is ok.
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/sess.sh" sbx
# shellcheck source=tests/lib/syslog.sh
. "$(dirname "$0")/../lib/syslog.sh"
# shellcheck source=tests/lib/registry.sh
. "$(dirname "$0")/../lib/registry.sh"
exec </dev/null
sess_require
u=tsbx30 o=tsbx31
sess_user "$u"
tu_user "$o"
reg_ensure || skip_all "cannot make $REG_DIR"
reg_forget "$u"
reg_forget "$o"
uid=$(id -u "$u")
rm -rf "${REG_DIR:?}/$uid"
conf=$(sess_conf registry "agents = {\"$u\"}")
log=$(mktemp); at_exit "rm -f '$log' '$log.out'"
# tap.sh's `as`, spelled out: a function does not cross into unshare.
asu=(setpriv --reuid="$uid" --regid="$(id -g "$u")" --init-groups
    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="/home/$u" USER="$u")

# listed ID: does --sessions (root) show session ID?
listed() { "$AISB_SHELL" --sessions | grep -q -- "$1"; }
# run_listed: a session that asks the host (through a file in its
# project) whether --sessions lists it while it runs; prints its id and
# the answer.
run_listed() {
	local p=$SESS_TOP/$u/project id ans=no
	rm -f "$p/id" "$p/go"
	with_syslog "$log" "${asu[@]}" "$AISB_SHELL" --config "$conf" -c \
	    'echo "$AISB_SESSION" > /project/id; for i in $(seq 100); do [ -e /project/go ] && break; sleep 0.1; done; echo ran' \
	    > "$log.out" 2>&1 &
	local bg=$!
	for _ in $(seq 100); do [ -s "$p/id" ] && break; sleep 0.1; done
	id=$(cat "$p/id" 2>/dev/null)
	[ -n "$id" ] && listed "$id" && ans=yes
	touch "$p/go"
	wait "$bg"
	echo "${id:-none} $ans"
}

# --- the attack: another account makes the agent's entry first ---------
as "$o" mkdir -m 0700 "$REG_DIR/$uid"
is "$(stat -c %U "$REG_DIR/$uid")" "$o" "another account could make $REG_DIR/$uid"
read -r id ans < <(run_listed)
like "$(cat "$log.out")" '^ran$' "the agent's session still ran (id $id)"
is "$ans" no "--sessions does not list it"
like "$(cat "$log")" "session $id: no registry entry: $REG_DIR/$uid is not this account's own .*aisb-shell --doctor names the fix" \
    "its record says why, and where the fix is"
d=$(AISB_SSHD_CONFIG=/dev/null timeout 300 "$AISB_SHELL" --config "$conf" --user "$u" --doctor 2>&1)
like "$d" "fail: registry\\[$u\\]: $REG_DIR/$uid was made by $o, not by '$u': .*; fix: rm -rf $REG_DIR/$uid" \
    "--doctor fails the agent's registry line, names who made it, and the fix"

# The same with an entry others may write: the outer can open it, and
# still refuses it (not its owner).
rm -rf "${REG_DIR:?}/$uid"
as "$o" mkdir -m 0777 "$REG_DIR/$uid"
read -r id ans < <(run_listed)
is "$ans" no "an entry of another account's with mode 0777: not used either (id $id)"
like "$(cat "$log")" "session $id: no registry entry: $REG_DIR/$uid is not this account's own" \
    "... and the record says so"
is "$(find "$REG_DIR/$uid" -mindepth 1 | wc -l)" 0 "nothing of the session was written into it"

# --- the twin: the fix, then the session is listed --------------------
rm -rf "${REG_DIR:?}/$uid"
d=$(AISB_SSHD_CONFIG=/dev/null timeout 300 "$AISB_SHELL" --config "$conf" --user "$u" --doctor 2>&1)
like "$d" "ok: registry\\[$u\\]: no entry yet" "after the fix: the doctor's line is ok"
read -r id ans < <(run_listed)
is "$ans" yes "the next session (id $id) is listed by --sessions"
unlike "$(cat "$log")" "no registry entry" "and its record has no warning"
d=$(AISB_SSHD_CONFIG=/dev/null timeout 300 "$AISB_SHELL" --config "$conf" --user "$u" --doctor 2>&1)
like "$d" "ok: registry\\[$u\\]: $REG_DIR/$uid is the agent's, mode 0700" \
    "the entry the session made passes"
chmod 0750 "$REG_DIR/$uid"
d=$(AISB_SSHD_CONFIG=/dev/null timeout 300 "$AISB_SHELL" --config "$conf" --user "$u" --doctor 2>&1)
like "$d" "fail: registry\\[$u\\]: $REG_DIR/$uid has mode 0750, not 0700" "a group bit on it fails"
done_testing
