#!/bin/bash
# A memory hog is killed at limits.memory; the session says "memory
# limit reached"; the legitimate twin (an allocation under the limit)
# succeeds.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

lim_user tlim3 || skip_all "cannot create test user"
lim_need_sessions tlim3

conf=$(lim_conf mem 'memory = "64M"' 'timeout = 60' 'enforce = "strict"')

lim_run tlim3 "$conf" '/project/lim_tool hog 16; echo status=$?'
is "$(printf '%s\n' "$LIM_OUT" | tail -n 1)" status=0 "16M under a 64M limit: fine"
unlike "$LIM_ERR" 'memory limit reached' "no memory message for it"

lim_run tlim3 "$conf" '/project/lim_tool hog 1024; echo status=$?'
diag "rc=$LIM_RC out: $(printf '%s' "$LIM_OUT" | tail -n 2 | tr '\n' ' ')"
like "$LIM_OUT" 'status=137' "a 1G hog under 64M is killed (SIGKILL)"
unlike "$LIM_OUT" 'hog done' "the hog never finished"
like "$LIM_ERR" 'memory limit reached' "the session reports: memory limit reached"
is "$(printf '%s\n' "$LIM_ERR" | grep -c 'memory limit reached')" 1 "said once"
is "$(lim_cgroups tlim3)" "" "no cgroup is left after the sessions"

done_testing
