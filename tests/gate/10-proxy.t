#!/bin/bash
# The HTTP proxy: allowed names over http and https (CONNECT and
# absolute-URI), refusals with the rule that refused, keep-alive and
# chunked bodies passed through.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
gt_setup
gt_gate || skip_all "gate did not start"

out=$(gcurl http://origin.tgat.test:23080/hello 2>&1)
is "$out" "hello from origin 127.0.0.2:23080" "absolute-URI GET to an allowed name"

out=$(gcurl --cacert "$T/ca.pem" https://origin.tgat.test:23443/hello 2>&1)
is "$out" "hello from origin 127.0.0.2:23443 tls" "CONNECT + TLS to an allowed name (certificate verified)"

out=$(gcurl -p http://origin.tgat.test:23080/hello 2>&1)
is "$out" "hello from origin 127.0.0.2:23080" "CONNECT tunnel for plain http"

out=$(gcurl http://x.wild.tgat.test:23080/headers 2>&1)
like "$out" "Host: x.wild.tgat.test:23080" "*.suffix entry allows a subdomain; Host passed as sent"
unlike "$out" "Proxy-Connection" "Proxy-Connection is not forwarded"

hdr=$(gcurl -D - -o "$T/body" http://evil.example.com/ 2>&1)
like "$hdr" "^HTTP/1.1 403" "a name not in network.allow gets 403"
like "$hdr" "X-Aisb-Reason: network.allow" "... with X-Aisb-Reason naming the rule"
like "$(cat "$T/body")" "aisb: denied: evil.example.com:80 is not in network.allow" "... and a body that says why"

hdr=$(gcurl -D - -o "$T/body" http://bad.wild.tgat.test:23080/ 2>&1)
like "$hdr" "X-Aisb-Reason: network.deny" "network.deny wins over a matching *.suffix"
# A *.suffix deny entry: everything strictly below it is refused, a name
# that only ends in the same letters is not below it.
hdr=$(gcurl -D - -o "$T/body" http://x.bad.wild.tgat.test:23080/ 2>&1)
like "$hdr" "X-Aisb-Reason: network.deny" "a deny *.suffix refuses a name below it beside an allow *.suffix"
like "$(cat "$T/body")" "denied by network.deny entry \*\.bad\.wild\.tgat\.test" "... the body names the *.suffix entry"
out=$(gcurl -p -D - -o /dev/null http://x.bad.wild.tgat.test:23443/ 2>&1)
like "$out" "403" "... CONNECT to it: 403"
out=$(gcurl http://xbad.wild.tgat.test:23080/headers 2>&1)
like "$out" "Host: xbad.wild.tgat.test:23080" "... xbad.wild.tgat.test is not below it: allowed"
unlike "$(cat "$T/dns.log")" "x\.bad\.wild" "... the denied name never reached the resolver"
like "$(cat "$T/dns.log")" "xbad\.wild" "... the allowed one did (the log is live)"
hdr=$(gcurl -D - -o "$T/body" http://origin.tgat.test:23099/ 2>&1)
like "$hdr" "X-Aisb-Reason: network.ports" "an allowed name on a port it does not list: refused"
out=$(gcurl -p -D - -o /dev/null http://evil.example.com:443/ 2>&1)
like "$out" "403" "CONNECT to a denied name: 403"

# Keep-alive: two requests, one connection to the origin.
out=$(gcurl -v http://origin.tgat.test:23080/hello http://origin.tgat.test:23080/bytes/10 -o /dev/null -o /dev/null 2>&1)
like "$out" "Re-using existing connection" "keep-alive: curl reuses the proxy connection"
n=$(grep -c 'allow proxy name=origin.tgat.test port=23080 address=127.0.0.2 rule=.*keep-alive' "$T/gate.log")
is "$n" "1" "keep-alive: the second request decided and sent on the same origin connection"

# Keep-alive across origins: the next origin (or a refusal) waits until
# the current one has answered; the records name the right ports.
out=$(gcurl -v http://origin.tgat.test:23080/hello http://x.wild.tgat.test:23080/headers \
    http://evil.example.com/ 2>&1)
like "$out" "hello from origin 127.0.0.2:23080" "keep-alive across origins: the first answer"
like "$out" "X-Origin-Host: x.wild.tgat.test:23080" "... the second origin on the same client connection"
like "$out" "aisb: denied: evil.example.com:80" "... and a refusal after them"
is "$(grep -c 'Re-using existing connection' <<<"$out")" "2" "... all three on one client connection"
unlike "$(grep 'close proxy name=x.wild' "$T/gate.log")" "port=80 " "... each close record names its own port"

# Chunked request body and a Content-Length body.
out=$(printf 'chunked-body-%s' {1..200} | gcurl -H 'Transfer-Encoding: chunked' --data-binary @- http://origin.tgat.test:23080/echo)
is "$out" "echo:$(printf 'chunked-body-%s' {1..200})" "chunked request body passed through"
out=$(gcurl --data-binary 'plain body' http://origin.tgat.test:23080/echo)
is "$out" "echo:plain body" "Content-Length request body passed through"
out=$(gcurl http://origin.tgat.test:23080/close)
is "$out" "closing body" "a response delimited by the origin closing"

# Large transfer, byte-identical.
gcurl -o "$T/big" http://origin.tgat.test:23080/bytes/5000000
python3 -c "import sys; sys.stdout.buffer.write((bytes(range(256))*256*80)[:5000000])" > "$T/big.want"
ok "5 MB through the proxy, byte-identical" cmp -s "$T/big" "$T/big.want"
gcurl -p -o "$T/big" http://origin.tgat.test:23080/bytes/5000000
ok "5 MB through a CONNECT tunnel, byte-identical" cmp -s "$T/big" "$T/big.want"

# Non-HTTP through CONNECT: the banner service on an allowed port.
out=$(printf 'CONNECT origin.tgat.test:23022 HTTP/1.1\r\nHost: origin.tgat.test:23022\r\n\r\nping\n' |
    gin timeout 5 socat -t 2 - TCP:127.0.0.1:3128 2>&1)
like "$out" "SSH-2.0-tgat-banner" "CONNECT to a non-HTTP service on an allowed port"
like "$out" "ping" "... bytes sent after the CONNECT head reach the origin"

out=$(gcurl -D - http://origin.tgat.test:23081/ 2>&1)
like "$out" "HTTP/1.1 502" "nothing listens on an allowed port: 502"
like "$out" "aisb: cannot reach origin.tgat.test:23081: Connection refused \(127.0.0.2\)" "... saying why"
out=$(gcurl -D - http://nx.wild.tgat.test:23080/ 2>&1)
like "$out" "HTTP/1.1 502" "an allowed name that does not resolve: 502"
like "$out" "lookup failed: the name does not exist" "... saying why"

like "$(cat "$T/gate.log")" "allow proxy name=origin.tgat.test port=23080 address=127.0.0.2" "decisions are logged with name, port and address"
like "$(cat "$T/gate.log")" "close proxy name=origin.tgat.test port=23080 address=127.0.0.2 up=[0-9]+ down=[0-9]+ duration=" "closes are logged with bytes and duration"
ok "the gate is still running" gt_gate_alive

# A resolver where nothing listens: a 502 at once, not after the timeout.
gt_gate_stop
sed -i 's/127.0.0.1:23053/127.0.0.1:23054/' "$T/aisb.conf"
gt_gate_or_bail ""
t0=$(date +%s%N)
out=$(gcurl -D - http://origin.tgat.test:23080/hello 2>&1)
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
like "$out" "lookup failed: the resolver is not answering \(port unreachable\)" "no resolver: 502 saying so"
ok "... at once (${ms} ms)" [ "$ms" -lt 2000 ]
done_testing
