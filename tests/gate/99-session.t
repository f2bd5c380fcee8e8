#!/bin/bash
# shellcheck disable=SC2016 # inner shells expand their own variables
# End to end: from inside real aisb-shell sessions (gated mode) against
# the test internet.  The session starts the gate (gatectl_spawn), init
# sets up lo, the route and nftables (net.c, nft.c) and hands the gate its
# sockets; the inner gets the proxy variables and a resolv.conf naming
# the stub.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
require_root
[ -x "$AISB_SHELL" ] || skip_all "aisb-shell not built"
have_userns nobody || skip_all "no unprivileged user namespaces"
gt_lock
U=tgat3
tu_user "$U" >/dev/null || skip_all "cannot create $U"
TOP=$(mktemp -d /srv/tgat.XXXXXX 2>/dev/null) || { mkdir -p /srv && TOP=$(mktemp -d /srv/tgat.XXXXXX); }
chmod 755 "$TOP"
at_exit "rm -rf '$TOP'"
install -d -m 0755 -o "$U" -g "$U" "$TOP/$U" "$TOP/$U/project"
probe=$(as "$U" "$AISB_SHELL" -c true 2>&1)
case "$probe" in *"not built yet"*) skip_all "sessions are not built yet" ;; esac
internet_up gat3 || skip_all "cannot build the test internet"
cat > "$TOP/aisb.conf" <<C
project {
  path = "$TOP/%u/project"
  roots = {"$TOP/%u"}
}
home { path = "tmpfs" }
limits { memory = 0  pids = 0  cpu = "0%" }
network {
  mode = "gated"
  allow = {"origin.test:80,443,22", "*.example.test", "loopback.test:23180",
           "metadata.test", "private.test"}
  deny = {"denied.example.test"}
  allow_cidr = {"$INET_ORIGIN_NET"}
  resolver = "$INET_DNS"
}
C
chmod 644 "$TOP/aisb.conf"
# The CA where the inner can read it: the project.
cp "$INET_CA" "$TOP/$U/project/ca.pem"
chmod 644 "$TOP/$U/project/ca.pem"
s() { as "$U" "$AISB_SHELL" --config "$TOP/aisb.conf" -c "$1" 2>&1; }
noproxy='env -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy'

out=$(s 'echo "$HTTP_PROXY $HTTPS_PROXY $NO_PROXY $NODE_USE_ENV_PROXY"')
like "$out" "^http://127.0.0.1:3128 http://127.0.0.1:3128 localhost,127.0.0.1,::1 1$" "the proxy variables are set inside"
is "$(s 'curl -sS --max-time 10 http://origin.test/')" "aisb-origin ok" "curl via the proxy variables: http"
is "$(s "curl -sS --max-time 10 --cacert /project/ca.pem https://origin.test/")" "aisb-origin ok" "curl via the proxy variables: https"
is "$(s "$noproxy curl -sS --max-time 10 http://origin.test/")" "aisb-origin ok" "curl without proxy variables: the capture path"
is "$(s "$noproxy curl -sS --max-time 10 --cacert /project/ca.pem https://api.example.test/")" "aisb-origin ok" "https without proxy variables to a *.suffix name"
like "$(s 'getent hosts origin.test')" "^198\.(18|19)\." "getent hosts: a synthetic address"
out=$(s 'getent hosts denied.example.test; echo "rc=$?"')
like "$out" "^rc=2$" "getent hosts: a denied name does not resolve"
is "$(s 'exec 3<>/dev/tcp/origin.test/22 && head -c 3 <&3')" "SSH" "port 22 of an allowed name (listed :22)"
out=$(s 'exec 3<>/dev/tcp/origin.test/23 && head -c 3 <&3; echo "rc=$?"')
unlike "$out" "SSH" "port 23 of the same name: refused"
out=$(s 'curl -sS --max-time 10 -D - -o /dev/null http://denied.example.test/')
like "$out" "X-Aisb-Reason: network.deny" "a denied name through the proxy: 403 with the rule"
out=$(s "$noproxy curl -sS --max-time 5 http://denied.example.test/; echo rc=\$?")
unlike "$out" "aisb-origin" "a denied name without the proxy: no connection"
if command -v node >/dev/null; then
	out=$(s "$noproxy node -e 'fetch(\"http://origin.test/\").then(r=>r.text()).then(t=>process.stdout.write(t)).catch(e=>{console.log(\"ERR\",String(e.cause||e));process.exit(1)})'")
	is "$out" "aisb-origin ok" "node fetch without proxy variables"
else
	skip "node fetch without proxy variables" "node not installed"
