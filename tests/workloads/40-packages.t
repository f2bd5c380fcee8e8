#!/bin/bash
# Package managers from inside gated sessions, against a registry and an
# index served in the test internet (static files: npm metadata and a
# tarball, a PEP 503 simple index and a wheel; tests/workloads/pkgs.py):
# npm install with --registry, pip install with --index-url into a venv,
# each the only tool setting; TLS trusted through the policy's CA bundle.
# The same installs from a name the policy does not allow fail fast with
# the gate's refusal in the tool's output and the rule in the gate's
# records (pip without retries shows only "no matching distribution":
# the record names the rule).  pip retries a refused proxy five times (about 8 s) unless the
# policy sets PIP_RETRIES=0 (env.set): both are shown.
# shellcheck disable=SC2016 # commands for the session, expanded there
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/internet.sh
. "$(dirname "$0")/../lib/internet.sh"
# shellcheck source=tests/workloads/lib.sh
. "$(dirname "$0")/lib.sh"
command -v npm >/dev/null || skip_all "npm missing (tests/deps.sh test)"
/usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null ||
	skip_all "python3-venv missing (tests/deps.sh test)"
wl_setup 4
python3 "$(dirname "$0")/pkgs.py" "$INET_WWW" https://origin.test/static ||
	skip_all "cannot build the test packages"
CONF=$(wl_conf base)
REG=https://origin.test/static/npm/
IDX=https://origin.test/static/pypi/simple/

# --- npm
out=$(s "mkdir app && cd app && npm init -y >/dev/null && npm install --no-audit --no-fund --registry $REG aisb-hello 2>&1 &&
	node -e 'console.log(require(\"aisb-hello\")())'")
like "$out" "added 1 package" "npm install from a registry in the test internet"
like "$out" "^hello from aisb-hello$" "... and node loads it"
ok "... into the project, with a lock file naming the registry" \
	grep -q "origin.test/static/npm/aisb-hello/-/aisb-hello-1.0.0.tgz" "$P/app/package-lock.json"
out=$(s "cd app && rm -rf node_modules ~/.npm && npm ci --no-audit --no-fund --registry $REG 2>&1 && ls node_modules")
like "$out" "aisb-hello" "npm ci from the lock file"

# --- pip, in a venv as agents make them
out=$(s "python3 -m venv /tmp/venv && /tmp/venv/bin/pip install --index-url $IDX aisb-hello 2>&1 &&
	/tmp/venv/bin/python -c 'import aisb_hello; print(aisb_hello.hello())'")
like "$out" "Successfully installed aisb-hello-1.0" "pip install from a PEP 503 index in the test internet"
like "$out" "^hello from aisb_hello$" "... and python imports it"
out=$(s "pip install --target /tmp/t --index-url $IDX aisb-hello 2>&1 && PYTHONPATH=/tmp/t python3 -c 'import aisb_hello; print(aisb_hello.hello())'")
like "$out" "^hello from aisb_hello$" "pip install --target with the system pip"

# --- from a name the policy does not allow
BAD=https://other.example.test/static
out=$(s "$(timed "npm install --no-audit --no-fund --registry $BAD/npm/ aisb-hello 2>&1; echo rc=\$?")")
like "$out" "403 Forbidden - GET $BAD/npm/aisb-hello" "npm from a name not allowed: the gate's 403 in npm's output"
like "$out" "^rc=1$" "... npm fails"
ms=$(ms_of "$out")
ok "... within 2 s (${ms} ms)" test "${ms:-99999}" -lt 2000
out=$(s "$(timed "pip install --target /tmp/t --index-url $BAD/pypi/simple/ aisb-hello 2>&1; echo rc=\$?")")
like "$out" "Tunnel connection failed: 403 Forbidden" "pip from a name not allowed: the gate's 403 in pip's output"
like "$out" "^rc=1$" "... pip fails"
ms=$(ms_of "$out")
ok "... after its own retries, within 15 s (${ms} ms)" test "${ms:-99999}" -lt 15000
CONF=$(wl_conf noretry 'env { set += {"PIP_RETRIES=0"} }')
LOG=$TOP/syslog
out=$(sl "$LOG" "$(timed "pip install --target /tmp/t --index-url $BAD/pypi/simple/ aisb-hello 2>&1; echo rc=\$?")")
# Without retries pip prints no warning: the reason is in the gate's record.
like "$out" "No matching distribution found for aisb-hello" "pip with PIP_RETRIES=0 from the policy: nothing found"
like "$out" "^rc=1$" "... pip fails"
ms=$(ms_of "$out")
ok "... within 2 s (${ms} ms)" test "${ms:-99999}" -lt 2000
like "$(cat "$LOG")" "deny proxy name=other\.example\.test port=443 rule=network\.allow reason=\"other\.example\.test:443 is not in network\.allow\"" \
	"... and the gate's record names host, port and rule"
is "$(s "pip install --target /tmp/t --index-url $IDX aisb-hello >/dev/null 2>&1 && echo ok")" "ok" \
	"twin: the allowed index still works with that policy"
done_testing
