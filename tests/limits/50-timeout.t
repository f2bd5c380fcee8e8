#!/bin/bash
# limits.timeout: "sleep 1000" under timeout = 2 ends in about two
# seconds with status 124 and one line; every process of the sandbox is
# gone, including one that left with setsid+nohup.  Twin: a command that
# ends in time keeps its own status.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

lim_user tlim5 || skip_all "cannot create test user"
lim_need_sessions tlim5

conf=$(lim_conf to 'timeout = 2' 'enforce = "strict"')

# The session records the setsid sleep as it runs (its own session id,
# its command line) in the project, where the host reads it afterwards.
seen=$(getent passwd tlim5 | cut -d: -f6)/project/setsid.seen
rm -f "$seen"
lim_run tlim5 "$conf" 'setsid nohup sleep 997 >/dev/null 2>&1 & p=$!
for i in $(seq 1 50); do [ "$(ps -o args= -p $p)" = "sleep 997" ] && break; sleep 0.02; done
ps -o sid=,args= -p $p | awk -v p=$p "{print (\$1 == p ? \"own-session\" : \"sid=\" \$1), \$2, \$3}" > /project/setsid.seen
sleep 1000'
diag "rc=$LIM_RC secs=$LIM_SECS err: $LIM_ERR"
is "$(cat "$seen" 2>&1)" "own-session sleep 997" "the setsid sleep ran in a session of its own before the timeout"
is "$LIM_RC" 124 "the session ends with status 124"
ok "after about two seconds ($LIM_SECS s)" \
    test "$(echo "$LIM_SECS >= 1.8 && $LIM_SECS < 6" | bc)" = 1
like "$LIM_ERR" 'limits\.timeout = 2 reached: the sandbox was killed' \
    "the caller sees the timeout line"
is "$(printf '%s\n' "$LIM_ERR" | grep -c 'limits.timeout')" 1 "one line"
ok "no sleep of the session survives" ! pgrep -u tlim5 -f 'sleep 99[07]'

lim_run tlim5 "$conf" 'exit 3'
diag "rc=$LIM_RC secs=$LIM_SECS err: $LIM_ERR"
is "$LIM_RC" 3 "a session that ends in time keeps its own status"
unlike "$LIM_ERR" 'limits\.timeout' "and no timeout line"
is "$(lim_cgroups tlim5)" "" "no cgroup is left after the sessions"

done_testing