fi
out=$(s "$noproxy curl -sS --max-time 3 http://$INET_ADDR_ORIGIN/")
unlike "$out" "aisb-origin" "a direct connection to an origin's real address fails"
out=$(s "dig +tries=1 +time=2 @$INET_DNS origin.test 2>&1")
unlike "$out" "ANSWER: 1" "UDP to the internet's DNS server fails"
out=$(s "ping -c1 -W1 $INET_ADDR_ORIGIN 2>&1")
like "$out" "Network is unreachable|100% packet loss|not permitted" "ping from inside fails"
out=$(s "python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP).sendto(b\"\\x08\\0\\xf7\\xff\\0\\0\\0\\0\", (\"$INET_ADDR_ORIGIN\", 0)); print(\"raw-sent\")' 2>&1")
like "$out" "Network is unreachable|PermissionError|not permitted" "a raw socket gets nothing out"
s 'for i in $(seq 1 40); do getent hosts "exfil$i-$RANDOM$RANDOM.leak.invalid"; done; dig +tries=1 +time=1 aaaa-$RANDOM.leak.invalid' >/dev/null
# Negative, so behind a barrier: the log is complete up to a later query.
ok "DNS exfiltration with unique labels never reaches the internet's DNS" \
    eval 'internet_dns_sync && ! grep -q "leak\.invalid" "$INET_DNS_LOG"'
like "$(cat "$INET_DNS_LOG")" "query\[A\] origin\.test" "... whose log does show the gate's own lookups (twin)"

# SSRF from inside: a canary on the host's loopback never sees anything.
: > "$TOP/canary.log"
python3 "$(dirname "$0")/servers.py" canary 127.0.0.1 23180 "$TOP/canary.log" 2>/dev/null {GT_LOCKFD}>&- &
cpid=$!
at_exit "kill $cpid"
gt_wait_port 127.0.0.1 23180
out=$(s 'curl -sS --max-time 5 -D - -o /dev/null http://loopback.test:23180/')
like "$out" "X-Aisb-Reason: special-address" "a name resolving to 127.0.0.1: refused"
for t in 127.0.0.1:23180 '[::1]:23180' 2130706433:23180; do
	out=$(s "curl -sS --max-time 5 --noproxy '' -p -D - -o /dev/null http://$t/ 2>&1")
	like "$out" "403" "CONNECT $t through the proxy: refused"
	out=$(s "curl -sS --max-time 5 http://$t/ 2>&1")
	like "$out" "Couldn't connect" "$t directly: the sandbox's own loopback, nothing there"
done
for n in metadata private; do
	out=$(s "curl -sS --max-time 5 -D - -o /dev/null http://$n.test/")
	like "$out" "X-Aisb-Reason: special-address" "$n.test: refused before any connection"
done
is "$(cat "$TOP/canary.log")" "" "the canary on the host's 127.0.0.1 never saw a connection"

# 200 parallel transfers from inside, byte-identical.
want=$(python3 -c 'import hashlib; print(hashlib.sha256(bytes(i % 251 for i in range(300000))).hexdigest())')
out=$(s 'cd /tmp && for i in $(seq 1 200); do curl -sS --max-time 60 -o p$i http://origin.test/bytes/300000 & done; wait; sha256sum p* | cut -d" " -f1 | sort | uniq -c')
like "$out" "^ *200 $want$" "200 parallel transfers from inside: all complete and byte-identical"

# The gate killed in the middle of a session: no egress, the session runs
# on.  The session says when its first request is through and waits for
# the host to have killed the gate (a file in the project).
proj=$TOP/$U/project
rm -f "$proj/first" "$proj/killed"
s 'curl -sS --max-time 10 http://origin.test/; echo done > /project/first
for i in $(seq 1 100); do [ -e /project/killed ] && break; sleep 0.1; done
curl -sS --max-time 3 http://origin.test/ || echo no-egress; '"$noproxy"' curl -sS --max-time 3 http://origin.test/ || echo no-capture; echo session-still-running' > "$TOP/kill.out" &
sp=$!
for _ in $(seq 1 150); do [ -s "$proj/first" ] && break; sleep 0.1; done
gp=$(pgrep -u "$U" -x aisb-gate | head -1)
[ -n "$gp" ] && kill -KILL "$gp"
for _ in $(seq 1 50); do kill -0 "${gp:-none}" 2>/dev/null || break; sleep 0.1; done
touch "$proj/killed"
wait "$sp"
ok "the session's gate was found and killed after its first request (pid ${gp:-none})" \
    eval '[ -n "$gp" ] && ! kill -0 "$gp" 2>/dev/null'
out=$(cat "$TOP/kill.out")
like "$out" "^aisb-origin ok" "before: egress works"
like "$out" "no-egress" "after the gate is killed: no egress through the proxy"
like "$out" "no-capture" "... nor through the capture path"
like "$out" "session-still-running" "the session still runs"
done_testing
