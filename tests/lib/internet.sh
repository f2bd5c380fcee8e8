#!/bin/bash
# internet.sh: a private test "internet" in a network namespace.  Source it
# after tap.sh (it registers its teardown with at_exit):
#
#	. "$(dirname "$0")/../lib/tap.sh"
#	. "$(dirname "$0")/../lib/internet.sh"
#	internet_up gat1 || skip_all "cannot build the test internet"
#	curl --cacert "$INET_CA" --resolve "origin.test:443:$INET_ADDR_ORIGIN" \
#	    https://origin.test/
#
# Topology (one "slot" k of 8 per internet, so several coexist; b = 32k):
#
#   host netns                      netns aisbinet-NAME
#   aih-NAME 198.51.100.(b+1)/28  --veth-- aii-NAME 198.51.100.(b+2)/28
#   route 198.51.100.(b+16)/28      lo: 198.51.100.(b+17 ..) origin addresses
#     via .(b+2)                    dnsmasq on 198.51.100.(b+2):53 udp+tcp
#                                   origin servers on b+17 .. b+20:
#                                     80 HTTP, 443 HTTPS (test CA), 22 and 23
#                                     TCP banner + line echo
#                                   b+21: nothing listens (services that
#                                     other suites add: internet_spawn)
#
# Slot 0 is 198.51.100.1 (host) / 198.51.100.2 (INET_DNS), its origins
# 198.51.100.17 and up.  Everything is inside 198.51.100.0/24: nothing
# here uses 192.0.2.0/24 (this machine's real network) or 203.0.113.0/24
# (where package mirrors may resolve on build machines, which a route of
# ours would shadow while an image is built), and the netns has no
# default route: packets stay in loopback, the veth pair and the netns.
#
# NAME: 1-8 characters [a-z0-9], the caller's prefix (gat1, net2, ...).
# A test that may run twice at once (several people run make check on one
# machine) can add its PID: "n$$".  An internet whose owner (the shell that
# called internet_up) is dead is a leftover: the next internet_up of any
# NAME removes it.
#
# DNS names (answers of dnsmasq; TTL 0; any other name: NXDOMAIN, nothing is
# ever forwarded):
#	origin.test		A $INET_ADDR_ORIGIN	(b+17)
#	api.example.test	A $INET_ADDR_API	(b+18)
#	api.test		A $INET_ADDR_API
#	www.example.test	A $INET_ADDR_API
#	other.example.test	A $INET_ADDR_OTHER	(b+20)
#	denied.example.test	A $INET_ADDR_DENIED	(b+19)
#	svc.test, git.test	A $INET_ADDR_SVC	(b+21, see above)
#	multi.test		A $INET_ADDR_ORIGIN, A $INET_ADDR_API
#	rebind.test		A $INET_ADDR_ORIGIN (change it: internet_dns_set)
#	v6.test			AAAA 2001:db8::1 (never reachable)
#	loopback.test		A 127.0.0.1
#	metadata.test		A 169.254.169.254
#	private.test		A 10.0.0.1
#	cgnat.test		A 100.64.0.1
#	mapped.test		AAAA ::ffff:127.0.0.1
#	loopback6.test		AAAA ::1
#
# Origin HTTP(S) paths (every response has X-Origin-Addr: the local
# address the connection arrived on, and Content-Length; keep-alive):
#	GET /			"aisb-origin ok\n"
#	GET /headers, GET /echo	the request head, echoed as "Name: value" lines
#	GET /sse/N		N server-sent events ("data: event I"), 0.4 s
#				apart, chunked, text/event-stream
#	ANY /private/REST	REST (any path above) only with an Authorization
#				header equal to the content of
#				$INET_DIR/private.auth (the test writes it);
#				else 401 with WWW-Authenticate: Basic
#	GET /bytes/N		N bytes of the pattern i % 251 (N <= 64 MiB)
#	GET /status/NNN		an empty response with that status
#	GET /slow/S		the "/" body after S seconds (S <= 30)
#	GET /static/PATH	a file from $INET_WWW (tests put files there);
#				a directory serves its index.html (a PEP 503
#				index or npm metadata can live there)
#	GET|POST /git/REPO.git/...  git smart HTTP (git http-backend) over
#				$INET_DIR/git; push allowed (internet_git_repo)
#	POST|PUT /echo		the body back (Content-Length or chunked), with
#				X-Body-Length and X-Body-Sha256
#
# Exported after internet_up NAME:
#	INET_NAME INET_NS INET_DIR INET_SLOT
#	INET_HOST_ADDR		host side of the veth (198.51.100.b+1)
#	INET_DNS		dnsmasq address (198.51.100.b+2)
#	INET_LINK_NET		198.51.100.b/28
#	INET_ORIGIN_NET		198.51.100.(b+16)/28 (for allow_cidr)
#	INET_ADDR_ORIGIN INET_ADDR_API INET_ADDR_DENIED INET_ADDR_OTHER
#	INET_ADDR_SVC		free for added services (svc.test, git.test)
#	INET_HTTP_ADDR		= INET_ADDR_ORIGIN
#	INET_CA			test CA certificate (PEM)
#	INET_CA_OTHER		the other CA, of the :8443 servers (PEM)
#	INET_DNS_LOG		dnsmasq --log-queries output
#	INET_HTTP_LOG		one line per origin request / banner connection
#	INET_RESOLV		a resolv.conf naming INET_DNS (bind-mount it)
#	INET_WWW		docroot of /static/
#
# Helpers: internet_down NAME, internet_dns_set NAME HOST ADDR... (replace
# HOST's records, reloaded at once), inet_getent HOST (getent hosts through
# INET_DNS, in a private mount namespace), internet_exec NAME CMD... (run
# CMD inside the netns), internet_spawn NAME LABEL CMD... (start a service
# inside the netns in the background; internet_down kills it by PID; its
# stderr goes to $INET_DIR/LABEL.err), internet_git_repo NAME REPO (a bare
# repository with one commit, served at /git/REPO.git), internet_sshd NAME
# AUTHORIZED_KEYS (sshd on $INET_ADDR_SVC:22; host key in
# $INET_SSH_KNOWN_HOSTS).

