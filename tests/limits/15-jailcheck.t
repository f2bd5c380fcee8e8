#!/bin/bash
# aisb-shell --doctor --jailcheck under the default strict limits: the
# doctor (root) gives the audit session the delegated cgroup pam_aisb's
# session phase would give a login, so the check runs and the strict
# limits hold in it; nothing of that cgroup is left after.  When the
# session cannot start, the doctor's fix names the real cause: the
# binary not visible inside (127) is told apart from a host that cannot
# enforce the limits (77).
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

u=tlim15
lim_user "$u" || skip_all "cannot create test user"
lim_need_sessions "$u"

# The program as a session sees it: a copy in a root-owned directory
# bound read-only at the same path (the build tree may be hidden).
bin=$LIM_DIR/bin
install -D -m 0755 "$AISB_SHELL" "$bin/bin/aisb-shell"
install -D -m 0755 "$BUILD/libexec/aisb/aisb-shell-main" "$bin/libexec/aisb/aisb-shell-main"
chmod 0755 "$bin" "$bin/bin" "$bin/libexec" "$bin/libexec/aisb"
# The default limits (strict, memory, pids and cpu set): no limits lines.
conf=$(lim_conf jc)
echo "filesystem { readonly = {\"$bin\"} }" >> "$conf"
doctor() { AISB_SSHD_CONFIG=/dev/null "$1" --config "$2" --doctor --jailcheck --user "$u" 2>&1; }

# The defaults really are strict, with cgroup limits.
pp=$("$AISB_SHELL" --config "$conf" --user "$u" --print-policy 2>&1)
like "$pp" 'enforce = "?strict"?' "the policy: limits.enforce is strict by default"
like "$pp" 'memory = "?[1-9]' "the policy: a memory limit by default"

out=$(doctor "$bin/bin/aisb-shell" "$conf")
like "$out" "warn: jailcheck\\[$u\\]: jailcheck: FOUND view: $bin is shown" \
    "--doctor --jailcheck, strict limits: the check ran in a session (its view line)"
unlike "$out" "fail: jailcheck" "--doctor --jailcheck, strict limits: nothing fails"
unlike "$out" "status 77|cannot be enforced" "--doctor --jailcheck, strict limits: no 77, no limit refused"
is "$(lim_cgroups "$u")" "" "no cgroup of $u is left after the doctor"

# The binary the doctor runs is not visible inside (the build tree is
# not in the view): status 127 and the fix says so.
conf2=$(lim_conf jc-hidden 'memory = 0' 'pids = 0' 'cpu = "0%"')
out=$(doctor "$AISB_SHELL" "$conf2")
case "$AISB_SHELL" in
/usr/*) skip "a hidden binary: the fix says to install it under /usr" "this aisb-shell is under /usr, visible inside" ;;
*) like "$out" "fail: jailcheck\\[$u\\]: the check did not run \\(status 127\\).*; fix: the session cannot run this aisb-shell: install it under /usr" \
	"a binary not visible inside: status 127, and the fix says where to install it" ;;
esac

done_testing
