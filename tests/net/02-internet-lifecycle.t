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

internet_up net2a || skip_all "cannot build the test internet"
a_dns=$INET_DNS a_origin=$INET_ADDR_ORIGIN a_ns=$INET_NS a_if=$INET_HOST_IF
a_net=$INET_ORIGIN_NET a_dir=$INET_DIR
a_pids="$(cat "$INET_DIR"/*.pid)"
ok "first internet up" test -n "$a_pids"
internet_up net2b
b_dns=$INET_DNS b_origin=$INET_ADDR_ORIGIN b_ns=$INET_NS
ok "second internet up" q ip netns pids "$b_ns"
ok "they use different addresses" test "$a_dns" != "$b_dns" -a \
	"$a_origin" != "$b_origin"
is "$(d "$a_dns" origin.test)" "$a_origin" "first DNS answers its own origin"
is "$(d "$b_dns" origin.test)" "$b_origin" "second DNS answers its own origin"
like "$(curl -sS --max-time 5 -D - -o /dev/null "http://$a_origin/")" \
	"X-Origin-Addr: $a_origin" "first origin serves"
like "$(curl -sS --max-time 5 -D - -o /dev/null "http://$b_origin/")" \
	"X-Origin-Addr: $b_origin" "second origin serves"

ok "internet_spawn starts a service in the netns" internet_spawn net2a extra \
	sleep 300
a_pids="$a_pids $(cat "$a_dir/extra.pid")"
sleep 0.2
is "$(readlink "/proc/$(cat "$a_dir/extra.pid")/ns/net")" \
	"$(internet_exec net2a readlink /proc/self/ns/net)" \
	"the spawned service runs in the internet's netns"
unlike "$(internet_exec net2a ip -4 addr)" "192\.0\.2\." \
	"internet_exec runs in the netns (no host address there)"

internet_down net2a
ok "netns gone" ! q ip netns pids "$a_ns"
unlike "$(ip netns list)" "$a_ns( |$)" "netns not listed"
ok "host veth gone" ! q ip link show "$a_if"
unlike "$(ip route)" "${a_net%/*}" "route to its origins gone"
left=
for p in $a_pids; do [ -d "/proc/$p" ] && left="$left $p"; done
is "$left" "" "its dnsmasq, origin servers and spawned service are gone"
ok "its state directory is gone" test ! -e "$a_dir"
ok "internet_down twice is fine" internet_down net2a
is "$(d "$b_dns" origin.test)" "$b_origin" "the other internet still answers"
like "$(curl -sS --max-time 5 "http://$b_origin/")" "aisb-origin ok" \
	"and still serves"

# A leftover of a killed run (processes killed, netns kept) is replaced.
# shellcheck disable=SC2046
kill -KILL $(cat "$INET_DIR"/*.pid)
ok "internet_up over a leftover of the same name" internet_up net2b
is "$(d "$INET_DNS" api.example.test)" "$INET_ADDR_API" "rebuilt and answering"
internet_down net2b
unlike "$(ip netns list)" "aisbinet-net2" "no aisbinet-net2* netns left"
unlike "$(ip link)" "aih-net2" "no aih-net2* link left"
ok "no state left" test ! -e /run/aisbinet/net2a -a ! -e /run/aisbinet/net2b

# A name that cannot be an interface suffix is refused, nothing built.
ok "bad NAME refused" ! internet_up "Bad-Name" 2>/dev/null
ok "too long NAME refused" ! internet_up "net2abcdefg" 2>/dev/null

done_testing
