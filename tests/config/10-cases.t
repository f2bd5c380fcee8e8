#!/bin/bash
# Each tests/config/cases/bad-*.conf must be refused by --check-config
# with exit 78 and exactly the errors its "# want: LINE: KEY: message"
# lines name (as "FILE:LINE: ..."), no more, no fewer.  Each ok-*.conf
# must pass.  The files are copied into a root-owned 0755 directory so
# the trust checks pass and only the content is judged.  AISBT_EVIL is
# set in the environment to show that '${AISBT_EVIL}' is not expanded.
. "$(dirname "$0")/../lib/tap.sh"
require_root

cases=$AISB_SRC/tests/config/cases
dir=$(mktemp -d /var/lib/aisbt-policy.XXXXXX)
chmod 0755 "$dir"
at_exit "rm -rf '$dir'"
export AISBT_EVIL=/tmp/aisbt-evil

for src in "$cases"/bad-*.conf; do
	name=$(basename "$src" .conf)
	f=$dir/$name.conf
	cp "$src" "$f"
	chmod 0644 "$f"
	out=$("$AISB_SHELL" --config "$f" --check-config 2>&1 >/dev/null)
	rc=$?
	want=$(sed -n "s|^# want: |$f:|p" "$src")
	got=$(printf '%s\n' "$out" | grep -v '^aisb-shell: the policy is invalid or unsafe$')
	if [ "$rc" = 78 ] && [ "$got" = "$want" ]; then
		pass "$name: exit 78 with exactly the expected errors"
	else
		fail "$name: exit 78 with exactly the expected errors" \
		    "exit: $rc" "got:  ${got//$'\n'/ | }" "want: ${want//$'\n'/ | }"
	fi
	case "$out" in
	*aisbt-evil*) fail "$name: \$AISBT_EVIL leaked into a message" ;;
	esac
done

for src in "$cases"/ok-*.conf; do
	name=$(basename "$src" .conf)
	f=$dir/$name.conf
	cp "$src" "$f"
	chmod 0644 "$f"
	out=$("$AISB_SHELL" --config "$f" --check-config 2>&1)
	rc=$?
	is "$rc" 0 "$name: accepted${out:+ ($out)}"
done

# The single-quoted '${NOT_EXPANDED}' stays literal; nothing came from
# the environment.
f=$dir/ok-02-syntax.conf
json=$("$AISB_SHELL" --config "$f" --print-policy --json)
set_v=$(printf '%s' "$json" | python3 -c \
    'import json,sys; print("|".join(json.load(sys.stdin)["keys"]["env.set"]["value"]))')
# shellcheck disable=SC2016 # the $ is meant literally
is "$set_v" 'PS1=$ |A=b c|PRICE=${NOT_EXPANDED}' "single-quoted \$ kept literally"

# deny takes *.suffix entries, canonicalised like allow's.
f=$dir/ok-03-deny-suffix.conf
deny=$("$AISB_SHELL" --config "$f" --print-policy --json | python3 -c \
    'import json,sys; print(" ".join(json.load(sys.stdin)["keys"]["network.deny"]["value"]))')
is "$deny" "bad.example.org *.bad.example.org *.uploads.example.org:443" "network.deny keeps *.suffix entries, canonical"

# A NUL byte (cannot live in a case file: written here).
f=$dir/nul.conf
printf 'shell = /bin/sh\nhostname = "a\0b"\n' > "$f"
out=$("$AISB_SHELL" --config "$f" --check-config 2>&1 >/dev/null)
rc=$?
like "$rc $out" "^78 $f:2: NUL byte in the file" "NUL byte refused with its line"

# The example configuration is accepted and sets every key itself.
f=$dir/aisb.conf
cp "$AISB_SRC/etc/aisb/aisb.conf" "$f"
chmod 0644 "$f"
out=$("$AISB_SHELL" --config "$f" --check-config 2>&1)
is "$?" 0 "etc/aisb/aisb.conf passes --check-config${out:+ ($out)}"
defaults=$("$AISB_SHELL" --config "$f" --print-policy --json | python3 -c '
import json, sys
keys = json.load(sys.stdin)["keys"]
print(" ".join(k for k, v in sorted(keys.items())
               if v["origin"] == "default" and k not in ("env.secret", "credential")))')
is "$defaults" "" "etc/aisb/aisb.conf sets every key (none left at default)"
net=$("$AISB_SHELL" --config "$f" --print-policy --json | python3 -c '
import json, sys
k = json.load(sys.stdin)["keys"]
print(k["network.allow"]["value"], k["env.secret"]["value"], k["network.mode"]["value"])')
is "$net" "[] {} gated" "etc/aisb/aisb.conf: deny-all network, no secrets"
f=$dir/example.conf
cp "$AISB_SRC/etc/aisb/users.d/example.conf.sample" "$f"
chmod 0644 "$f"
out=$("$AISB_SHELL" --config "$f" --check-config 2>&1)
is "$?" 0 "users.d/example.conf.sample is valid on its own${out:+ ($out)}"

# 0 is "no limit" for every limit that documents it: limits.cpu takes
# "0" and 0 as "0%" (the JSON gives percent as a number), the others 0.
f=$dir/ok-04-zero-limits.conf
lim=$("$AISB_SHELL" --config "$f" --print-policy --json | python3 -c \
    'import json,sys; k=json.load(sys.stdin)["keys"]; print(" ".join(str(k["limits."+n]["value"]) for n in ("memory","pids","cpu","nofile","fsize","timeout")))')
is "$lim" "0 0 0 0 0 0" "limits of 0 stay 0"
like "$("$AISB_SHELL" --config "$f" --print-policy | grep "^limits.cpu ")" '^limits.cpu = 0%' "limits.cpu = \"0\" prints as 0%"
sed 's/cpu = "0"/cpu = 0/' "$f" >"$dir/zero-bare.conf"
chmod 0644 "$dir/zero-bare.conf"
out=$("$AISB_SHELL" --config "$dir/zero-bare.conf" --check-config 2>&1)
is "$?" 0 "limits.cpu = 0 unquoted is accepted${out:+ ($out)}"

done_testing
