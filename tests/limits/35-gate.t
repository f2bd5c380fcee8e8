#!/bin/bash
# A memory hog in a gated session is killed at limits.memory while the
# gate, which runs outside the session cgroup, lives on and still serves
# the sandbox (its HTTP proxy answers after the kill).
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

[ -x "$AISB_GATE" ] || skip_all "aisb-gate not built"
lim_user tlima || skip_all "cannot create test user"
lim_need_sessions tlima

conf=$(lim_conf gated 'memory = "64M"' 'timeout = 60' 'enforce = "strict"')
sed -i 's/network { mode = "none" }/network { mode = "gated"  allow = {"aisb-tlim.invalid"} }/' "$conf"
probe=$(lim_conf gprobe 'enforce = "best-effort"')
sed -i 's/network { mode = "none" }/network { mode = "gated" }/' "$probe"
lim_run_plain tlima "$probe" 'echo gated-ok'
if [ "$LIM_RC" = 77 ]; then
	skip_all "gated sessions cannot start on this host: $LIM_ERR"
fi
is "$LIM_OUT" gated-ok "a gated session starts"
h=$(getent passwd tlima | cut -d: -f6)
kf=$(mktemp "$LIM_DIR/key.XXXXXX")
# After the hog: the gate's proxy inside still answers (a refusal is an
# answer, and only the gate can give it).
# shellcheck disable=SC2016
cmd='/project/lim_tool hog 1024; echo status=$?; echo hogged >/project/state
while [ ! -e /project/checked ]; do sleep 0.1; done
exec 3<>/dev/tcp/127.0.0.1/3128 &&
printf "GET http://denied.invalid/ HTTP/1.0\r\n\r\n" >&3 &&
timeout 10 head -n 1 <&3 | sed "s/^/proxy: /"'
# shellcheck disable=SC2046
timeout 60 "$LIM_DELEGATE" -k "$kf" tlima $(_lim_env tlima) "$AISB_SHELL" \
    --config "$conf" -c "$cmd" >"$h/gate.out" 2>"$h/gate.err" </dev/null &
pid=$!
for _ in $(seq 200); do
	[ -e "$h/project/state" ] && break
	sleep 0.1
done
gate=$(pgrep -u tlima -f aisb-gate | head -n 1)
ok "the gate runs after the hog was killed (${gate:-none})" test -n "$gate"
if [ -n "$gate" ]; then
	unlike "$(cat "/proc/$gate/cgroup")" 'session-' \
	    "the gate is not in the session cgroup"
fi
touch "$h/project/checked"
wait "$pid"
out=$(cat "$h/gate.out"); err=$(cat "$h/gate.err")
diag "out: $(printf '%s' "$out" | tr '\n' ' ') err: $(printf '%s' "$err" | tr '\n' ' ')"
like "$out" 'status=137' "the hog was killed"
like "$err" 'memory limit reached' "the session reports: memory limit reached"
like "$out" 'proxy: HTTP/1\.[01] [0-9]{3}' "the gate's proxy still answers inside after the kill"
rm -f "$kf"
is "$(lim_cgroups tlima)" "" "no cgroup is left after the session"

done_testing