_INET_RUN=/run/aisbinet

# _inet_vars NAME SLOT: set the INET_* variables for that internet.
_inet_vars() {
	local b=$(($2 * 32))
	INET_NAME=$1
	INET_SLOT=$2
	INET_NS=aisbinet-$1
	INET_DIR=$_INET_RUN/$1
	INET_HOST_IF=aih-$1
	INET_NS_IF=aii-$1
	INET_HOST_ADDR=198.51.100.$((b + 1))
	INET_DNS=198.51.100.$((b + 2))
	INET_LINK_NET=198.51.100.$b/28
	INET_ORIGIN_NET=198.51.100.$((b + 16))/28
	INET_ADDR_ORIGIN=198.51.100.$((b + 17))
	INET_ADDR_API=198.51.100.$((b + 18))
	INET_ADDR_DENIED=198.51.100.$((b + 19))
	INET_ADDR_OTHER=198.51.100.$((b + 20))
	INET_ADDR_SVC=198.51.100.$((b + 21))
	INET_HTTP_ADDR=$INET_ADDR_ORIGIN
	INET_CA=$INET_DIR/ca.pem
	INET_CA_OTHER=$INET_DIR/ca-other.pem
	INET_DNS_LOG=$INET_DIR/dnsmasq.log
	INET_HTTP_LOG=$INET_DIR/origin.log
	INET_RESOLV=$INET_DIR/resolv.conf
	INET_WWW=$INET_DIR/www
	INET_SSH_KNOWN_HOSTS=$INET_DIR/ssh/known_hosts
	export INET_NAME INET_SLOT INET_NS INET_DIR INET_HOST_IF INET_NS_IF \
	    INET_HOST_ADDR INET_DNS INET_LINK_NET INET_ORIGIN_NET \
	    INET_ADDR_ORIGIN INET_ADDR_API INET_ADDR_DENIED INET_ADDR_OTHER \
	    INET_ADDR_SVC \
	    INET_HTTP_ADDR INET_CA INET_CA_OTHER INET_DNS_LOG INET_HTTP_LOG INET_RESOLV \
	    INET_WWW INET_SSH_KNOWN_HOSTS
}

