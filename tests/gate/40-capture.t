#!/bin/bash
# The capture path: tools that ignore proxy variables resolve through the
# stub, connect to the synthetic address, nftables (shell/nft.c, the
# session's own setup) redirects to the capture port, and the gate maps
# the address back to the name and decides as for CONNECT.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
gt_setup
gt_gate --nft || skip_all "gate with nftables capture did not start"

# A mount namespace whose /etc/resolv.conf points at the stub.
echo "nameserver 127.0.0.1" > "$T/resolv.conf"
gsh() {
	gin unshare -m bash -c "mount --bind '$T/resolv.conf' /etc/resolv.conf && $1"
}

addr=$(gsh "getent hosts origin.tgat.test" | awk '{print $1}')
like "$addr" "^198\.(18|19)\." "getent hosts: an allowed name has a synthetic address"
out=$(gsh "getent hosts evil.example.com"; echo "rc=$?")
like "$out" "rc=2" "getent hosts: a name not allowed does not resolve"

out=$(gsh "curl -sS --max-time 10 http://origin.tgat.test:23080/hello" 2>&1)
is "$out" "hello from origin 127.0.0.2:23080" "curl without proxy variables: http through the capture path"
out=$(gsh "curl -sS --max-time 10 --cacert '$T/ca.pem' https://origin.tgat.test:23443/hello" 2>&1)
is "$out" "hello from origin 127.0.0.2:23443 tls" "curl without proxy variables: https through the capture path"

out=$(gsh "exec 3<>/dev/tcp/origin.tgat.test/23022 && head -c 19 <&3" 2>&1)
is "$out" "SSH-2.0-tgat-banner" "a non-HTTP service on an allowed port (:23022, like :22)"
out=$(gsh "exec 3<>/dev/tcp/origin.tgat.test/23023 && head -c 19 <&3" 2>&1)
unlike "$out" "SSH-2.0" "a port the entry does not list (:23023, like :23): no connection"
like "$(cat "$T/gate.log")" "deny capture name=origin.tgat.test port=23023 rule=network.ports" "... refused by network.ports, logged"

# A name below a deny *.suffix (beside an allow *.suffix): no address,
# no connection; a name below the allow only works.
out=$(gsh "getent hosts x.bad.wild.tgat.test"; echo "rc=$?")
like "$out" "rc=2" "getent hosts: a name below a deny *.suffix does not resolve"
out=$(gsh "curl -sS --max-time 10 http://x.bad.wild.tgat.test:23080/hello" 2>&1)
unlike "$out" "hello from origin" "curl without proxy variables: no connection to it"
out=$(gsh "curl -sS --max-time 10 http://x.wild.tgat.test:23080/hello" 2>&1)
is "$out" "hello from origin 127.0.0.2:23080" "... a name below the allow *.suffix: through the capture path"

# A synthetic address nobody was given: refused.
out=$(gin curl -sS --max-time 5 http://198.19.255.254:23080/ 2>&1)
unlike "$out" "hello" "a synthetic address without a name: no connection"
like "$(cat "$T/gate.log")" "deny capture name=198.19.255.254" "... logged"

# Node's fetch without proxy variables.
if command -v node >/dev/null; then
	out=$(gsh "node -e 'fetch(\"http://origin.tgat.test:23080/hello\").then(r=>r.text()).then(t=>process.stdout.write(t)).catch(e=>{console.log(\"ERR\",e.cause||e);process.exit(1)})'" 2>&1)
	is "$out" "hello from origin 127.0.0.2:23080" "node fetch without proxy variables"
else
	skip "node fetch without proxy variables" "node not installed"
fi

# The origin's real address is not reachable from inside.
out=$(gin curl -sS --max-time 3 http://127.0.0.2:23080/hello 2>&1)
unlike "$out" "hello from origin" "a direct connection to the origin's real address fails"
out=$(gin bash -c 'exec 3<>/dev/udp/127.0.0.1/23053 && echo reached' 2>&1; gin dig +tries=1 +time=2 @127.0.0.1 -p 23053 origin.tgat.test 2>&1)
unlike "$out" "ANSWER: 1" "UDP to the host's DNS server does not get through"
ok "the canary never saw a connection" gt_canary_clean
done_testing
