#!/bin/bash
# Strict mode refuses a limit the host cannot enforce (no delegated
# cgroup) with 77 and one line naming the limit and the fix; best-effort
# starts and logs each limit it could not enforce; with delegation the
# same strict policy starts.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

lim_user tlim1 || skip_all "cannot create test user"
lim_need_sessions tlim1

strict=$(lim_conf strict 'memory = "64M"' 'pids = 64' 'cpu = "100%"' \
    'enforce = "strict"')
best=$(lim_conf best 'memory = "64M"' 'pids = 64' 'cpu = "100%"' \
    'enforce = "best-effort"')

lim_run_plain tlim1 "$strict" 'echo ran-unlimited'
is "$LIM_RC" 77 "strict without a delegated cgroup: exit 77"
is "$LIM_OUT" "" "strict without a delegated cgroup: nothing ran"
like "$LIM_ERR" 'limits\.memory = 64M cannot be enforced: no delegated cgroup \(add pam_aisb.*limits\.enforce = "best-effort"\)' \
    "the line names the limit and the fix"
is "$(printf '%s\n' "$LIM_ERR" | grep -c 'cannot be enforced')" 1 \
    "exactly one line for the refusal"

lim_run_plain tlim1 "$best" 'echo ran-best-effort'
is "$LIM_RC" 0 "best-effort without a delegated cgroup: starts"
is "$LIM_OUT" ran-best-effort "best-effort: the command ran"
for l in 'limits\.memory = 64M' 'limits\.pids = 64' 'limits\.cpu = "100%"'; do
	like "$LIM_ERR" "$l not enforced" "best-effort logs: $l not enforced"
done

# The legitimate twin: the same strict policy with delegation starts.
lim_run tlim1 "$strict" 'echo ran-strict'
is "$LIM_RC" 0 "strict with a delegated cgroup: starts"
is "$LIM_OUT" ran-strict "strict with a delegated cgroup: the command ran"
unlike "$LIM_ERR" 'not enforced|cannot be enforced' "no limit complaint"
is "$(lim_cgroups tlim1)" "" "no cgroup of tlim1 is left after the sessions"

done_testing
