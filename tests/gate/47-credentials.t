#!/bin/bash
# Credentials at the gate (gate/vault.c, ca.c, tls.c, inject.c): the
# gate terminates TLS for a credential's hosts only, verifies the origin
# against the trust bundle and network.ca_file, and puts the value in
# place of the placeholder in the configured header of requests to
# those hosts, nowhere else.  Every other host stays a plain tunnel.
# Driven by gatedrv, which reads the credential files as a session does
# and prints the placeholders; the session CA goes to $T/session-ca.pem.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/gate/lib.sh
. "$(dirname "$0")/lib.sh"
gt_setup

# The credential files: root-owned, readable by the test user's group.
install -d -m 0755 "$T/secrets"
KEY=sk-test-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
TOK=ghs_$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
printf '%s\n' "$KEY" > "$T/secrets/api"
printf '%s\n' "$TOK" > "$T/secrets/git"
chgrp "$GT_USER" "$T/secrets/api" "$T/secrets/git"
chmod 0640 "$T/secrets/api" "$T/secrets/git"
# noname.tgat.test (gate/lib.sh) is the origin under a name its
# certificate does not hold.
sed -i 's/"\*.wild.tgat.test:23080,23443"}/"*.wild.tgat.test:23080,23443", "noname.tgat.test:23443"}/' "$T/aisb.conf"
sed -i "s|^  ports = {23080}|  ports = {23080}\n  ca_file = \"$T/ca.pem\"|" "$T/aisb.conf"
cat >> "$T/aisb.conf" <<C
credential api {
  file = "$T/secrets/api"
  hosts = {"origin.tgat.test:23443", "noname.tgat.test:23443"}
  header = "x-api-key"
  env = "API_KEY"
}
credential git {
  file = "$T/secrets/git"
  hosts = {"origin.tgat.test:23443"}
  header = "Authorization: Basic x-access-token:%s"
  env = "GIT_TOKEN"
}
C
install -m 0644 -o "$GT_USER" /dev/null "$T/session-ca.pem"
gt_gate --ca-out "$T/session-ca.pem" || skip_all "the gate with credentials did not start"
PH=$(awk '$1 == "cred" && $2 == "api" {print $3}' "$T/drv.out")
GPH=$(awk '$1 == "cred" && $2 == "git" {print $3}' "$T/drv.out")
ok "gatedrv printed the placeholders" test -n "$PH" -a -n "$GPH" ||
	diag "$(cat "$T/drv.out")"
like "$PH" '^sk-test-[0-9a-f]{48}$' "the placeholder has the value's shape (prefix, length, hex digits)"
ok "... and is not the value" test "$PH" != "$KEY"

ca=$(openssl x509 -in "$T/session-ca.pem" -noout -text 2>&1)
like "$ca" "X509v3 Name Constraints: critical" "the session CA is name-constrained (critical)"
like "$ca" "Permitted:" "... to permitted names"
like "$ca" "DNS:origin.tgat.test" "... the credentials' hosts"
unlike "$ca" "DNS:x.wild.tgat.test" "... and no others"
like "$ca" "CA:TRUE, pathlen:0" "a CA that signs leaves only"

