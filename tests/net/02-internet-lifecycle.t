#!/bin/bash
# Two test internets coexist (other parts run their tests in parallel),
# and internet_down leaves nothing behind: no netns, no veth, no route, no
# process, no state.  Running it twice, or after a half-built or killed
# internet, is safe.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
require_root
command -v dig >/dev/null || skip_all "dig missing (tests/deps.sh test)"

q() { "$@" >/dev/null 2>&1; }
d() { dig +short +time=2 +tries=1 @"$1" "$2"; }

A=a$$ B=b$$	# runs of their own, even beside another one
T_PIDS=$(mktemp)
at_exit "rm -f '$T_PIDS'"
internet_up "$A" || skip_all "cannot build the test internet"
a_dns=$INET_DNS a_origin=$INET_ADDR_ORIGIN a_ns=$INET_NS a_if=$INET_HOST_IF
a_net=$INET_ORIGIN_NET a_dir=$INET_DIR
a_pids="$(cat "$INET_DIR"/*.pid)"
ok "first internet up" test -n "$a_pids"
internet_up "$B"
b_dns=$INET_DNS b_origin=$INET_ADDR_ORIGIN b_ns=$INET_NS b_dir=$INET_DIR
ok "second internet up" q ip netns pids "$b_ns"
ok "they use different addresses" test "$a_dns" != "$b_dns" -a \
	"$a_origin" != "$b_origin"
is "$(d "$a_dns" origin.test)" "$a_origin" "first DNS answers its own origin"
is "$(d "$b_dns" origin.test)" "$b_origin" "second DNS answers its own origin"
like "$(curl -sS --max-time 5 -D - -o /dev/null "http://$a_origin/")" \
	"X-Origin-Addr: $a_origin" "first origin serves"
like "$(curl -sS --max-time 5 -D - -o /dev/null "http://$b_origin/")" \
	"X-Origin-Addr: $b_origin" "second origin serves"

ok "internet_spawn starts a service in the netns" internet_spawn "$A" extra \
	sleep 300
a_pids="$a_pids $(cat "$a_dir/extra.pid")"
sleep 0.2
is "$(readlink "/proc/$(cat "$a_dir/extra.pid")/ns/net")" \
	"$(internet_exec "$A" readlink /proc/self/ns/net)" \
	"the spawned service runs in the internet's netns"
unlike "$(internet_exec "$A" ip -4 addr)" "192\.0\.2\." \
	"internet_exec runs in the netns (no host address there)"

internet_down "$A"
ok "netns gone" ! q ip netns pids "$a_ns"
unlike "$(ip netns list)" "$a_ns( |$)" "netns not listed"
ok "host veth gone" ! q ip link show "$a_if"
unlike "$(ip route)" "${a_net%/*}" "route to its origins gone"
left=
for p in $a_pids; do [ -d "/proc/$p" ] && left="$left $p"; done
is "$left" "" "its dnsmasq, origin servers and spawned service are gone"
ok "its state directory is gone" test ! -e "$a_dir"
ok "internet_down twice is fine" internet_down "$A"
is "$(d "$b_dns" origin.test)" "$b_origin" "the other internet still answers"
like "$(curl -sS --max-time 5 "http://$b_origin/")" "aisb-origin ok" \
	"and still serves"

# A leftover whose owner died without internet_down (a killed run) is
# removed by the next internet_up, whatever its NAME.
C=c$$
bash -c '. "$1"; internet_up "$2" && cat "$INET_DIR"/*.pid' sh \
	"$AISB_SRC/tests/lib/internet.sh" "$C" > "$T_PIDS" 2>/dev/null
ok "a shell that exits without internet_down leaves its internet" \
	q ip netns pids "aisbinet-$C"
internet_up "$A"
ok "the next internet_up removes it" ! q ip netns pids "aisbinet-$C"
left=
while read -r p; do [ -d "/proc/$p" ] && left="$left $p"; done < "$T_PIDS"
is "$left" "" "and its processes"
internet_down "$A"

# A leftover of a killed run (processes killed, netns kept) is replaced.
# shellcheck disable=SC2046
kill -KILL $(cat "$b_dir"/*.pid)
ok "internet_up over a leftover of the same name" internet_up "$B"
is "$(d "$INET_DNS" api.example.test)" "$INET_ADDR_API" "rebuilt and answering"
internet_down "$B"
unlike "$(ip netns list)" "aisbinet-($A|$B)( |$)" "no netns of this test left"
unlike "$(ip link)" "aih-($A|$B)[@:]" "no link of this test left"
ok "no state left" test ! -e "/run/aisbinet/$A" -a ! -e "/run/aisbinet/$B"

# A name that cannot be an interface suffix is refused, nothing built.
ok "bad NAME refused" ! internet_up "Bad-Name" 2>/dev/null
ok "too long NAME refused" ! internet_up "toolongname" 2>/dev/null

done_testing
