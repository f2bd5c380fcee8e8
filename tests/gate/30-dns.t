#!/bin/bash
# The DNS stub on 127.0.0.1:53 inside: synthetic A answers for allowed
# names (stable per name), empty AAAA, NXDOMAIN for everything else,
# over UDP and TCP, every query logged, nothing forwarded upstream.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
gt_setup
gt_gate || skip_all "gate did not start"

dq() { gin dig +tries=1 +time=3 @127.0.0.1 "$@"; }

a1=$(dq +short origin.tgat.test A)
like "$a1" "^198\.(18|19)\.[0-9]+\.[0-9]+$" "A for an allowed name: a synthetic 198.18.0.0/15 address"
a2=$(dq +short origin.tgat.test A)
is "$a2" "$a1" "the same name gets the same address again"
a3=$(dq +short +tcp ORIGIN.tgat.test. A)
is "$a3" "$a1" "over TCP and in another case: the same address"
w=$(dq +short x.wild.tgat.test A)
like "$w" "^198\.(18|19)\." "a *.suffix name gets an address"
[ "$w" != "$a1" ]; ok "a different name gets a different address" [ "$w" != "$a1" ]

out=$(dq origin.tgat.test AAAA)
like "$out" "status: NOERROR" "AAAA for an allowed name: NOERROR"
like "$out" "ANSWER: 0" "... with no answer"
out=$(dq origin.tgat.test MX)
like "$out" "status: NOERROR" "MX for an allowed name: NOERROR"
like "$out" "ANSWER: 0" "... and empty"
out=$(dq evil.example.com A)
like "$out" "status: NXDOMAIN" "a name not allowed: NXDOMAIN"
out=$(dq +tcp evil.example.com A)
like "$out" "status: NXDOMAIN" "... over TCP too"
out=$(dq bad.wild.tgat.test A)
like "$out" "status: NXDOMAIN" "a denied name: NXDOMAIN"
out=$(dq x.bad.wild.tgat.test A)
like "$out" "status: NXDOMAIN" "a name below a deny *.suffix: NXDOMAIN"
like "$(dq +short xbad.wild.tgat.test A)" "^198\.(18|19)\." "... a name that only ends in the same letters gets an address"
out=$(dq 1.0.0.127.in-addr.arpa PTR)
like "$out" "status: NXDOMAIN" "PTR queries: NXDOMAIN"
out=$(dq -c CH version.bind TXT)
like "$out" "status: REFUSED" "class CH: REFUSED"

# Exfiltration: many unique labels under a name that is not allowed.
for i in $(seq 1 40); do
	printf 'secret%04d-%s.exfil.example.net\n' "$i" "$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')"
done > "$T/exfil.names"
gin dig +tries=1 +time=2 @127.0.0.1 -f "$T/exfil.names" A > "$T/exfil.out" 2>&1
n=$(grep -c "status: NXDOMAIN" "$T/exfil.out")
is "$n" "40" "40 unique exfiltration names: all NXDOMAIN"
unlike "$(cat "$T/dns.log")" "exfil|secret|evil|origin.tgat.test A" "no stub query ever reached the upstream DNS server"
like "$(cat "$T/gate.log")" "dns udp query name=evil.example.com type=A decision=deny" "queries are logged with name, type and decision"
like "$(cat "$T/gate.log")" "dns tcp query name=ORIGIN.tgat.test type=A decision=allow address=$a1" "allowed queries are logged with the address"
# A query flood: logged up to the rate limit, the rest counted.
for i in $(seq 1 300); do echo "flood$i.example.net"; done > "$T/flood.names"
gin dig +tries=1 +time=2 @127.0.0.1 -f "$T/flood.names" A > "$T/flood.out" 2>&1
is "$(grep -c 'status: NXDOMAIN' "$T/flood.out")" "300" "300 queries in a burst: all answered"
sleep 0.2
gin dig +short @127.0.0.1 origin.tgat.test >/dev/null
n=$(grep -c "name=flood" "$T/gate.log")
ok "... but not all logged ($n lines)" [ "$n" -lt 300 ]
like "$(cat "$T/gate.log")" "aisb-gate: [0-9]+ DNS query log lines suppressed \(rate limit\)" "... and the suppressed lines are counted"
ok "the gate is still running" gt_gate_alive
done_testing
