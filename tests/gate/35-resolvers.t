#!/bin/bash
# The gate's upstream nameservers when network.resolver is not set: the
# first three nameserver lines of /etc/resolv.conf, in order.  A server
# that is port-unreachable, never answers, answers SERVFAIL, or
# truncates with nothing on TCP hands the query to the next one within
# the lookup's 5 s; when the first answers, the others get nothing;
# when none does, the client gets the gate's 502 saying why; the
# answers a later server gives are checked as any other.
#
# resolv.conf has no ports, so the servers listen on 127.0.0.N:53: the
# whole test runs in its own network namespace (nothing else there) and
# mount namespace, with its resolv.conf bind-mounted over the host's.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
if [ -z "${TRES_INNER:-}" ]; then
	require_root
	unshare --net --mount --propagation private true 2>/dev/null ||
	    skip_all "cannot unshare a network and mount namespace"
	[ -e /etc/resolv.conf ] || skip_all "no /etc/resolv.conf to cover"
	TRES_INNER=1 exec unshare --net --mount --propagation private -- "$0" "$@"
fi
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"

ip link set lo up || skip_all "cannot bring lo up in the test's netns"
gt_setup
: > "$T/resolv.conf"
chmod 644 "$T/resolv.conf"
mount --bind "$T/resolv.conf" /etc/resolv.conf ||
    skip_all "cannot bind-mount over /etc/resolv.conf"
# The policy without network.resolver: the host's nameservers.
sed -i '/resolver = /d' "$T/aisb.conf"

# NS ADDR MODE: a DNS server on ADDR:53 logging to $T/ns-ADDR.log.
ns() {
	: > "$T/ns-$1.log"
	gt_bg python3 "$GT_PY" dns "$1" 53 "$T/dns.table" "$T/ns-$1.log" ${2:+"$2"}
}
ns 127.0.0.3               # answers
ns 127.0.0.4               # answers
ns 127.0.0.5 --silent      # never answers
ns 127.0.0.6 --servfail
ns 127.0.0.7 --tc          # truncated, and nothing listens on TCP
# 127.0.0.9-11: nothing listens (port unreachable)
for a in 3 4 5 6 7; do
	for _ in $(seq 1 100); do
		ss -Hlun "src 127.0.0.$a and sport = :53" | grep -q . && break
		sleep 0.05
	done
done

asked() { grep -c 'QUERY origin.tgat.test' "$T/ns-$1.log"; }

# case NAMESERVER...: resolv.conf lists them; fresh logs and gate.
case_() {
	gt_gate_stop
	printf 'nameserver %s\n' "$@" > "$T/resolv.conf"
	for a in 3 4 5 6 7; do : > "$T/ns-127.0.0.$a.log"; done
	gt_gate_or_bail
}

# get URL: the response (head and body) in $out, the time in $ms.
get() {
	local t0
	t0=$(date +%s%N)
	out=$(gcurl -D - "$1" 2>&1)
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
}

url=http://origin.tgat.test:23080/hello

# Legitimate twin: the first server answers, the second is never asked.
case_ 127.0.0.3 127.0.0.4
get "$url"
like "$out" "hello from origin" "first nameserver answers: the origin is reached"
ok "... the first nameserver was asked" [ "$(asked 127.0.0.3)" -ge 1 ]
is "$(asked 127.0.0.4)" 0 "... the second one was not"

# Nothing listens on the first: the second at once.
case_ 127.0.0.9 127.0.0.4
get "$url"
like "$out" "hello from origin" "first nameserver port-unreachable: resolved by the second"
ok "... at once (${ms} ms)" [ "$ms" -lt 2000 ]
ok "... the second was asked" [ "$(asked 127.0.0.4)" -ge 1 ]
# Its answers are checked as the first's would be: loopback is refused.
get http://loop.tgat.test:23080/
like "$out" "HTTP/1.1 403" "an answer from the second nameserver in a special range: 403"
ok "... the canary was never reached" gt_canary_clean

# The first never answers: the second after a second, within the deadline.
case_ 127.0.0.5 127.0.0.4
get "$url"
like "$out" "hello from origin" "first nameserver silent: resolved by the second"
ok "... within the 5 s lookup deadline (${ms} ms)" [ "$ms" -lt 4000 ]
ok "... the silent one was asked first" [ "$(asked 127.0.0.5)" -ge 1 ]
ok "... then the second" [ "$(asked 127.0.0.4)" -ge 1 ]

# SERVFAIL from the first: the second at once.
case_ 127.0.0.6 127.0.0.4
get "$url"
like "$out" "hello from origin" "first nameserver SERVFAIL: resolved by the second"
ok "... at once (${ms} ms)" [ "$ms" -lt 2000 ]
ok "... both were asked" [ "$(asked 127.0.0.6)" -ge 1 -a "$(asked 127.0.0.4)" -ge 1 ]

# Truncated by the first, whose TCP is closed: the second.
case_ 127.0.0.7 127.0.0.4
get "$url"
like "$out" "hello from origin" "first nameserver truncates, its TCP fails: resolved by the second"
ok "... at once (${ms} ms)" [ "$ms" -lt 2000 ]

# Three: the first two dead in both ways, the third answers.
case_ 127.0.0.9 127.0.0.5 127.0.0.3
get "$url"
like "$out" "hello from origin" "third nameserver answers after two dead ones"
ok "... within the deadline (${ms} ms)" [ "$ms" -lt 4000 ]

# At most three (glibc's MAXNS): a fourth line is not used.
case_ 127.0.0.9 127.0.0.10 127.0.0.11 127.0.0.3
get "$url"
like "$out" "HTTP/1.1 502" "three dead nameservers, a live fourth: 502"
like "$out" "lookup failed: the resolver is not answering \(port unreachable\) \(3 nameservers tried\)" "... saying all three are port-unreachable"
is "$(asked 127.0.0.3)" 0 "... the fourth was not asked"

# All dead: the existing failure, at the deadline.
case_ 127.0.0.5 127.0.0.9
get "$url"
like "$out" "lookup failed: the resolver did not answer in time \(2 nameservers tried\)" "all nameservers dead: 502 saying so"
ok "... at the 5 s deadline (${ms} ms)" [ "$ms" -ge 4500 -a "$ms" -lt 9000 ]

# One server answering SERVFAIL: it is said, not "no address".
case_ 127.0.0.6
get "$url"
like "$out" "lookup failed: the resolver failed to answer \(SERVFAIL\)" "a lone SERVFAIL nameserver: 502 saying SERVFAIL"

# network.resolver set: that one server only, resolv.conf is not read.
sed -i 's/^\(  ports = .*\)$/\1\n  resolver = "127.0.0.4"/' "$T/aisb.conf"
case_ 127.0.0.3
get "$url"
like "$out" "hello from origin" "network.resolver set: resolved by it"
is "$(asked 127.0.0.3)" 0 "... the resolv.conf nameserver was not asked"
ok "... network.resolver was" [ "$(asked 127.0.0.4)" -ge 1 ]

gt_gate_stop
ok "the gate ended cleanly" gt_gate_dead
done_testing