_inet_log() { echo "# internet: $*" >&2; }

# _inet_kill PID...: TERM, then KILL what is still there after 2 s.
_inet_kill() {
	local p i
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null
	for i in $(seq 20); do
		for p in "$@"; do [ -d "/proc/$p" ] && break; p=; done
		[ -z "$p" ] && return 0
		sleep 0.1
	done
	kill -KILL "$@" 2>/dev/null
	return 0
}

# internet_down NAME: remove everything internet_up NAME made.  Safe to
# run twice and on a half-built internet.
internet_down() {
	local name=$1 ns=aisbinet-$1 dir=$_INET_RUN/$1 pids p f
	[ -n "$name" ] || return 1
	# Every process in the netns was started here (ip netns exec).
	pids=$(ip netns pids "$ns" 2>/dev/null)
	for f in "$dir"/*.pid; do
		[ -f "$f" ] || continue
		p=$(cat "$f" 2>/dev/null)
		case "$p" in ''|*[!0-9]*) ;; *) pids="$pids $p" ;; esac
	done
	# shellcheck disable=SC2046
	_inet_kill $(for p in $pids; do [ -d "/proc/$p" ] && echo "$p"; done | sort -u)
	ip netns del "$ns" 2>/dev/null
	ip link del "aih-$name" 2>/dev/null
	rm -rf "$dir"
	return 0
}

# _inet_slot NAME: pick the lowest free slot (under a lock) and record it.
_inet_slot() {
	local name=$1 k d s o used
	mkdir -p "$_INET_RUN"
	exec {_inet_lock}>"$_INET_RUN/.lock"
	flock -w 10 "$_inet_lock" || { exec {_inet_lock}>&-; return 1; }
	used=" "
	for d in "$_INET_RUN"/*/; do
		[ -f "$d/slot" ] || continue
		s=$(cat "$d/slot")
		# A slot whose owner is dead is a leftover of a killed run.
		# (Not "whose netns is missing": a concurrent internet_up
		# makes its netns only after taking the slot.)
		o=$(cat "$d/owner" 2>/dev/null)
		if [ -n "$o" ] && [ -d "/proc/$o" ]; then
			used="$used$s "
		elif [ -z "$o" ] && ip netns list | grep -qw "aisbinet-$(basename "$d")"; then
			used="$used$s "
		else
			internet_down "$(basename "$d")"
		fi
	done
	for k in $(seq 0 7); do
		case "$used" in *" $k "*) continue ;; esac
		ip -4 addr show to "198.51.100.$((k * 32 + 1))" | grep -q . && continue
		mkdir -p "$_INET_RUN/$name" &&
		    echo "$_INET_OWNER" > "$_INET_RUN/$name/owner" &&
		    echo "$k" > "$_INET_RUN/$name/slot"
		exec {_inet_lock}>&-
		echo "$k"
		return 0
	done
	exec {_inet_lock}>&-
	return 1
}

