#!/bin/bash
# SSRF and rebinding: IP literals, names that resolve to loopback,
# link-local (metadata), private and v4-mapped addresses are refused
# before any connection; a canary on 127.0.0.1 never sees one.  Each
# attack has its legitimate twin that must work.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
gt_setup
gt_gate || skip_all "gate did not start"

connect_code() {	# CONNECT TARGET through the proxy, print the status
	printf 'CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n' "$1" "$1" |
	    gin timeout 5 socat -t 2 - TCP:127.0.0.1:3128 2>/dev/null | head -1 | tr -d '\r'
}

# Twin: an IP literal that allow_cidr covers, on network.ports.
is "$(connect_code 127.0.0.2:23080)" "HTTP/1.1 200 Connection established" "IP literal inside allow_cidr: allowed (twin)"
for lit in 127.0.0.1:23080 '[::1]:23080' 2130706433:23080 0x7f000001:23080 \
    0177.0.0.1:23080 127.1:23080 '[::ffff:127.0.0.1]:23080' 169.254.169.254:80; do
	is "$(connect_code "$lit")" "HTTP/1.1 403 Forbidden" "CONNECT $lit: 403"
done
out=$(gcurl -D - http://2130706433:23080/ 2>&1)
like "$out" "X-Aisb-Reason: network.allow_cidr" "absolute-URI to a decimal IP: refused by network.allow_cidr"
out=$(gcurl -D - 'http://[::1]:23080/' 2>&1)
like "$out" "403" "absolute-URI to [::1]: refused"

# Twin: the allowed name that resolves to the origin works.
is "$(gcurl http://origin.tgat.test:23080/hello)" "hello from origin 127.0.0.2:23080" "allowed name resolving to an allow_cidr address works (twin)"
for n in loop meta ten mapped; do
	out=$(gcurl -D - http://$n.tgat.test:23080/ 2>&1)
	like "$out" "X-Aisb-Reason: special-address" "$n.tgat.test resolves to a special-purpose address: 403"
done
like "$(grep 'refuse proxy name=meta.tgat.test' "$T/gate.log")" "address=169.254.169.254 reason=\"special-purpose range" "169.254.169.254 refused by range, logged"
like "$(grep 'refuse proxy name=mapped.tgat.test' "$T/gate.log")" "address=::ffff:127.0.0.1" "v4-mapped loopback refused"
unlike "$(cat "$T/gate.log")" "allow proxy name=(loop|meta|ten|mapped)\." "no connection was made for any of them"

# Rebinding: first answer 127.0.0.2 (allowed), every later one 127.0.0.1.
out=$(gcurl http://rebind.tgat.test:23080/hello)
is "$out" "hello from origin 127.0.0.2:23080" "rebinding name: the checked first answer is used"
out=$(gcurl -D - http://rebind.tgat.test:23080/hello 2>&1)
like "$out" "X-Aisb-Reason: special-address" "rebinding name: the next lookup's loopback answer is refused"
n=$(grep -c 'QUERY rebind.tgat.test A$' "$T/dns.log")
is "$n" "2" "one lookup per connection (no second lookup to rebind)"
ok "the canary on 127.0.0.1 never saw a connection" gt_canary_clean
done_testing
