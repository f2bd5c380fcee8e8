#!/bin/bash
# The real delegation path: a PAM application (tests/pam/pamsess.py, like
# sshd or su) opens a session through pam_aisb, which delegates the cgroup;
# aisb-shell in it enforces strict limits; the session close reaps the
# cgroup.  Twin: the same policy without pam_aisb in the stack is refused.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

PAM_SO="$BUILD/lib/security/pam_aisb.so"
PAMSESS="$AISB_SRC/tests/pam/pamsess.py"
[ -f "$PAM_SO" ] || skip_all "pam_aisb.so not built"
if [ ! -f "$PAMSESS" ] || ! command -v python3 >/dev/null; then
	skip_all "no pamsess.py or python3"
fi

lim_user tlim9 || skip_all "cannot create test user"
lim_need_sessions tlim9

conf=$(lim_conf pam 'memory = "64M"' 'pids = 32' 'cpu = "100%"' \
    'timeout = 30' 'enforce = "strict"')
sed -i "1i agents = {\"tlim9\"}\npam { services = {\"aisbt-tlim-$$\", \"aisbt-tlim-$$-no\"} }" "$conf"
printf 'session required %s conf=%s\n' "$PAM_SO" "$conf" >"/etc/pam.d/aisbt-tlim-$$"
printf 'session required pam_permit.so\n' >"/etc/pam.d/aisbt-tlim-$$-no"
at_exit "rm -f /etc/pam.d/aisbt-tlim-$$ /etc/pam.d/aisbt-tlim-$$-no"

run="$(_lim_env tlim9) $AISB_SHELL --config $conf -c '/project/lim_tool forkbomb 100 1; grep -c . /proc/self/cgroup'"
out=$(timeout 60 python3 "$PAMSESS" "aisbt-tlim-$$" tlim9 "$run 2>&1" 2>&1)
diag "$(printf '%s' "$out" | tr '\n' ' ')"
like "$out" 'open 0' "pam_aisb opened the session"
unlike "$out" 'cannot be enforced' "strict limits are enforceable in the delegated cgroup"
like "$out" 'out forks [0-9]+ errno EAGAIN' "the fork bomb stops at pids"
n=$(printf '%s\n' "$out" | sed -n 's/^out forks \([0-9]*\) .*/\1/p')
ok "below limits.pids = 32 (${n:-none})" test -n "$n" -a "${n:-99}" -lt 32
like "$out" 'close 0' "pam_aisb closed the session"
is "$(lim_cgroups tlim9)" "" "the session close left no cgroup"

out=$(timeout 60 python3 "$PAMSESS" "aisbt-tlim-$$-no" tlim9 "$run 2>&1" 2>&1)
like "$out" 'out aisb: limits.memory = 64M cannot be enforced: no delegated cgroup' \
    "without pam_aisb in the stack the strict policy is refused"
unlike "$out" 'out forks' "and nothing ran"

done_testing
