#!/bin/bash
# From inside gated aisb-shell sessions (shell/net.c and shell/nft.c as
# the session runs them): the netns has only lo and `table inet aisb`;
# nothing reaches the test internet directly (TCP to an origin's real
# address, UDP to its DNS, v6, raw sockets, ping) while the proxy and the
# capture path do; the ruleset cannot be changed from inside.  The ruleset is read from outside with
# nsenter into the session's netns.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
require_root
[ -x "$AISB_SHELL" ] || skip_all "aisb-shell not built"
have_userns nobody || skip_all "no unprivileged user namespaces"
command -v nft >/dev/null || skip_all "nft missing (tests/deps.sh test)"
command -v dig >/dev/null || skip_all "dig missing (tests/deps.sh test)"

# Names of this run only: several people may run make check at once.
U=tnet1x$$
N=n$$
mkdir -p /srv
TOP=$(mktemp -d /srv/aisbt-net.XXXXXX) || skip_all "cannot make a directory in /srv"
chmod 0755 "$TOP"
install -d -m 0755 -o root -g root "$TOP/conf"
at_exit "rm -rf '$TOP'"
tu_user "$U" || skip_all "cannot create $U"
install -d -m 0755 -o "$U" -g "$U" "$TOP/$U" "$TOP/$U/project"
internet_up "$N" || skip_all "cannot build the test internet"

# conf NAME NETWORK-LINES...: a root-owned policy; prints its path.
conf() {
	local f=$TOP/conf/$1.conf
	shift
	{
		echo "project { path = \"$TOP/%u/project\"  roots = {\"$TOP/%u\"} }"
		echo 'home { path = "tmpfs" }'
		echo 'limits { memory = 0  pids = 0  cpu = "0%" }'
		echo 'network {'
		printf '  %s\n' "$@"
		echo '}'
	} > "$f"
	chmod 0644 "$f"
	echo "$f"
}
gated=$(conf gated 'mode = "gated"' \
	'allow = {"origin.test", "api.example.test:22,80,443"}' \
	"allow_cidr = {\"$INET_ORIGIN_NET\"}" "resolver = \"$INET_DNS\"")
opaque=$(conf opaque 'mode = "gated"' 'transparent = false' \
	'allow = {"origin.test"}' \
	"allow_cidr = {\"$INET_ORIGIN_NET\"}" "resolver = \"$INET_DNS\"")
none=$(conf none 'mode = "none"')

# insh CONF CMD: run CMD (a bash string) in a session; stdout+stderr.
insh() { as "$U" "$AISB_SHELL" --config "$1" -c "$2" 2>&1 </dev/null; }

# netns_of CONF N: start a session that sleeps (N: a unique number to find
# it by), set NS to the netns path of its inner process (for nsenter from
# here); the session is ended at exit.  Not in a subshell: at_exit.
netns_of() {
	local p i
	NS=
	as "$U" "$AISB_SHELL" --config "$1" -c "exec sleep 6$2" \
	    </dev/null >/dev/null 2>&1 &
	for i in $(seq 100); do
		p=$(pgrep -u "$U" -x -f "sleep 6$2" | head -1)
		[ -n "$p" ] && [ "$(readlink "/proc/$p/ns/net")" != \
		    "$(readlink /proc/self/ns/net)" ] && break
		p=
		sleep 0.05
	done
	[ -n "$p" ] || return 1
	at_exit "kill $p"
	NS=/proc/$p/ns/net
}
squash() { tr -s ' \t\n' ' ' | sed 's/^ //; s/ $//'; }

want_ruleset=$(squash <<'R'
table inet aisb {
	chain capture {
		type nat hook output priority -100; policy accept;
		meta l4proto tcp ip daddr 198.18.0.0/15 redirect to :3129
	}
	chain output {
		type filter hook output priority filter; policy drop;
		meta l4proto tcp ip daddr 198.18.0.0/15 reject with tcp reset
		ip daddr 198.18.0.0/15 reject with icmpx admin-prohibited
		oif "lo" accept
	}
}
R
)

# --- the netns, seen from inside and from outside
out=$(insh "$gated" 'echo in-session; ip -o link | cut -d: -f2; ip route')
like "$out" "in-session" "a gated session runs"
is "$(echo "$out" | sed -n 2p | tr -d ' ')" "lo" "its netns has only lo"
like "$out" "198.18.0.0/15 dev lo .*src 127.0.0.1" \
	"the synthetic range is routed to lo"
unlike "$out" "default" "no default route"
out=$(insh "$gated" '/usr/sbin/nft list ruleset; echo "rc=$?"')
if echo "$out" | grep -q "rc=0"; then
	is "$(echo "$out" | grep -v '^rc=' | squash)" "$want_ruleset" \
		"nft list ruleset inside shows only table inet aisb"
else
	like "$out" "Operation not permitted" \
		"nft list ruleset inside is refused (no CAP_NET_ADMIN)"
fi
netns_of "$gated" 1; ns=$NS
ok "found the session's netns" test -n "$ns"
is "$(nsenter --net="$ns" nft list ruleset | squash)" "$want_ruleset" \
	"from outside: the ruleset is exactly table inet aisb"
is "$(nsenter --net="$ns" nft list tables)" "table inet aisb" \
	"from outside: no other table"

# --- the legitimate twins
is "$(insh "$gated" 'curl -sS --max-time 10 http://origin.test/')" \
	"aisb-origin ok" "twin: curl through the proxy to an allowed name"
