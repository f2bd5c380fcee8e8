#!/bin/bash
# A package mirror behind a TLS-inspecting proxy, as docs/harnesses.md
# ("Registries behind a TLS-inspecting proxy or a mirror") says to set it
# up, with the test internet's origin as the mirror: its name resolves
# into a special-purpose range (198.51.100.0/24, documentation) and its
# certificate comes from a CA that is not in the system bundle (the test
# CA, standing for the proxy's).
#  - The mirror's address: refused without network.allow_cidr, with the
#    range in the gate's record; reached with allow_cidr naming it.
#  - No CA inside: curl, git, pip, Node and npm each refuse the
#    certificate (the witness that nothing else trusts it).
#  - The CA in the system bundle (the bundle with it, bound over the
#    system one: what update-ca-certificates on the host gives): curl,
#    git and Debian's pip need no setting; Node and npm ignore the
#    system bundle and fail until NODE_EXTRA_CA_CERTS (or, for npm, its
#    cafile) names it.
#  - The CA in a file of its own: each tool's variable (PIP_CERT,
#    GIT_SSL_CAINFO, NODE_EXTRA_CA_CERTS) makes that tool trust it; an
#    npm cafile naming a bundle without the CA wins over
#    NODE_EXTRA_CA_CERTS.
# shellcheck disable=SC2016 # commands for the session, expanded there
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
# shellcheck source=tests/workloads/lib.sh
. "$(dirname "$0")/lib.sh"
command -v npm >/dev/null || skip_all "npm missing (tests/deps.sh test)"
command -v git >/dev/null || skip_all "git missing (tests/deps.sh test)"
/usr/bin/python3 -c 'import pip' 2>/dev/null ||
	skip_all "python3-pip missing (tests/deps.sh test)"
wl_setup 7
python3 "$(dirname "$0")/pkgs.py" "$INET_WWW" https://origin.test/static ||
	skip_all "cannot build the test packages"
internet_git_repo "$WN" r1 || skip_all "cannot make the test repository"
REG=https://origin.test/static/npm/
IDX=https://origin.test/static/pypi/simple/
CAF=$TOP/ca/mirror-ca.pem
install -m 0644 "$INET_CA" "$CAF"
SYS=/etc/ssl/certs/ca-certificates.crt

# npm with no global config (the host's /etc/npmrc may set a cafile:
# the checks set npm's own cafile where they mean to) and no retries (a
# refused certificate is retried for a minute otherwise).
npm_i='export NPM_CONFIG_GLOBALCONFIG=/dev/null NPM_CONFIG_FETCH_RETRIES=0
	rm -rf app ~/.npm && mkdir app && cd app &&
	npm init -y >/dev/null &&
	npm install --no-audit --no-fund --registry '$REG' aisb-hello 2>&1; echo rc=$?'
pip_i='pip install --target /tmp/t --index-url '$IDX' aisb-hello 2>&1; echo rc=$?'
git_c='rm -rf c && git clone -q https://origin.test/git/r1.git c 2>&1 && cat c/README; echo rc=$?'
node_g='node -e "require(\"https\").get(\"https://origin.test/\", (r) => { console.log(\"ok\", r.statusCode); r.resume(); }).on(\"error\", (e) => console.log(\"err\", e.code))"'
NODE_BAD='UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT_LOCALLY|SELF_SIGNED_CERT_IN_CHAIN'
curl_g='curl -sS --max-time 10 https://origin.test/ 2>&1 >/dev/null; echo rc=$?'

# policy NAME LINES...: the base policy with no CA anywhere inside (the
# system bundle as on the host, no NODE_EXTRA_CA_CERTS), pip without
# retries, the CA file visible, then LINES.
policy() {
	local name=$1
	shift
	wl_conf "$name" "filesystem { readonly = {\"$TOP/ca\"} }" \
	    'env { set = {"PATH=/usr/local/bin:/usr/bin:/bin", "PIP_RETRIES=0"} }' "$@"
}

# --- the mirror's address is in a special-purpose range
CONF=$(policy nocidr "filesystem { readonly += {\"$TOP/ca/bundle.pem:$SYS\"} }" \
	'network { allow_cidr = {} }' 'env { set += {"NODE_EXTRA_CA_CERTS='$SYS'"} }')
