#!/bin/bash
# Credentials from inside gated sessions: the variable holds a
# placeholder; the real value appears nowhere the agent can read (the
# environment, /proc and the memory of every process inside, files,
# init's and the inner's memory seen from the host, the gate's /proc);
# the gate puts it in requests to the credential's hosts only, over the
# proxy and the capture path, for curl, Node fetch, Python urllib and
# git; the trust bundle inside holds the session CA while the host's is
# unchanged; a client pinning another CA fails closed; an origin that
# does not verify is refused with a reason; bad credential files are 78.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
require_root
[ -x "$AISB_SHELL" ] || skip_all "aisb-shell not built"
have_userns nobody || skip_all "no unprivileged user namespaces"

U=tcred$$
N=c$$
mkdir -p /srv
TOP=$(mktemp -d /srv/aisbt-cred.XXXXXX) || skip_all "cannot make a directory in /srv"
chmod 0755 "$TOP"
install -d -m 0755 -o root -g root "$TOP/conf" "$TOP/secrets"
at_exit "rm -rf '$TOP'"
tu_user "$U" || skip_all "cannot create $U"
install -d -m 0755 -o "$U" -g "$U" "$TOP/$U" "$TOP/$U/project"
internet_up "$N" || skip_all "cannot build the test internet"

KEY=sk-ant-api03-$(head -c 40 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d =)
TOK=ghs_$(head -c 27 /dev/urandom | base64 -w0 | tr -d '+/=')
# secret NAME VALUE [OWNER MODE]: a credential file.
secret() {
	printf '%s\n' "$2" > "$TOP/secrets/$1"
	chown "${3:-root}:$U" "$TOP/secrets/$1"
	chmod "${4:-0640}" "$TOP/secrets/$1"
}
secret api "$KEY"
secret git "$TOK"
host_bundle=/etc/ssl/certs/ca-certificates.crt
host_sum=$(sha256sum "$host_bundle" 2>/dev/null)