_inet_ca() {
	local d=$INET_DIR san
	san="DNS:origin.test,DNS:api.example.test,DNS:www.example.test"
	san="$san,DNS:other.example.test,DNS:denied.example.test,DNS:multi.test"
	san="$san,DNS:rebind.test,DNS:*.example.test,DNS:api.test"
	san="$san,IP:$INET_ADDR_ORIGIN,IP:$INET_ADDR_API,IP:$INET_ADDR_DENIED"
	san="$san,IP:$INET_ADDR_OTHER,DNS:svc.test,DNS:git.test,IP:$INET_ADDR_SVC"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	    -nodes -keyout "$d/ca.key" -out "$d/ca.pem" -days 7 \
	    -subj "/CN=aisb test CA $INET_NAME" \
	    -addext "basicConstraints=critical,CA:TRUE" \
	    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null &&
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	    -nodes -keyout "$d/server.key" -out "$d/server.csr" \
	    -subj "/CN=origin.test" 2>/dev/null &&
	printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n' \
	    "$san" > "$d/server.ext" &&
	openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" \
	    -CAkey "$d/ca.key" -CAcreateserial -days 7 \
	    -extfile "$d/server.ext" -out "$d/server.pem" 2>/dev/null &&
	# The same names from a CA nobody trusts (the :8443 servers).
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 \
	    -nodes -keyout "$d/ca-other.key" -out "$d/ca-other.pem" -days 7 \
	    -subj "/CN=aisb other CA $INET_NAME" \
	    -addext "basicConstraints=critical,CA:TRUE" \
	    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null &&
	openssl x509 -req -in "$d/server.csr" -CA "$d/ca-other.pem" \
	    -CAkey "$d/ca-other.key" -CAcreateserial -days 7 \
	    -extfile "$d/server.ext" -out "$d/server-other.pem" 2>/dev/null
}

_inet_hosts() {
	cat <<EOF
$INET_ADDR_ORIGIN origin.test multi.test rebind.test
$INET_ADDR_API api.example.test www.example.test multi.test api.test
$INET_ADDR_DENIED denied.example.test
$INET_ADDR_OTHER other.example.test
$INET_ADDR_SVC svc.test git.test
2001:db8::1 v6.test
127.0.0.1 loopback.test
169.254.169.254 metadata.test
10.0.0.1 private.test
100.64.0.1 cgnat.test
::ffff:127.0.0.1 mapped.test
::1 loopback6.test
EOF
}

# internet_dns_set NAME HOST ADDR...: HOST now resolves to exactly ADDR...
# (the records live in a directory dnsmasq re-reads on SIGHUP; TTL 0).
internet_dns_set() {
	local name=$1 host=$2 dir=$_INET_RUN/$1 a n0 i
	shift 2
	[ -f "$dir/hosts.d/base" ] || return 1
	n0=$(grep -c "read $dir/hosts.d/" "$dir/dnsmasq.log")
	# HOST leaves the base records and gets a file of its own.
	awk -v h="$host" '{ o = $1; for (i = 2; i <= NF; i++) if ($i != h)
	    o = o " " $i; if (o != $1) print o }' "$dir/hosts.d/base" \
	    > "$dir/hosts.d/.base" && mv "$dir/hosts.d/.base" "$dir/hosts.d/base"
	: > "$dir/hosts.d/$host"
	for a in "$@"; do echo "$a $host" >> "$dir/hosts.d/$host"; done
	kill -HUP "$(cat "$dir/dnsmasq.pid")" || return 1
	# dnsmasq logs each file it re-reads: wait for that.
	for i in $(seq 100); do
		[ "$(grep -c "read $dir/hosts.d/" "$dir/dnsmasq.log")" -gt "$n0" ] &&
			return 0
		sleep 0.02
	done
	return 1
}

# internet_exec NAME CMD...: run CMD in the internet's netns.
# internet_dns_sync: a barrier for INET_DNS_LOG.  Asks the DNS server for
# a unique name from the host and waits (5 s at most) until its log shows
# it; a query that reached the server before is in the log by then.
internet_dns_sync() {
	local n="sync-$$-$RANDOM$RANDOM.test" i
	dig +time=2 +tries=1 @"$INET_DNS" "$n" >/dev/null 2>&1
	for ((i = 0; i < 50; i++)); do
		grep -qF "$n" "$INET_DNS_LOG" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "# internet: $n never showed in $INET_DNS_LOG" >&2
	return 1
}

