#!/bin/bash
# The gate against the test internet (tests/lib/internet.sh): real
# dnsmasq as network.resolver, origins on 198.51.100.16/28 behind a veth
# pair, the session's own nftables capture (gatedrv --nft).  The sandbox
# side is gatedrv's netns, which has only lo.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
require_root
gt_lock
internet_up gat1 || skip_all "cannot build the test internet"
T=$(tap_scratch tgat)
at_exit "rm -rf '$T'"
tu_user tgat2 >/dev/null || skip_all "cannot create tgat2"
GT_USER=tgat2
cat > "$T/aisb.conf" <<C
network {
  mode = "gated"
  allow = {"origin.test:80,443,22", "*.example.test", "multi.test",
           "rebind.test", "loopback.test", "metadata.test", "private.test",
           "cgnat.test", "mapped.test", "loopback6.test", "v6.test"}
  deny = {"denied.example.test"}
  allow_cidr = {"$INET_ORIGIN_NET"}
  resolver = "$INET_DNS"
}
C
chmod 644 "$T/aisb.conf"
: > "$T/canary.log"
gt_gate --nft || skip_all "gate did not start"
cp "$INET_CA" "$T/ca.pem"
echo "nameserver 127.0.0.1" > "$T/resolv.conf"
gsh() {
	gin unshare -m bash -c "mount --bind '$T/resolv.conf' /etc/resolv.conf && $1"
}

is "$(gcurl http://origin.test/)" "aisb-origin ok" "proxy: http to an allowed name"
is "$(gcurl --cacert "$T/ca.pem" https://origin.test/)" "aisb-origin ok" "proxy: https (CONNECT) to an allowed name"
is "$(gcurl --cacert "$T/ca.pem" https://api.example.test/)" "aisb-origin ok" "proxy: a *.suffix name"
out=$(gcurl -D - http://denied.example.test/ 2>&1)
like "$out" "X-Aisb-Reason: network.deny" "proxy: a denied name: 403 with the rule"
out=$(gcurl -D - http://nothere.test/ 2>&1)
like "$out" "aisb: denied: nothere.test:80 is not in network.allow" "proxy: an unlisted name: 403 saying why"

like "$(gsh 'getent hosts origin.test')" "^198\.(18|19)\." "getent hosts: a synthetic address"
out=$(gsh 'getent hosts denied.example.test'; echo "rc=$?")
like "$out" "rc=2" "getent hosts: a denied name does not resolve"
is "$(gsh 'curl -sS --max-time 10 http://origin.test/')" "aisb-origin ok" "capture: curl without proxy variables"
is "$(gsh "curl -sS --max-time 10 --cacert $T/ca.pem https://origin.test/")" "aisb-origin ok" "capture: https without proxy variables"
out=$(gsh 'exec 3<>/dev/tcp/origin.test/22 && head -c 3 <&3' 2>&1)
is "$out" "SSH" "capture: port 22 of an allowed name (listed :22)"
out=$(gsh 'exec 3<>/dev/tcp/origin.test/23 && head -c 3 <&3' 2>&1)
unlike "$out" "SSH|aisb" "capture: port 23 of the same name is refused"
if command -v node >/dev/null; then
	out=$(gsh "node -e 'fetch(\"http://origin.test/\").then(r=>r.text()).then(t=>process.stdout.write(t)).catch(e=>{console.log(\"ERR\",String(e.cause||e));process.exit(1)})'" 2>&1)
	is "$out" "aisb-origin ok" "capture: node fetch without proxy variables"
else
	skip "capture: node fetch without proxy variables" "node not installed"
fi

out=$(gin curl -sS --max-time 3 "http://$INET_ADDR_ORIGIN/" 2>&1)
unlike "$out" "aisb-origin" "a direct connection to an origin's real address fails"
out=$(gin dig +tries=1 +time=2 @"$INET_DNS" origin.test 2>&1)
unlike "$out" "ANSWER: 1" "UDP to the internet's DNS server fails"
ok "ping from the host reaches the origin (twin)" quiet ping -c1 -W2 "$INET_ADDR_ORIGIN"
out=$(gin ping -c1 -W1 "$INET_ADDR_ORIGIN" 2>&1)
like "$out" "Network is unreachable|100% packet loss" "ping from inside fails"
out=$(gin python3 -c 'import socket; s=socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP); s.sendto(b"\x08\0\xf7\xff\0\0\0\0", ("'"$INET_ADDR_ORIGIN"'", 0)); print("sent")' 2>&1)
like "$out" "Network is unreachable" "a raw socket cannot send out"

for n in loopback metadata private cgnat mapped loopback6; do
	out=$(gcurl -D - http://$n.test/ 2>&1)
	like "$out" "X-Aisb-Reason: special-address" "$n.test: refused by its special-purpose address"
done
out=$(gcurl -D - http://v6.test/ 2>&1)
like "$out" "HTTP/1.1 (403|502)" "v6.test (documentation v6, not in allow_cidr): no connection"

# Rebinding through real dnsmasq (TTL 0): the first answer is checked and
# used; after the record changes to loopback, the next lookup is refused.
is "$(gcurl http://rebind.test/)" "aisb-origin ok" "rebind.test: first answer (an origin) used"
internet_dns_set gat1 rebind.test 127.0.0.1
out=$(gcurl -D - http://rebind.test/ 2>&1)
like "$out" "X-Aisb-Reason: special-address" "rebind.test: after it rebinds to 127.0.0.1, refused"

# DNS exfiltration: unique labels under names that are not allowed, and
# under an allowed wildcard, never reach dnsmasq through the stub.
for i in $(seq 1 50); do printf 'leak%03d-%s.exfil.invalid\n' "$i" "$RANDOM$RANDOM"; done > "$T/exfil"
gin dig +tries=1 +time=2 @127.0.0.1 -f "$T/exfil" A > "$T/exfil.out" 2>&1
is "$(grep -c 'status: NXDOMAIN' "$T/exfil.out")" "50" "50 exfiltration queries: NXDOMAIN from the stub"
for i in $(seq 1 20); do printf 'leak%03d-%s.example.test\n' "$i" "$RANDOM"; done > "$T/exfil2"
gin dig +tries=1 +time=2 @127.0.0.1 -f "$T/exfil2" A > "$T/exfil2.out" 2>&1
is "$(grep -c 'ANSWER: 1' "$T/exfil2.out")" "20" "unique names under an allowed *.suffix get synthetic answers"
unlike "$(cat "$INET_DNS_LOG")" "leak[0-9]" "... and none of these queries ever reached dnsmasq"
like "$(cat "$INET_DNS_LOG")" "query\[A\] origin\.test from $INET_HOST_ADDR" "... whose log does show the gate's own lookups (twin)"
ok "the gate is still running" gt_gate_alive
done_testing