is "$(insh "$gated" 'curl -sS --noproxy "*" --max-time 10 http://origin.test/')" \
	"aisb-origin ok" "twin: curl without the proxy (capture path)"
like "$(insh "$gated" 'getent hosts origin.test')" '^198\.1[89]\.' \
	"twin: the stub answers a synthetic address"
like "$(insh "$gated" 'dig +short +time=2 +tries=1 @127.0.0.1 origin.test')" \
	'^198\.1[89]\.' "twin: UDP DNS to the stub on 127.0.0.1 works"

# --- nothing direct
m=direct-$$
out=$(insh "$gated" "curl -sS --noproxy '*' --max-time 5 http://$INET_ADDR_ORIGIN/$m")
unlike "$out" "aisb-origin" "TCP to an origin's real address fails"
like "$out" "Couldn't connect|unreachable|refused" "... at once, not by timeout"
out=$(insh "$gated" "exec 3<>/dev/tcp/$INET_ADDR_ORIGIN/22 && head -c 7 <&3")
unlike "$out" "SSH-2.0" "TCP :22 to an origin's real address fails"
ok "the origin never saw those connections" ! grep -q "$m" "$INET_HTTP_LOG"
out=$(insh "$gated" "dig +time=2 +tries=1 @$INET_DNS udp-$m.test; echo rc=\$?")
unlike "$out" "status: NXDOMAIN|ANSWER" "UDP to the internet's DNS server fails"
out=$(insh "$gated" "dig +tcp +time=2 +tries=1 @$INET_DNS tcp-$m.test; echo rc=\$?")
unlike "$out" "status: NXDOMAIN|ANSWER" "TCP DNS to the internet's DNS server fails"
# Negative, so behind a barrier: the log is complete up to a later query.
ok "dnsmasq never saw those queries" \
	eval 'internet_dns_sync && ! grep -q "$m" "$INET_DNS_LOG"'
out=$(insh "$gated" "python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print(s.sendto(b\"x\", (\"$INET_ADDR_ORIGIN\", 53)))'")
like "$out" "Error" "UDP sendto an origin fails"
out=$(insh "$gated" "python3 -c 'import socket; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); print(s.sendto(b\"x\", (\"198.18.0.9\", 53)))'")
like "$out" "PermissionError|Operation not permitted" \
	"UDP to the synthetic range is rejected by the filter"
out=$(insh "$gated" "curl -sS --noproxy '*' --max-time 5 'http://[2001:db8::1]/'")
like "$out" "Couldn't connect|unreachable" "IPv6 to anything but lo fails"
out=$(insh "$gated" "python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)'")
like "$out" "PermissionError|Operation not permitted" "a raw socket cannot be opened"
out=$(insh "$gated" "ping -c 1 -W 1 $INET_ADDR_ORIGIN; echo rc=\$?")
like "$out" "$RC_FAILED" "ping an origin fails"
out=$(insh "$gated" "python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM, socket.IPPROTO_ICMP)'")
like "$out" "PermissionError|Operation not permitted" "a ping socket cannot be opened"

# --- the ruleset cannot be changed from inside (nft_rules_immutable_inside)
for cmd in "flush ruleset" "delete table inet aisb" "add table inet evil" \
    "add rule inet aisb output accept" \
    "'add chain inet aisb output { policy accept; }'"; do
	out=$(insh "$gated" "/usr/sbin/nft $cmd; echo rc=\$?")
	like "$out" "$RC_FAILED" "nft $cmd fails inside"
done
out=$(insh "$gated" 'ip route add default dev lo; echo rc=$?; ip link add x0 type veth peer name x1; echo rc=$?')
is "$(printf '%s\n' "$out" | grep -cE "^$RC_FAILED")" 2 "routes and links cannot be added inside"
out=$(insh "$gated" "unshare -rn /usr/sbin/nft list ruleset; echo rc=\$?")
like "$out" "$RC_FAILED" "no nested namespace to get CAP_NET_ADMIN in"
is "$(nsenter --net="$ns" nft list ruleset | squash)" "$want_ruleset" \
	"from outside: the running session's ruleset is unchanged"

# --- network.transparent = false: no capture chain, fail fast
netns_of "$opaque" 2; nso=$NS
ok "found the transparent = false session's netns" test -n "$nso"
like "$(nsenter --net="$nso" nft list ruleset | squash)" \
	"^table inet aisb \{ chain output \{" "transparent = false: only the output chain"
is "$(insh "$opaque" 'curl -sS --max-time 10 http://origin.test/')" \
	"aisb-origin ok" "twin: the proxy still works"
out=$(insh "$opaque" 'curl -sS --noproxy "*" --max-time 5 http://origin.test/')
like "$out" "refused|Couldn't connect" "without the capture, a direct connect is refused at once"

# --- network.mode = none: lo only, no table, nothing out
netns_of "$none" 3; nsn=$NS
ok "found the mode none session's netns" test -n "$nsn"
is "$(nsenter --net="$nsn" nft list ruleset 2>&1; echo "rc=$?")" "rc=0" \
	"mode none: no ruleset"
is "$(nsenter --net="$nsn" ip route 2>&1; echo "rc=$?")" "rc=0" \
	"mode none: no route at all"
out=$(insh "$none" "curl -sS --max-time 5 http://$INET_ADDR_ORIGIN/")
like "$out" "Couldn't connect|unreachable" "mode none: nothing reachable"

done_testing