internet_exec() {
	local ns=aisbinet-$1
	shift
	ip netns exec "$ns" "$@"
}

# internet_spawn NAME LABEL CMD...: start CMD in the netns, in the
# background; the PID goes to $INET_DIR/LABEL.pid for internet_down.
internet_spawn() {
	local name=$1 label=$2 dir=$_INET_RUN/$1
	shift 2
	case "$label" in ''|*[!a-z0-9_-]*) return 1 ;; esac
	[ -d "$dir" ] || return 1
	ip netns exec "aisbinet-$name" "$@" </dev/null >/dev/null \
	    2>"$dir/$label.err" &
	echo $! > "$dir/$label.pid"
	disown $!
}

# internet_git_repo NAME REPO: a bare repository $INET_DIR/git/REPO.git with
# one commit (README: "aisb test repo REPO") on main, served over smart HTTP
# at http(s)://ANY-ORIGIN/git/REPO.git and pushable; over ssh (with
# internet_sshd) as USER@git.test:$INET_DIR/git/REPO.git (the repository
# is root's and world-writable: USER needs safe.directory in its
# ~/.gitconfig).
internet_git_repo() {
	local dir=$_INET_RUN/$1 repo=$2 w rc
	[ -d "$dir" ] || return 1
	w=$(mktemp -d) || return 1
	git init -q -b main "$w" &&
	    echo "aisb test repo $repo" > "$w/README" &&
	    git -C "$w" add README &&
	    git -C "$w" -c user.name=aisb -c user.email=aisb@test.invalid \
		commit -q -m "first" &&
	    git clone -q --bare "$w" "$dir/git/$repo.git" &&
	    git -C "$dir/git/$repo.git" config http.receivepack true &&
	    chmod -R a+rwX "$dir/git/$repo.git"
	rc=$?
	rm -rf "$w"
	return $rc
}

# internet_sshd NAME AUTHORIZED_KEYS: sshd on $INET_ADDR_SVC:22 (key only,
# any local user whose key is in AUTHORIZED_KEYS); its host key goes to
# $INET_SSH_KNOWN_HOSTS for git.test, svc.test and the address.  No PAM
# (the host's sshd stack is not this server's): a user with a locked
# password ("!", as useradd makes it) is refused; usermod -p '*' USER.
internet_sshd() {
	local name=$1 keys=$2 dir=$_INET_RUN/$1 svc i
	[ -f "$dir/slot" ] || return 1
	svc=198.51.100.$(($(cat "$dir/slot") * 32 + 21))
	mkdir -p "$dir/ssh" && chmod 755 "$dir/ssh" &&
	    ssh-keygen -q -t ed25519 -N '' -f "$dir/ssh/host_key" &&
	    install -m 0644 "$keys" "$dir/ssh/authorized_keys" || return 1
	echo "git.test,svc.test,$svc $(cat "$dir/ssh/host_key.pub")" \
	    > "$dir/ssh/known_hosts"
	printf '%s\n' "ListenAddress $svc:22" "HostKey $dir/ssh/host_key" \
	    "AuthorizedKeysFile $dir/ssh/authorized_keys" \
	    "PasswordAuthentication no" "KbdInteractiveAuthentication no" \
	    "PermitRootLogin no" "UsePAM no" "StrictModes no" "PidFile none" \
	    "AcceptEnv GIT_PROTOCOL" "Subsystem sftp internal-sftp" \
	    > "$dir/ssh/sshd_config"
	mkdir -p /run/sshd
	internet_spawn "$name" sshd /usr/sbin/sshd -D -e \
	    -f "$dir/ssh/sshd_config" || return 1
	for i in $(seq 100); do
		ip netns exec "aisbinet-$name" ss -Hltn \
		    "src $svc and sport = :22" | grep -q . && return 0
		sleep 0.05
	done
	return 1
}