# --- the value, in its header, to its host
out=$(gcurl --cacert "$T/session-ca.pem" -H "x-api-key: $PH" https://origin.tgat.test:23443/headers 2>&1)
like "$out" "x-api-key: $KEY" "the origin gets the real value in the configured header"
unlike "$out" "$PH" "... and not the placeholder"
log=$(cat "$T/gate.log")
like "$log" "inject proxy name=origin.tgat.test port=23443 credential=api header=x-api-key" \
	"the injection is recorded (host, credential, header)"
ok "no record holds the value" ! grep -qF "$KEY" "$T/gate.log"

# Basic: user:placeholder, base64, as git and curl -u send it.
out=$(gcurl --cacert "$T/session-ca.pem" -u "x-access-token:$GPH" https://origin.tgat.test:23443/headers 2>&1)
want=$(printf 'x-access-token:%s' "$TOK" | base64 -w0)
like "$out" "Authorization: Basic $want" "Basic: the value replaces the placeholder inside the base64"

# The placeholder anywhere else stays as it is.
out=$(gcurl --cacert "$T/session-ca.pem" -H "x-other: $PH" -H "x-api-key: Bearer $PH" "https://origin.tgat.test:23443/headers?k=$PH" 2>&1)
like "$out" "x-other: $PH" "another header: the placeholder is left alone"
like "$out" "x-api-key: Bearer $PH" "the header in another form: left alone"
unlike "$out" "$KEY" "... the value goes nowhere but its header"
like "$(grep credential= "$T/gate.log")" "deny proxy name=origin.tgat.test port=23443 credential=api reason=\"its placeholder went outside its header" \
	"... and the misplaced placeholder is recorded"

# Keep-alive: two requests on one connection, both injected.
out=$(gcurl -v --cacert "$T/session-ca.pem" -H "x-api-key: $PH" \
	https://origin.tgat.test:23443/headers https://origin.tgat.test:23443/headers 2>&1)
like "$out" "Re-using existing connection" "keep-alive on a terminated connection"
is "$(printf '%s\n' "$out" | grep -c "x-api-key: $KEY")" 2 "... and both requests carry the value"

# Chunked request bodies, and a large response.
body=$(head -c 300000 /dev/urandom | base64 -w0)
out=$(printf '%s' "$body" | gcurl --cacert "$T/session-ca.pem" -H "x-api-key: $PH" \
	-H "Transfer-Encoding: chunked" --data-binary @- https://origin.tgat.test:23443/echo 2>&1)
is "$(printf '%s' "$out" | sha256sum)" "$(printf 'echo:%s' "$body" | sha256sum)" "a chunked upload arrives whole"
n=$(gcurl --cacert "$T/session-ca.pem" https://origin.tgat.test:23443/bytes/5000000 | wc -c)
is "$n" 5000000 "a 5 MB response arrives whole"

# A streamed response arrives in pieces, as the origin sends them.
out=$(gin python3 - "$T/session-ca.pem" <<'PY' 2>&1
import socket, ssl, sys, time
s = socket.create_connection(("127.0.0.1", 3128))
s.sendall(b"CONNECT origin.tgat.test:23443 HTTP/1.1\r\nHost: origin.tgat.test:23443\r\n\r\n")
assert b" 200 " in s.recv(4096)
c = ssl.create_default_context(cafile=sys.argv[1])
t = c.wrap_socket(s, server_hostname="origin.tgat.test")
t.sendall(b"GET /stream/4 HTTP/1.1\r\nHost: origin.tgat.test:23443\r\n\r\n")
t0, seen, buf = time.time(), [], b""
while len(seen) < 4:
    d = t.recv(4096)
    if not d:
        break
    buf += d
    while b"data: event %d" % len(seen) in buf:
        seen.append(round(time.time() - t0, 2))
print(" ".join(str(x) for x in seen))
PY
)
read -r e0 _ _ e3 <<<"$out"
ok "a stream: the first event before the last was sent ($out)" \
	python3 -c "import sys; sys.exit(0 if float('${e3:-0}') - float('${e0:-9}') > 0.8 else 1)"

# Host must be the connection's: no credential through a shared front.
out=$(gcurl --cacert "$T/session-ca.pem" -H "x-api-key: $PH" -H "Host: x.wild.tgat.test:23443" \
	-D - https://origin.tgat.test:23443/headers 2>&1)
like "$out" "HTTP/1.1 421" "a request naming another host: 421"
unlike "$out" "$KEY" "... and no value goes with it"

# --- other hosts: plain tunnels, nothing changed, the origin's own cert
out=$(gcurl -v --cacert "$T/ca.pem" -H "x-api-key: $PH" https://x.wild.tgat.test:23443/headers 2>&1)
like "$out" "x-api-key: $PH" "another allowed host gets the placeholder unchanged"
like "$out" "issuer: CN=tgat-ca" "... over a plain tunnel (the origin's own certificate)"
unlike "$out" "$KEY" "... never the value"

# --- refusals
out=$(gcurl --cacert "$T/session-ca.pem" -H "x-api-key: $PH" https://noname.tgat.test:23443/headers 2>&1)
like "$out" "502|CONNECT tunnel failed" "an origin whose certificate does not name it: refused"
like "$(grep noname "$T/gate.log")" "unreachable proxy name=noname.tgat.test port=23443 reason=\"the certificate of noname.tgat.test does not verify" \
	"... with the reason"
out=$(gcurl --cacert "$T/ca.pem" -H "x-api-key: $PH" https://origin.tgat.test:23443/headers 2>&1; echo "rc=$?")
like "$out" "rc=60|certificate" "a client that pins another CA fails its handshake"
unlike "$out" "$KEY" "... and nothing leaks"
like "$(grep '^aisb-gate: error' "$T/gate.log")" "error proxy name=origin.tgat.test port=23443: TLS with the client failed" \
	"... recorded"
out=$(gin timeout 10 openssl s_client -proxy 127.0.0.1:3128 -connect origin.tgat.test:23443 \
	-servername origin.tgat.test -alpn h2 -CAfile "$T/session-ca.pem" </dev/null 2>&1)
like "$out" "no application protocol|alert|errno" "a client that offers only h2 is refused (ALPN http/1.1 only)"

ok "the gate is alive (no syscall outside its allowlist)" gt_gate_alive
ok "no record holds a value" ! grep -qF -e "$KEY" -e "$TOK" "$T/gate.log"
ok "the canary never saw a connection" gt_canary_clean
done_testing
