#!/bin/bash
# Runtimes and clients from inside gated sessions, each to allowed names
# over http and https and to a name the policy does not allow: curl and
# wget and Python's urllib (through the proxy variables), Node's fetch and
# http/https modules and a Python client with its own DNS and connect
# (ignoring the proxy variables: the DNS stub and the capture path), curl
# --noproxy '*'.  The test CA is trusted through the policy only: a CA
# bundle bound over the system one (filesystem.readonly) and
# NODE_EXTRA_CA_CERTS (env.set).  A refusal is fast and says why: the
# proxy's 403 names host, port and rule; the gate's records (syslog) name
# the DNS query and the decision; --print-policy shows the admin where
# the allow list comes from, and one line added there makes the tool work.
# shellcheck disable=SC2016 # commands for the session, expanded there
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
# shellcheck source=tests/workloads/lib.sh
. "$(dirname "$0")/lib.sh"
command -v node >/dev/null || skip_all "node missing (tests/deps.sh test)"
command -v wget >/dev/null || skip_all "wget missing (tests/deps.sh test)"
wl_setup 2
CONF=$(wl_conf base)
install -m 0644 "$(dirname "$0")/client.py" "$(dirname "$0")/client.js" "$P/"

declare -A client=(
	[curl]='curl -sS --max-time 10 URL'
	[wget]='wget -q -O- -T 10 --content-on-error URL'
	[urllib]='python3 client.py urllib URL'
	[node-fetch]='node client.js fetch URL'
	[node-http]='node client.js http URL'
	[py-socket]='python3 client.py socket URL'
	[curl-noproxy]="curl -sS --noproxy '*' --max-time 10 URL"
)
order="curl wget urllib node-fetch node-http py-socket curl-noproxy"

# --- allowed names, http and https
for c in $order; do
	for url in http://origin.test/ https://origin.test/ https://api.example.test/; do
		out=$(s "${client[$c]//URL/$url}")
		is "$out" "aisb-origin ok" "$c: $url"
	done
done

# --- a name the policy does not allow: fails within 2 s, and says why
declare -A why=(
	[curl]='aisb: denied: other.example.test:80 is not in network.allow'
	[wget]='aisb: denied: other.example.test:80 is not in network.allow'
	[urllib]='HTTP 403 network.allow aisb: denied: other.example.test:80 is not in network.allow'
	[node-fetch]='ENOTFOUND other.example.test'
	[node-http]='ENOTFOUND other.example.test'
	[py-socket]='gaierror.*(Name or service not known|No address)'
	[curl-noproxy]='Could not resolve host: other.example.test'
)
# wget -q is silent about a failed tunnel: this one says why
declare -A tls_cmd=([wget]='wget -nv -O- -T 10 URL')
declare -A whys=(
	[curl]='CONNECT tunnel failed, response 403'
	[wget]='Proxy tunneling failed: Forbidden'
	[urllib]='403 Forbidden'
)
for c in $order; do
	out=$(s "$(timed "${client[$c]//URL/http://other.example.test/}")")
	ms=$(ms_of "$out")
	out=$(printf '%s' "$out" | tr '\n' ' ')
	like "$out" "${why[$c]}" "$c: http to a name not allowed is refused with the reason"
	ok "$c: ... within 2 s (${ms} ms)" test "${ms:-99999}" -lt 2000
	cmd=${tls_cmd[$c]:-${client[$c]}}
	out=$(s "${cmd//URL/https://other.example.test/}; echo rc=\$?")
	unlike "$out" "aisb-origin|rc=0" "$c: https to a name not allowed is refused"
	like "$out" "${whys[$c]:-${why[$c]}}" "$c: ... and the tool says so"
done
out=$(s 'curl -sS --max-time 10 -i http://denied.example.test/')
like "$out" "X-Aisb-Reason: network.deny" "a network.deny name: the 403 names the rule"
like "$out" "denied\.example\.test:80" "... and host and port"
out=$(s 'curl -sS --max-time 10 -i http://origin.test:8080/')
like "$out" "X-Aisb-Reason: network.ports" "an allowed name on another port: the 403 names network.ports"
like "$out" "port 8080 of origin\.test" "... and host and port"
out=$(s "curl -sS --max-time 10 --noproxy '*' http://origin.test:8080/; echo rc=\$?")
like "$out" "reset|refused|Couldn't connect|Recv failure|Empty reply" "... without the proxy: the connection is refused at once"

# --- the session's records: what the admin reads in syslog
LOG=$TOP/syslog
sl "$LOG" "curl -sS -o /dev/null --max-time 5 http://other.example.test/;
	getent hosts nxname.example.test;
	curl -sS -o /dev/null --max-time 5 http://origin.test:8080/;
	curl -sS --noproxy '*' -o /dev/null --max-time 5 http://origin.test:8080/;
	curl -sS -o /dev/null --max-time 5 http://origin.test/" >/dev/null
log=$(cat "$LOG")
like "$log" "aisb-gate\[[0-9]+\]: deny proxy name=other\.example\.test port=80 rule=network\.allow reason=\"other\.example\.test:80 is not in network\.allow\"" \
	"syslog: the proxy refusal with name, port and rule"
like "$log" "aisb-gate\[[0-9]+\]: dns udp query name=nxname\.example\.test type=A decision=deny" \
	"syslog: the refused DNS query with the name"
like "$log" "deny proxy name=origin\.test port=8080 rule=network\.ports" \
	"syslog: a port refusal through the proxy"
like "$log" "deny capture name=origin\.test port=8080 rule=network\.ports" \
	"syslog: a port refusal on the capture path"
like "$log" "allow proxy name=origin\.test port=80 address=$INET_ADDR_ORIGIN rule=\"network\.allow entry origin\.test \($CONF:[0-9]+\)\"" \
	"syslog: an allowed request names the entry, its file and line"
like "$log" "session start id=[0-9a-f]{32} user=$U " "syslog: the session record's start"
like "$log" "session end id=[0-9a-f]{32} status=0 " "syslog: ... and end"

# --- the admin's side: --print-policy shows where the list comes from;
# one entry in users.d/USER.conf makes the refused tool work
pp=$("$AISB_SHELL" --config "$CONF" --user "$U" --print-policy 2>&1)
like "$pp" "network\.allow = \{\"origin\.test\", .*\} +# $CONF:[0-9]+" \
	"--print-policy: network.allow with its file and line"
unlike "$pp" "other\.example\.test" "... without the refused name"
install -d -m 0755 "$TOP/conf/users.d"
echo 'network { allow += {"other.example.test"} }' > "$TOP/conf/users.d/$U.conf"
chmod 0644 "$TOP/conf/users.d/$U.conf"
pp=$("$AISB_SHELL" --config "$CONF" --user "$U" --print-policy 2>&1)
like "$pp" "network\.allow = \{.*\"other\.example\.test\"\}.*users\.d/$U\.conf" \
	"after adding it in users.d: --print-policy shows it and where"
is "$(s 'curl -sS --max-time 10 http://other.example.test/')" "aisb-origin ok" \
	"... and the same curl now works"
is "$(s 'node client.js fetch https://other.example.test/')" "aisb-origin ok" \
	"... and so does node fetch"
rm -f "$TOP/conf/users.d/$U.conf"
done_testing