# inet_getent HOST: getent ahostsv4/hosts through INET_DNS only.
inet_getent() {
	# shellcheck disable=SC2016
	unshare -m sh -c 'mount --bind "$1" /etc/resolv.conf &&
	    exec getent hosts "$2"' sh "$INET_RESOLV" "$1"
}

_inet_origin_py() {
	cat <<'EOF'
# The test internet's origin servers (started by tests/lib/internet.sh).
import hashlib, mimetypes, os, socket, socketserver, ssl, subprocess, sys
import threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

d = sys.argv[1]
addrs = sys.argv[2:]
logf = open(os.path.join(d, "origin.log"), "a", buffering=1)
loglock = threading.Lock()
www = os.path.realpath(os.path.join(d, "www"))


def log(s):
    with loglock:
        logf.write(s + "\n")


class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "aisb-origin"
    sys_version = ""

    def log_message(self, fmt, *a):
        pass

    def reply(self, code, body=b"", hdrs=()):
        self.send_response(code)
        self.send_header("X-Origin-Addr", self.connection.getsockname()[0])
        self.send_header("Content-Length", str(len(body)))
        for k, v in hdrs:
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def note(self):
        log("%s %s %s %s %s %s" % (
            self.server.scheme, self.client_address[0],
            self.connection.getsockname()[0], self.command,
            self.headers.get("Host", "-"), self.path))

    def body(self):
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            out = bytearray()
            while True:
                line = self.rfile.readline(1024)
                n = int(line.split(b";")[0].strip() or b"0", 16)
                if n == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                if len(out) + n > 256 << 20:
                    raise ValueError("body too large")
                out += self.rfile.read(n)
                self.rfile.readline(16)
        n = int(self.headers.get("Content-Length", "0"))
        if n > 256 << 20:
            raise ValueError("body too large")
        return self.rfile.read(n) if n else b""

    def private(self):
        # /private/REST: REST, with the Authorization of private.auth only.
        try:
            with open(os.path.join(d, "private.auth")) as f:
                want = f.read().strip()
        except OSError:
            want = None
        if want is None or self.headers.get("Authorization", "") != want:
            self.reply(401, b"authorization required\n",
                       [("WWW-Authenticate", 'Basic realm="aisb"')])
            return False
        self.path = self.path[8:]
        return True

    def sse(self, n):
        self.send_response(200)
        self.send_header("X-Origin-Addr", self.connection.getsockname()[0])
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i in range(min(n, 100)):
            ev = b"data: event %d\n\n" % i
            self.wfile.write(b"%x\r\n%s\r\n" % (len(ev), ev))
            self.wfile.flush()
            time.sleep(0.4)
        self.wfile.write(b"0\r\n\r\n")

    def do_GET(self):
        self.note()
        if self.path.startswith("/private/") and not self.private():
            return
        p = self.path.split("?")[0]
        if p == "/":
            return self.reply(200, b"aisb-origin ok\n", [("Content-Type", "text/plain")])
        if p in ("/headers", "/echo"):
            b = "".join("%s: %s\n" % (k, v) for k, v in self.headers.items())
            return self.reply(200, (self.requestline + "\n" + b).encode())
        if p.startswith("/sse/"):
            return self.sse(int(p[5:]))
        if p.startswith("/bytes/"):
            n = min(int(p[7:]), 64 << 20)
            pat = bytes(i % 251 for i in range(251))
            b = (pat * (n // 251 + 1))[:n]
            return self.reply(200, b, [("Content-Type", "application/octet-stream")])
        if p.startswith("/status/"):
            return self.reply(int(p[8:]))
        if p.startswith("/slow/"):
            time.sleep(min(float(p[6:]), 30))
            return self.reply(200, b"aisb-origin ok\n")
        if p.startswith("/static/"):
            f = os.path.realpath(os.path.join(www, p[8:]))
            if os.path.isdir(f):
                f = os.path.join(f, "index.html")
            if f.startswith(www + "/") and os.path.isfile(f):
                t = mimetypes.guess_type(f)[0] or "application/octet-stream"
                with open(f, "rb") as fh:
                    return self.reply(200, fh.read(), [("Content-Type", t)])
        if p.startswith("/git/"):
            return self.git(b"")
        return self.reply(404, b"not found\n")

    def git(self, body):
        # git smart HTTP through git http-backend (CGI), buffered.
        path, _, query = self.path.partition("?")
        env = {"PATH": "/usr/bin:/bin", "GIT_PROJECT_ROOT": os.path.join(d, "git"),
               "GIT_HTTP_EXPORT_ALL": "1", "REMOTE_USER": "tester",
               "REMOTE_ADDR": self.client_address[0],
               "REQUEST_METHOD": self.command, "PATH_INFO": path[4:],
               "QUERY_STRING": query, "CONTENT_LENGTH": str(len(body)),
               "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
        if self.headers.get("Content-Encoding", "") == "gzip":
            env["HTTP_CONTENT_ENCODING"] = "gzip"
        r = subprocess.run(["git", "http-backend"], input=body, env=env,
                           capture_output=True, timeout=60)
        head, _, out = r.stdout.partition(b"\r\n\r\n")
        code, hdrs = 200, []
        for line in head.decode("latin-1").split("\r\n"):
            k, _, v = line.partition(":")
            if k.lower() == "status":
                code = int(v.split()[0])
            elif k:
                hdrs.append((k, v.strip()))
        return self.reply(code, out, hdrs)

    do_HEAD = do_GET

    def do_POST(self):
        self.note()
        if self.path.startswith("/private/") and not self.private():
            self.close_connection = True
            return
        try:
            b = self.body()
        except (ValueError, OSError):
            self.close_connection = True
            return self.reply(400, b"bad body\n")
        if self.path.startswith("/git/"):
            return self.git(b)
        if self.path.split("?")[0] != "/echo":
            return self.reply(404, b"not found\n")
        return self.reply(200, b, [("X-Body-Length", str(len(b))),
                                   ("X-Body-Sha256", hashlib.sha256(b).hexdigest())])

    do_PUT = do_POST


class HTTP(ThreadingHTTPServer):
    allow_reuse_address = True
    daemon_threads = True
    request_queue_size = 512

    def __init__(self, addr, port, ctx):
        self.scheme = "https" if ctx else "http"
        self.ctx = ctx
        super().__init__((addr, port), H)

    def finish_request(self, request, client_address):
        # The TLS handshake happens here, in the connection's thread.
        if self.ctx:
            try:
                request = self.ctx.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return
        super().finish_request(request, client_address)


class Banner(socketserver.StreamRequestHandler):
    def handle(self):
        port = self.connection.getsockname()[1]
        addr = self.connection.getsockname()[0]
        log("tcp %s %s %d" % (self.client_address[0], addr, port))
        first = "SSH-2.0-aisb_origin" if port == 22 else "aisb-origin"
        self.wfile.write(("%s port=%d addr=%s\r\n" % (first, port, addr)).encode())
        for line in self.rfile:
            self.wfile.write(line)


class TCP(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True


ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(os.path.join(d, "server.pem"), os.path.join(d, "server.key"))
other = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
other.load_cert_chain(os.path.join(d, "server-other.pem"),
                      os.path.join(d, "server.key"))
servers = []
for a in addrs:
    servers += [HTTP(a, 80, None), HTTP(a, 443, ctx), HTTP(a, 8443, other),
                TCP((a, 22), Banner), TCP((a, 23), Banner)]
for s in servers:
    threading.Thread(target=s.serve_forever, daemon=True).start()
open(os.path.join(d, "origin.ready"), "w").close()
threading.Event().wait()
EOF
}

_inet_net() {
	local o b=$((INET_SLOT * 32 + 16))
	ip netns add "$INET_NS" &&
	ip link add "$INET_HOST_IF" type veth peer name "$INET_NS_IF" \
	    netns "$INET_NS" &&
	sysctl -qw "net.ipv6.conf.$INET_HOST_IF.disable_ipv6=1" &&
	ip addr add "$INET_HOST_ADDR/28" dev "$INET_HOST_IF" &&
	ip link set "$INET_HOST_IF" up &&
	ip -n "$INET_NS" link set lo up &&
	ip netns exec "$INET_NS" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 &&
	ip -n "$INET_NS" addr add "$INET_DNS/28" dev "$INET_NS_IF" &&
	ip -n "$INET_NS" link set "$INET_NS_IF" up || return 1
	for o in 1 2 3 4 5; do
		ip -n "$INET_NS" addr add "198.51.100.$((b + o))/32" dev lo ||
			return 1
	done
	ip route add "$INET_ORIGIN_NET" via "$INET_DNS" dev "$INET_HOST_IF"
}

# internet_up NAME: build the internet (tearing down any leftover of the
# same NAME first) and register internet_down NAME with at_exit.
internet_up() {
	local name=$1 slot i o
	case "$name" in
	''|*[!a-z0-9]*) _inet_log "bad NAME '$name' (1-8 of [a-z0-9])"; return 1 ;;
	esac
	[ ${#name} -le 8 ] || { _inet_log "NAME '$name' longer than 8"; return 1; }
	for i in ip dnsmasq python3 openssl flock; do
		command -v "$i" >/dev/null ||
			{ _inet_log "missing $i (tests/deps.sh test)"; return 1; }
	done
	internet_down "$name"
	declare -F at_exit >/dev/null && at_exit "internet_down $name"
	_INET_OWNER=$$
	slot=$(_inet_slot "$name") || { _inet_log "no free slot"; return 1; }
	_inet_vars "$name" "$slot"
	mkdir -p "$INET_WWW" "$INET_DIR/hosts.d" "$INET_DIR/git" &&
	    chmod 755 "$INET_DIR" ||
		return 1
	_inet_ca || { _inet_log "openssl failed"; internet_down "$name"; return 1; }
	_inet_hosts > "$INET_DIR/hosts.d/base"
	echo "nameserver $INET_DNS" > "$INET_RESOLV"
	_inet_origin_py > "$INET_DIR/origin.py"

	if ! _inet_net; then
		_inet_log "cannot build netns $INET_NS"
		internet_down "$name"
		return 1
	fi

	ip netns exec "$INET_NS" dnsmasq -k --conf-file=/dev/null --user=root \
	    --group=root --no-resolv --no-hosts --no-poll --local='/#/' \
	    --listen-address="$INET_DNS" --bind-interfaces --port=53 \
	    --addn-hosts="$INET_DIR/hosts.d" --local-ttl=0 \
	    --log-queries=extra --log-facility="$INET_DNS_LOG" \
	    --pid-file= </dev/null >/dev/null 2>"$INET_DIR/dnsmasq.err" &
	echo $! > "$INET_DIR/dnsmasq.pid"
	disown $!
	ip netns exec "$INET_NS" python3 "$INET_DIR/origin.py" "$INET_DIR" \
	    "$INET_ADDR_ORIGIN" "$INET_ADDR_API" "$INET_ADDR_DENIED" \
	    "$INET_ADDR_OTHER" \
	    </dev/null >/dev/null 2>"$INET_DIR/origin.err" &
	echo $! > "$INET_DIR/origin.pid"
	disown $!

	for i in $(seq 100); do
		[ -e "$INET_DIR/origin.ready" ] &&
		    ip netns exec "$INET_NS" ss -Hlnu "sport = :53" | grep -q . &&
		    break
		sleep 0.05
	done
	if ! [ -e "$INET_DIR/origin.ready" ] ||
	    ! ip netns exec "$INET_NS" ss -Hlnu "sport = :53" | grep -q .; then
		_inet_log "servers did not start: $(cat "$INET_DIR"/*.err 2>/dev/null)"
		internet_down "$name"
		return 1
	fi
	return 0
}
