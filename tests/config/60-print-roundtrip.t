#!/bin/bash
# --print-policy writes every value as aisb.conf would read it: the
# human form of a policy with awkward values (spaces, quotes, #, =,
# braces, commas, $, %, backslashes, a tab), turned back into a config
# file (each "a.b = V" line into "a { b = V }"), parses to the same
# policy: the same hash and the same value for every key.
. "$(dirname "$0")/../lib/tap.sh"
require_root

top=$(mktemp -d /var/lib/aisbt-print.XXXXXX)
chmod 0755 "$top"
at_exit "rm -rf '$top'"
mkdir -p "$top/one" "$top/two"
chmod 0755 "$top/one" "$top/two"

cat > "$top/one/aisb.conf" <<'EOF'
hostname = "odd-name"
project {
	path = "/srv/a b/%u/pro#j=1 {x}, 100%%"
	roots = {"/srv/a b/%u"}
	protect = {".git/hooks", "we ird/{x}=y #z", "q\"uote"}
}
home { path = "/var/lib/aisb/h o m e/%u" }
filesystem {
	hide = {"/opt/has space", "/opt/q\"uote", "/opt/br{ace}", "/opt/eq=#", "/opt/c,omma", "/opt/back\\slash", "/opt/*.key", "/opt/100%%"}
	readonly = {"/usr/share/a,b"}
}
env {
	pass = {"TERM", "LC_*"}
	set += {'PRICE=costs $5', 'BOTH=it\'s $HOME', "Q=say \"hi\" # not a comment", "B=a\\b", 'BR={x}, y=z', "T=tab	here", "P=100% sure", "U=ünï"}
	secret TOK { file = "/etc/aisb/secrets/%u/t o#k" }
}
network { allow = {"api.example.org:443", "*.example.net"}  resolver = "" }
limits { cpu = "150%"  memory = "3G"  enforce = "best-effort" }
EOF
chmod 0644 "$top/one/aisb.conf"

out1=$("$AISB_SHELL" --config "$top/one/aisb.conf" --user root --print-policy 2>&1)
is "$?" 0 "--print-policy of the awkward policy runs"
[ -n "$out1" ] || diag "no output"

# The human form, back into a config: "# origin" comments dropped (a
# '#' inside quotes is the value's), keys into sections.
printf '%s\n' "$out1" | python3 -c '
import re, sys
out = []
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("#") or not line.strip():
        continue
    key, _, rest = line.partition(" = ")
    # cut the "# origin" comment: the first # outside quotes
    val, q, i = [], None, 0
    while i < len(rest):
        c = rest[i]
        if q:
            if c == "\\":
                val.append(rest[i:i+2]); i += 2; continue
            if c == q:
                q = None
        elif c in "\"\x27":
            q = c
        elif c == "#":
            break
        val.append(c); i += 1
    v = "".join(val).rstrip()
    parts = key.split(".")
    if parts[0] == "env" and len(parts) == 4 and parts[1] == "secret":
        out.append("env { secret %s { %s = %s } }" % (parts[2], parts[3], v))
    elif parts[0] == "credential" and len(parts) == 3:
        out.append("credential %s { %s = %s }" % (parts[1], parts[2], v))
    elif len(parts) == 2:
        out.append("%s { %s = %s }" % (parts[0], parts[1], v))
    else:
        out.append("%s = %s" % (key, v))
print("\n".join(out))
' > "$top/two/aisb.conf"
chmod 0644 "$top/two/aisb.conf"

out2=$("$AISB_SHELL" --config "$top/two/aisb.conf" --user root --check-config 2>&1)
rc=$?
is "$rc" 0 "the printed policy, fed back as a config, is valid"
[ "$rc" = 0 ] || diag "$out2" "$(cat "$top/two/aisb.conf")"

keys() {	# keys FILE: each key's value as JSON, one line each, then the hash
	"$AISB_SHELL" --config "$1" --user root --print-policy --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for k, v in sorted(d["keys"].items()):
    print(k, json.dumps(v["value"], sort_keys=True))
print("hash", d["hash"])'
}
k1=$(keys "$top/one/aisb.conf")
k2=$(keys "$top/two/aisb.conf")
is "$(printf '%s\n' "$k2" | grep -v '^hash')" "$(printf '%s\n' "$k1" | grep -v '^hash')" \
	"every key has the same value after the round trip"
is "$(printf '%s\n' "$k2" | grep '^hash')" "$(printf '%s\n' "$k1" | grep '^hash')" \
	"the same policy hash"
# Witnesses: the awkward values really are in the policy.
like "$k1" '"PRICE=costs \$5"' "witness: env.set holds a \$"
like "$k1" "\"BOTH=it's \\\$HOME\"" "witness: env.set holds a ' and a \$"
like "$k1" '/srv/a b/root/pro#j=1 \{x\}, 100%"' "witness: project.path holds # = { } , % and a space"
like "$out1" "'PRICE=costs \\\$5'" "a value with a \$ prints single-quoted"
like "$out1" '"/srv/a b/root/pro#j=1 \{x\}, 100%%"' "a % in an expanded key prints as %%"
like "$out1" '"P=100% sure"' "a % in env.set (not expanded) prints as it is"
# Twin: the old form (double quotes around a $) is what the config refuses.
printf 'env { set = {"PRICE=costs $5"} }\n' > "$top/two/aisb.conf"
out=$("$AISB_SHELL" --config "$top/two/aisb.conf" --user root --check-config 2>&1)
is "$?" 78 "twin: a \$ in double quotes is refused (why the printer single-quotes it)"

# No secret or credential: a comment, not a value aisb.conf lacks.
printf 'shell = "/bin/sh"\n' > "$top/two/aisb.conf"
out=$("$AISB_SHELL" --config "$top/two/aisb.conf" --user root --print-policy 2>&1)
like "$out" "(^|$'\n')# env.secret: none($'\n'|$)" "no secret: a comment line"
like "$out" "(^|$'\n')# credential: none($'\n'|$)" "no credential: a comment line"
unlike "$out" "\(none\)" "no '(none)' pseudo-value"

done_testing
