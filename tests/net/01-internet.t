#!/bin/bash
# The test internet (tests/lib/internet.sh) works from the host: DNS over
# UDP and TCP, HTTP with keep-alive and chunked uploads, HTTPS with the
# test CA, the TCP banners on 22 and 23, record changes.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
require_root
for c in dig curl nc; do
	command -v $c >/dev/null || skip_all "$c missing (tests/deps.sh test)"
done
N=n$$	# a run of its own, even beside another one
internet_up "$N" || skip_all "cannot build the test internet"
tmp=$(mktemp -d); at_exit "rm -rf $tmp"

ok "internet_up leaves no default route in the netns" \
	test -z "$(ip -n "$INET_NS" route show default)"
like "$(ip route get "$INET_ADDR_ORIGIN")" "dev $INET_HOST_IF" \
	"origin addresses are routed into the veth"
unlike "$INET_DNS $INET_HOST_ADDR $INET_ORIGIN_NET" '192\.0\.2\.' \
	"no address from the machine's real network"

# DNS
d() { dig +short +time=2 +tries=1 @"$INET_DNS" "$@"; }
is "$(d origin.test)" "$INET_ADDR_ORIGIN" "A origin.test over UDP"
is "$(d +tcp api.example.test)" "$INET_ADDR_API" "A api.example.test over TCP"
is "$(d denied.example.test)" "$INET_ADDR_DENIED" "A denied.example.test"
is "$(d multi.test | sort | tr '\n' ' ')" \
	"$(printf '%s\n' "$INET_ADDR_ORIGIN" "$INET_ADDR_API" | sort | tr '\n' ' ')" \
	"multi.test has two addresses"
is "$(d loopback.test)" "127.0.0.1" "loopback.test is 127.0.0.1"
is "$(d metadata.test)" "169.254.169.254" "metadata.test is 169.254.169.254"
is "$(d private.test)" "10.0.0.1" "private.test is 10.0.0.1"
is "$(d mapped.test AAAA)" "::ffff:127.0.0.1" "mapped.test is ::ffff:127.0.0.1"
is "$(d origin.test AAAA)" "" "no AAAA for origin.test"
like "$(dig +time=2 +tries=1 @"$INET_DNS" nosuch.test)" "status: NXDOMAIN" \
	"unknown .test name: NXDOMAIN"
like "$(dig +time=2 +tries=1 @"$INET_DNS" example.com)" "status: NXDOMAIN" \
	"a real-world name is not forwarded anywhere"
internet_dns_sync
like "$(cat "$INET_DNS_LOG")" "query\[A\] nosuch\.test from $INET_HOST_ADDR" \
	"queries are logged in INET_DNS_LOG"
is "$(inet_getent origin.test | awk '{print $1}')" "$INET_ADDR_ORIGIN" \
	"getent hosts through INET_RESOLV"
ok "internet_dns_set changes an answer" internet_dns_set "$N" rebind.test \
	"$INET_ADDR_OTHER"
is "$(d rebind.test)" "$INET_ADDR_OTHER" "rebind.test answers the new address"
internet_dns_set "$N" rebind.test "$INET_ADDR_ORIGIN" "$INET_ADDR_API"
is "$(d rebind.test | wc -l)" "2" "and then two addresses"
is "$(d origin.test)" "$INET_ADDR_ORIGIN" "other records unchanged"

# HTTP
c() { curl -sS --max-time 5 "$@"; }
cq() { curl -s --max-time 5 "$@"; }
is "$(c "http://$INET_ADDR_ORIGIN/")" "aisb-origin ok" "HTTP GET / by address"
is "$(c --resolve "api.example.test:80:$INET_ADDR_API" \
	http://api.example.test/)" "aisb-origin ok" "HTTP GET / by name"
like "$(c -H 'X-Aisb-Test: 42' "http://$INET_ADDR_ORIGIN/headers")" \
	'X-Aisb-Test: 42' "/headers echoes request headers"