LOG=$TOP/syslog
out=$(sl "$LOG" "$npm_i")
like "$out" "403 Forbidden - GET ${REG}aisb-hello" "no allow_cidr: npm from the mirror is refused"
like "$out" "$RC_FAILED" "... npm fails"
like "$(cat "$LOG")" "name=origin\.test port=443 rule=special-address" \
	"... the gate's record names the rule"
like "$(cat "$LOG")" "special-purpose range" "... and the range"
CONF=$(policy cidr "filesystem { readonly += {\"$TOP/ca/bundle.pem:$SYS\"} }" \
	"network { allow_cidr = {\"$INET_ADDR_ORIGIN/32\"} }" 'env { set += {"NODE_EXTRA_CA_CERTS='$SYS'"} }')
out=$(s "$npm_i")
like "$out" "added 1 package" "allow_cidr with the mirror's address: npm installs from it"

# --- no CA inside: every tool refuses the mirror's certificate
CONF=$(policy noca)
out=$(s "$curl_g")
like "$out" "certificate" "no CA: curl refuses the certificate"
like "$out" "$RC_FAILED|rc=128$" "... and fails"
out=$(s "$git_c")
like "$out" "certificate verification failed" "no CA: git refuses it"
like "$out" "rc=128$" "... and fails"
out=$(s "$pip_i")
like "$out" "CERTIFICATE_VERIFY_FAILED|certificate verify failed" "no CA: pip refuses it"
like "$out" "$RC_FAILED" "... and fails"
out=$(s "$node_g")
like "$out" "$NODE_BAD" "no CA: Node refuses it"
out=$(s "$npm_i")
like "$out" "$NODE_BAD" "no CA: npm refuses it"
like "$out" "$RC_FAILED" "... and fails"

# --- the CA in the system bundle
CONF=$(policy sysbundle "filesystem { readonly += {\"$TOP/ca/bundle.pem:$SYS\"} }")
like "$(s "$curl_g")" "^rc=0$" "CA in the system bundle: curl, no setting"
like "$(s "$git_c")" "^aisb test repo r1$" "... git clones, no setting"
like "$(s "$pip_i")" "Successfully installed aisb-hello-1.0" "... Debian's pip installs, no setting"
like "$(s "$node_g")" "$NODE_BAD" "... Node still refuses: it ignores the system bundle"
like "$(s "$npm_i")" "$NODE_BAD" "... and so does npm"
like "$(s "export NPM_CONFIG_CAFILE=$SYS; $npm_i")" "added 1 package" \
	"... npm with its cafile naming the system bundle installs"
CONF=$(policy sysnode "filesystem { readonly += {\"$TOP/ca/bundle.pem:$SYS\"} }" \
	'env { set += {"NODE_EXTRA_CA_CERTS='$SYS'"} }')
like "$(s "$node_g")" "^ok 200$" "... with NODE_EXTRA_CA_CERTS=$SYS Node trusts it"
like "$(s "$npm_i")" "added 1 package" "... and npm installs"

# --- the CA in a file of its own, named by each tool's variable
CONF=$(policy vars "env { set += {\"NODE_EXTRA_CA_CERTS=$CAF\", \"PIP_CERT=$CAF\", \"GIT_SSL_CAINFO=$CAF\"} }")
like "$(s "$node_g")" "^ok 200$" "CA file: NODE_EXTRA_CA_CERTS, Node trusts it"
like "$(s "$npm_i")" "added 1 package" "... npm installs"
like "$(s "$pip_i")" "Successfully installed aisb-hello-1.0" "... PIP_CERT, pip installs"
like "$(s "$git_c")" "^aisb test repo r1$" "... GIT_SSL_CAINFO, git clones"
# npm's cafile replaces Node's roots for npm: one naming a bundle without
# the CA (as a host's /etc/npmrc may) wins over NODE_EXTRA_CA_CERTS.
like "$(s "export NPM_CONFIG_CAFILE=$SYS; $npm_i")" "$NODE_BAD" \
	"... but an npm cafile without the CA wins over NODE_EXTRA_CA_CERTS"
done_testing
