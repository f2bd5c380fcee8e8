#!/bin/bash
# Every key the policy parser knows (policy_keys[], printed by the helper
# print_policy_keys) is documented in aisb.conf(5) and set or shown in
# the example etc/aisb/aisb.conf.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

src=$AISB_SRC
helper=$AISB_HELPERS/print_policy_keys
if ! grep -qs 'policy_keys\[\]' "$src"/lib/*.c; then
	skip_all "policy_keys[] is not in lib/*.c on main yet (the policy parser)"
fi
[ -x "$helper" ] || skip_all "$helper is not built (make)"
keys=$("$helper")
n=$(printf '%s\n' "$keys" | grep -c .)
ok "the parser knows keys ($n)" test "$n" -ge 30
page=$src/docs/aisb.conf.5
conf=$src/etc/aisb/aisb.conf
ok "etc/aisb/aisb.conf exists" test -f "$conf"

# Dotted paths that the example sets, or names as a section, whether the
# line is live or commented out ("# secret NAME { file = ... }").
paths=$(python3 - "$conf" <<'PY'
import re, sys
# Live lines lose their comments.  A comment line counts only when it
# is commented-out policy ("#   secret NAME { file = ... }"), not prose.
# Then walk the tokens: NAME [TITLE] "{" opens a section, NAME ("=" |
# "+=") VALUE sets a key (a VALUE in braces is a list), "}" closes one.
code = re.compile(r'^\s*([a-z_]+\s*(\+?=|\{)|[a-z_]+\s+[A-Za-z0-9_"-]+\s*\{|\}\s*$)')
def uncomment(line):
    out, q = [], None
    for c in line:
        if q:
            q = None if c == q else q
        elif c in "\"'":
            q = c
        elif c == "#":
            break
        out.append(c)
    return "".join(out)
text = []
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r"^\s*#(.*)", line)
    if m:
        if code.match(m.group(1)):
            text.append(uncomment(m.group(1)) + "\n")
    else:
        text.append(uncomment(line))
toks = re.findall(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|\+=|[{}=,]|[^\s{}=,"\']+', "".join(text))
out, stack, i = set(), [], 0
while i < len(toks):
    t = toks[i]
    if t == "}":
        if stack: stack.pop()
        i += 1
    elif i + 1 < len(toks) and toks[i + 1] in ("=", "+="):
        out.add(".".join(stack + [t]))
        i += 2
        if i < len(toks) and toks[i] == "{":
            while i < len(toks) and toks[i] != "}": i += 1
        i += 1
    elif i + 1 < len(toks) and toks[i + 1] == "{":
        stack.append(t); out.add(".".join(stack)); i += 2
    elif i + 2 < len(toks) and toks[i + 2] == "{":
        stack.append(t); out.add(".".join(stack)); i += 3
    else:
        i += 1
print("\n".join(sorted(out)))
PY
)

for k in $keys; do
	# Keys inside a titled section (env.secret.file) are documented on
	# the section's line: ".It Cm env.secret Ar NAME No { Cm file ...".
	leaf=${k##*.} parent=${k%.*}
	if grep -qE "^\.It Cm ${k//./\\.}( |\$)" "$page" ||
	    grep -qE "^\.It Cm ${parent//./\\.} .*Cm $leaf( |\$)" "$page"; then
		pass "aisb.conf(5) documents $k"
	else
		fail "aisb.conf(5) documents $k" "no '.It Cm $k' line in docs/aisb.conf.5"
	fi
	if printf '%s\n' "$paths" | grep -qxF "$k"; then
		pass "etc/aisb/aisb.conf shows $k"
	else
		fail "etc/aisb/aisb.conf shows $k" "not set (or commented) in etc/aisb/aisb.conf"
	fi
done

# And the other way round: the page documents no key the parser lacks.
extra=
# shellcheck disable=SC2013 # the keys are single words
for k in $(grep -oE '^\.It Cm [a-z_]+(\.[a-z_]+)*' "$page" | awk '{print $3}'); do
	printf '%s\n' "$keys" | grep -qxF "$k" ||
	    printf '%s\n' "$keys" | grep -q "^${k//./\\.}\." ||
	    extra="$extra $k"
done
is "$extra" "" "aisb.conf(5) documents only keys the parser knows"
done_testing