like "$(c -D - -o /dev/null "http://$INET_ADDR_API/")" \
	"X-Origin-Addr: $INET_ADDR_API" "X-Origin-Addr names the address used"
like "$(c -v "http://$INET_ADDR_ORIGIN/" "http://$INET_ADDR_ORIGIN/headers" 2>&1)" \
	"Re-using existing connection" "keep-alive: two requests, one connection"
head -c 300000 /dev/urandom > "$tmp/up"
want=$(sha256sum < "$tmp/up" | cut -d' ' -f1)
got=$(c -H 'Transfer-Encoding: chunked' --data-binary @"$tmp/up" \
	-D "$tmp/h" "http://$INET_ADDR_ORIGIN/echo" | sha256sum | cut -d' ' -f1)
is "$got" "$want" "chunked upload echoed byte for byte"
like "$(cat "$tmp/h")" "X-Body-Sha256: $want" "origin saw the same body"
python3 -c 'import sys; sys.stdout.buffer.write((bytes(i % 251 for i in range(251)) * 800)[:200000])' \
	> "$tmp/want"
c -o "$tmp/got" "http://$INET_ADDR_ORIGIN/bytes/200000"
ok "/bytes/N is the documented pattern" cmp -s "$tmp/got" "$tmp/want"
echo "static-$$" > "$INET_WWW/f.txt"
is "$(c "http://$INET_ADDR_ORIGIN/static/f.txt")" "static-$$" "/static/ serves INET_WWW"
is "$(c -o /dev/null -w '%{http_code}' "http://$INET_ADDR_ORIGIN/static/../ca.key")" \
	"404" "/static/ stays inside INET_WWW"
like "$(cat "$INET_HTTP_LOG")" "^http $INET_HOST_ADDR $INET_ADDR_ORIGIN GET" \
	"requests are logged in INET_HTTP_LOG"

# HTTPS
is "$(c --cacert "$INET_CA" --resolve "origin.test:443:$INET_ADDR_ORIGIN" \
	https://origin.test/)" "aisb-origin ok" "HTTPS with the test CA"
is "$(c --cacert "$INET_CA" --resolve "other.example.test:443:$INET_ADDR_OTHER" \
	https://other.example.test/)" "aisb-origin ok" "HTTPS, a *.example.test name"
ok "HTTPS without the test CA fails verification" \
	! cq --resolve "origin.test:443:$INET_ADDR_ORIGIN" https://origin.test/ -o /dev/null
ok "HTTPS for a name not in the certificate fails" \
	! cq --cacert "$INET_CA" --resolve "evil.test:443:$INET_ADDR_ORIGIN" \
	https://evil.test/ -o /dev/null

# TCP services
out=$(printf 'line-one\n' | timeout 5 nc -q 1 "$INET_ADDR_ORIGIN" 22)
like "$out" "^SSH-2.0-aisb_origin port=22" "port 22 banner"
like "$out" "line-one" "port 22 echoes"
out=$(printf 'line-two\n' | timeout 5 nc -q 1 "$INET_ADDR_API" 23)
like "$out" "^aisb-origin port=23 addr=$INET_ADDR_API" "port 23 banner"
like "$out" "line-two" "port 23 echoes"
ok "nothing listens on 24 (a closed port is refused)" \
	! timeout 5 nc -z "$INET_ADDR_ORIGIN" 24
is "$(d svc.test)" "$INET_ADDR_SVC" "svc.test names the free service address"
ok "nothing listens on the service address until a suite adds it" \
	! timeout 5 nc -z "$INET_ADDR_SVC" 80
internet_spawn "$N" svc python3 -m http.server --bind "$INET_ADDR_SVC" \
	--directory "$INET_WWW" 8000
for _ in $(seq 50); do timeout 1 nc -z "$INET_ADDR_SVC" 8000 && break; sleep 0.1; done
is "$(c "http://$INET_ADDR_SVC:8000/f.txt")" "static-$$" \
	"a service added with internet_spawn is reachable"

done_testing