# conf NAME [API-FILE] [EXTRA-LINES...]: the policy; prints its path.
conf() {
	local f=$TOP/conf/$1.conf api=${2:-$TOP/secrets/api}
	shift
	[ $# -gt 0 ] && shift
	cat > "$f" <<C
project { path = "$TOP/%u/project"  roots = {"$TOP/%u"} }
home { path = "tmpfs" }
limits { memory = 0  pids = 0  cpu = "0%" }
network {
  mode = "gated"
  allow = {"api.test", "api.example.test", "other.example.test", "origin.test:443,8443"}
  allow_cidr = {"$INET_ORIGIN_NET"}
  resolver = "$INET_DNS"
  ca_file = "$INET_CA"
}
credential api {
  file = "$api"
  hosts = {"api.test", "origin.test:8443"}
  header = "x-api-key"
  env = "API_KEY"
}
credential git {
  file = "$TOP/secrets/git"
  hosts = {"api.example.test"}
  header = "Authorization: Basic x-access-token:%s"
  env = "GIT_TOKEN"
}
C
	printf '%s\n' "$@" >> "$f"
	chmod 0644 "$f"
	echo "$f"
}
c=$(conf main)
insh() { as "$U" "$AISB_SHELL" --config "$1" -c "$2" 2>&1 </dev/null; }

# --- the placeholder inside
PH=$(insh "$c" 'printf %s "$API_KEY"')
like "$PH" '^sk-ant-api03-[A-Za-z0-9_-]+$' "API_KEY holds a placeholder with the value's prefix"
is "${#PH}" "${#KEY}" "... and its length"
ok "... which is not the value" test "$PH" != "$KEY"
PH2=$(insh "$c" 'printf %s "$API_KEY"')
ok "a new placeholder for each session" test "$PH2" != "$PH"
out=$(insh "$c" 'env')
unlike "$out" "$KEY|$TOK" "the real values are not in the environment"
like "$out" "NODE_EXTRA_CA_CERTS=/etc/ssl/certs/aisb-session-ca.pem" "NODE_EXTRA_CA_CERTS names the session CA"
like "$out" "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt" "SSL_CERT_FILE names the bundle"

# --- the trust bundle inside; the host's unchanged
out=$(insh "$c" 'tail -c 2000 /etc/ssl/certs/ca-certificates.crt | grep -c "BEGIN CERT";
	openssl x509 -in /etc/ssl/certs/aisb-session-ca.pem -noout -subject;
	openssl verify -CApath /etc/ssl/certs /etc/ssl/certs/aisb-session-ca.pem')
like "$out" "subject=CN = aisb session" "the session CA is in /etc/ssl/certs"
like "$out" "aisb-session-ca.pem: OK" "... found by subject hash (-CApath)"
is "$(sha256sum "$host_bundle" 2>/dev/null)" "$host_sum" "the host's trust bundle is unchanged"

# --- curl: the proxy and the capture path
out=$(insh "$c" 'curl -sS --max-time 15 -H "x-api-key: $API_KEY" https://api.test/echo')
like "$out" "x-api-key: $KEY" "curl through the proxy: the origin gets the real value"
out=$(insh "$c" 'curl -sS --noproxy "*" --max-time 15 -H "x-api-key: $API_KEY" https://api.test/echo')
like "$out" "x-api-key: $KEY" "curl on the capture path: the real value too"
# The second allowed host gets the placeholder, unchanged, over a plain
# tunnel: its certificate is the test CA's, which the client is given
# (the sandbox's bundle holds only the system's and the session CA).
install -m 0644 "$INET_CA" "$TOP/$U/project/testca.pem"
out=$(insh "$c" 'curl -sS --max-time 15 --cacert /project/testca.pem -H "x-api-key: $API_KEY" https://other.example.test/echo; echo; printf "ph=%s\n" "$API_KEY"')
ph=$(printf '%s\n' "$out" | sed -n 's/^ph=//p')
like "$out" "x-api-key: $ph" "another allowed host gets the placeholder unchanged"
unlike "$out" "$KEY" "... never the value"

# --- a streamed response arrives in pieces
out=$(insh "$c" 'curl -sS -N --max-time 20 https://api.test/sse/4 | while read -r l; do
	case $l in data:*) echo "$(date +%s.%N) $l" ;; esac; done')
first=$(printf '%s\n' "$out" | head -1 | cut -d' ' -f1)
last=$(printf '%s\n' "$out" | tail -1 | cut -d' ' -f1)
is "$(printf '%s\n' "$out" | grep -c 'data: event')" 4 "server-sent events: all four"
ok "... as they are sent, not at the end ($first .. $last)" \
	python3 -c "import sys; sys.exit(0 if float('${last:-0}') - float('${first:-9}') > 0.9 else 1)"

# --- Node fetch, Python urllib, git
if command -v node >/dev/null; then
	out=$(insh "$c" 'node -e "fetch(\"https://api.test/echo\", {headers: {\"x-api-key\": process.env.API_KEY}}).then(r => r.text()).then(t => process.stdout.write(t)).catch(e => { console.log(\"ERR\", e.cause || e); process.exit(1) })"')
	like "$out" "x-api-key: $KEY" "Node fetch: the real value arrives"
else
	skip "Node fetch: the real value arrives" "node not installed"
fi
out=$(insh "$c" 'python3 -c "
import os, urllib.request
r = urllib.request.Request(\"https://api.test/echo\", headers={\"x-api-key\": os.environ[\"API_KEY\"]})
print(urllib.request.urlopen(r, timeout=15).read().decode())"')
like "$out" "X-Api-Key: $KEY|x-api-key: $KEY" "Python urllib: the real value arrives"
internet_git_repo "$N" r1 || fail "a git repository on the test internet"
printf 'Basic %s\n' "$(printf 'x-access-token:%s' "$TOK" | base64 -w0)" > "$INET_DIR/private.auth"
out=$(insh "$c" 'cd /tmp && git clone -q "https://x-access-token:$GIT_TOKEN@api.example.test/private/git/r1.git" r && cat r/README')
is "$out" "aisb test repo r1" "git over https: a clone with the token (Basic, after a 401)"
out=$(insh "$c" 'cd /tmp && GIT_TERMINAL_PROMPT=0 git clone -q "https://x-access-token:nottheplaceholder@api.example.test/private/git/r1.git" r 2>&1; echo "rc=$?"')
like "$out" "rc=128" "... and without the placeholder, the origin refuses it (witness)"

# --- refusals
# A client that trusts only its own CA: curl's --cacert alone does not
# do that (it still reads the default CA directory, /etc/ssl/certs,
# where the session CA has its hash link); --capath to an empty one does.
mark=pin$$
out=$(insh "$c" "cp /dev/stdin /tmp/other.pem <<'P'
$(cat "$INET_CA")
P
mkdir -p /tmp/nocerts
curl -sS --max-time 15 --cacert /tmp/other.pem --capath /tmp/nocerts -H \"x-api-key: \$API_KEY\" https://api.test/$mark; echo rc=\$?")
like "$out" "rc=60" "a client that pins another CA fails closed"
sleep 0.3
ok "... and the origin never saw its request" ! grep -q "$mark" "$INET_HTTP_LOG"
out=$(insh "$c" 'exec 3<>/dev/tcp/127.0.0.1/3128 && printf "CONNECT origin.test:8443 HTTP/1.1\r\nHost: origin.test:8443\r\n\r\n" >&3 && timeout 10 cat <&3')
like "$out" "HTTP/1.1 502" "an origin whose certificate does not verify: 502"
like "$out" "does not verify: unable to get local issuer certificate" "... with the reason"

# --- nowhere the agent can read
netns_pids() {
	local p i
	as "$U" "$AISB_SHELL" --config "$c" -c 'sleep 60 & sleep 61; wait' </dev/null >/dev/null 2>&1 &
	for i in $(seq 100); do
		p=$(pgrep -u "$U" -x -f "sleep 61" | head -1)
		[ -n "$p" ] && break
		sleep 0.05
	done
	echo "$p"
}
inner=$(netns_pids)
ok "a long session runs" test -n "$inner"
at_exit "pkill -KILL -u '$U'"
out=$(insh "$c" 'python3 - <<"PY"
import os, re
key = os.environ["API_KEY"].encode()
hits = []
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    for f in ("environ", "cmdline"):
        try:
            if key in open("/proc/%s/%s" % (pid, f), "rb").read():
                hits.append("%s/%s has the placeholder" % (pid, f))
        except OSError:
            pass
print("pids", len([p for p in os.listdir("/proc") if p.isdigit()]))
print("\n".join(hits))
PY
grep -rlsF "$API_KEY" /etc /tmp /dev/shm "$HOME" /project 2>/dev/null | head -3')
like "$out" "has the placeholder" "witness: the scan of /proc inside finds the placeholder"
# The same scan for the value, over memory too, from a process inside.
# The value is given in two halves (never whole on a command line) and
# joined only in the scanner, which skips itself.
half=$((${#KEY} / 2))
out=$(insh "$c" "python3 - '${KEY:0:$half}' '${KEY:$half}' <<'PY'
import os, sys
key = (sys.argv[1] + sys.argv[2]).encode()
n = bad = 0
for pid in [p for p in os.listdir('/proc') if p.isdigit()]:
    if int(pid) == os.getpid():
        continue
    try:
        maps = open('/proc/%s/maps' % pid).read().splitlines()
        mem = open('/proc/%s/mem' % pid, 'rb', 0)
    except OSError:
        continue
    n += 1
    for m in maps:
        a, b = [int(x, 16) for x in m.split()[0].split('-')]
        if m.split()[1][0] != 'r' or b - a > 1 << 30:
            continue
        try:
            mem.seek(a)
            if key in mem.read(b - a):
                bad += 1
        except (OSError, ValueError, OverflowError):
            pass
print('scanned', n, 'found', bad)
PY
k='${KEY:0:$half}'; grep -rlsF \"\${k}${KEY:$half}\" /etc /tmp /dev/shm /project \"\$HOME\" /usr/local 2>/dev/null | head -3; echo end")
like "$out" "scanned [1-9][0-9]* found 0" "the value is in the memory of no process inside"
unlike "$out" "^/" "... nor in a file the agent can read"
out=$(insh "$c" "cat '$TOP/secrets/api' 2>&1; echo rc=\$?")
unlike "$out" "$KEY" "the credential file cannot be read inside"
# From the host, as root: init's and the inner's memory have no value;
# the gate's has (the witness that the scan reads memory).
memscan() {
	python3 - "$1" "$2" <<'PY'
import sys
key, pid = sys.argv[1].encode(), sys.argv[2]
found = 0
try:
    maps = open("/proc/%s/maps" % pid).read().splitlines()
    mem = open("/proc/%s/mem" % pid, "rb", 0)
except OSError as e:
    print("cannot read", e)
    sys.exit(0)
for m in maps:
    a, b = [int(x, 16) for x in m.split()[0].split("-")]
    if m.split()[1][0] != "r" or b - a > 1 << 30:
        continue
    try:
        mem.seek(a)
        found += mem.read(b - a).count(key)
    except (OSError, ValueError, OverflowError):
        pass
print("found", found)
PY
}
sh_pid=$(ps -o ppid= -p "$inner" | tr -d ' ')
init=$sh_pid
while [ -n "$init" ] && [ "$(awk '/^NSpid/ {print $NF}' "/proc/$init/status" 2>/dev/null)" != 1 ]; do
	init=$(ps -o ppid= -p "$init" | tr -d ' ')
done
outer=$(ps -o ppid= -p "$init" | tr -d ' ')
gate=$(pgrep -u "$U" -x aisb-gate | head -1)
ok "found the session's init, outer and gate ($init $outer $gate)" test -n "$init" -a -n "$outer" -a -n "$gate"
is "$(memscan "$KEY" "$init")" "found 0" "init's memory holds no value"
is "$(memscan "$KEY" "$sh_pid")" "found 0" "the inner shell's memory holds no value"
is "$(memscan "$KEY" "$outer")" "found 0" "the outer's memory holds no value (wiped once the gate has it)"
like "$(memscan "$KEY" "$gate")" "found [1-9]" "witness: the gate's memory holds it"
out=$(as "$U" cat "/proc/$gate/environ" "/proc/$gate/mem" 2>&1)
like "$out" "Permission denied" "the agent's uid cannot read the gate's /proc (not dumpable)"
like "$(grep 'core file' "/proc/$gate/limits")" "core file size +0 +0" "the gate writes no core file"
pkill -KILL -u "$U" 2>/dev/null

# --- credential files that are not safe: 78 with FILE:LINE
secret bad "$KEY" "$U" 0600
out=$(as "$U" "$AISB_SHELL" --config "$(conf owned "$TOP/secrets/bad")" -c true 2>&1)
is "$?" 78 "a credential file owned by the agent: exit 78"
like "$out" "$TOP/conf/owned.conf:[0-9]+: credential.api.file: $TOP/secrets/bad: unsafe: the file is owned by uid" \
	"... with FILE:LINE and why"
secret bad "$KEY" root 0660
out=$(as "$U" "$AISB_SHELL" --config "$(conf gw "$TOP/secrets/bad")" -c true 2>&1)
is "$?" 78 "a group-writable credential file: exit 78"
like "$out" "gw.conf:[0-9]+: credential.api.file: .*writable by group or other" "... with FILE:LINE and why"
secret bad "$KEY" root 0644
out=$(as "$U" "$AISB_SHELL" --config "$(conf other "$TOP/secrets/bad")" -c true 2>&1)
is "$?" 78 "a credential file that other can read: exit 78"
# Root's all the way down, but under a directory the policy shows
# (filesystem.readonly: the default system view holds no /opt).
vis=/opt/aisbt-cred.$$
install -d -m 0755 -o root -g root "$vis"
at_exit "rm -rf '$vis'"
printf '%s\n' "$KEY" > "$vis/api"
chown "root:$U" "$vis/api"
chmod 0640 "$vis/api"
out=$(as "$U" "$AISB_SHELL" --config "$(conf visible "$vis/api" \
    "filesystem { readonly = {\"$vis\"} }")" -c 'echo ran' 2>&1)
is "$?" 78 "a credential file the sandbox would show: exit 78"
like "$out" "visible inside the sandbox" "... saying so"
unlike "$out" "ran" "... and nothing ran"
unlike "$out" "$KEY" "no message shows the value"
out=$(as "$U" "$AISB_SHELL" --config "$(conf wholeroot "$vis/api" \
    'filesystem { view = "whole-root-unsafe" }')" -c 'echo ran' 2>&1)
is "$?" 78 "the same file under the whole-root view: exit 78"
unlike "$out" "ran" "... and nothing ran"
out=$(as "$U" "$AISB_SHELL" --config "$(conf notshown "$vis/api")" -c 'echo ran' 2>&1)
is "$?" 0 "the twin: the system view does not show it, the session runs"
like "$out" "^ran$" "... and its command ran"
done_testing
