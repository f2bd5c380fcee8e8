#!/bin/bash
# Merge and provenance: users.d/USER.conf overrides a scalar, replaces a
# list, appends with +=, and --print-policy (human and JSON) names the
# file and line of every value.
. "$(dirname "$0")/../lib/tap.sh"
require_root

tu_user tpol3 || skip_all "cannot create users"
top=$(mktemp -d /var/lib/aisbt-policy.XXXXXX)
chmod 0755 "$top"
at_exit "rm -rf '$top'"
mkdir -p "$top/users.d"
sys=$top/aisb.conf
usr=$top/users.d/tpol3.conf

cat > "$sys" <<'EOF'
# system policy (line 1)
shell = "/bin/sh"
network {
	allow = {"a.example.org",
		"b.example.org"}
	deny = {"x.example.org"}
	ports = {443}
}
limits {
	memory = 2G
	pids = 100
}
project {
	path = "/srv/agents/%u/work"
}
EOF
cat > "$usr" <<'EOF'
// tpol3's overrides (line 1)

shell = "/bin/dash"
network {
	allow += {"c.example.org"}
	ports = {8443, 9443}
	deny = {}
}
limits { pids = 50 }
env { secret TOKEN { file = "%h/.token" } }
EOF
chmod 0644 "$sys" "$usr"

json=$("$AISB_SHELL" --config "$sys" --user tpol3 --print-policy --json)
is "$?" 0 "--print-policy --json --user tpol3 runs"
q() {	# q KEY FIELD: print a field of a key from the JSON
	printf '%s' "$json" | python3 -c '
import json, sys
d = json.load(sys.stdin)
v = d["keys"][sys.argv[1]][sys.argv[2]]
print(json.dumps(v) if not isinstance(v, str) else v)' "$1" "$2"
}

is "$(printf '%s' "$json" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["user"], d["files"])')" \
    "tpol3 ['$sys', '$usr']" "JSON names the user and both files, in order"

is "$(q shell value)" "/bin/dash" "scalar overridden by the user file"
is "$(q shell origin)" "$usr:3" "... origin is the user file, line 3"

is "$(q network.ports value)" "[8443, 9443]" "list replaced with ="
is "$(q network.ports origin)" "$usr:6" "... origin user file line 6"
is "$(q network.ports origins)" "[\"$usr:6\", \"$usr:6\"]" "... each element from there"

is "$(q network.allow value)" '["a.example.org", "b.example.org", "c.example.org"]' \
    "list appended with +="
is "$(q network.allow origin)" "$usr:5" "... key origin is the += line"
is "$(q network.allow origins)" "[\"$sys:4\", \"$sys:5\", \"$usr:5\"]" \
    "... element origins: system lines 4 and 5, user line 5"

is "$(q network.deny value)" "[]" "list emptied with = {}"
is "$(q network.deny origin)" "$usr:7" "... origin of the empty list"

is "$(q limits.pids value)" "50" "scalar in a merged section overridden"
is "$(q limits.pids origin)" "$usr:9" "... origin user file line 9"
is "$(q limits.memory value)" "2147483648" "untouched key of that section kept (2G in bytes)"
is "$(q limits.memory origin)" "$sys:10" "... origin system file line 10"

is "$(q project.path value)" "/srv/agents/tpol3/work" "%u expanded for the target user"
is "$(q project.path origin)" "$sys:14" "... origin system line 14"
is "$(q env.secret value)" '{"TOKEN": "/home/tpol3/.token"}' "secret from the user file, %h expanded"
is "$(q env.secret origins)" "{\"TOKEN\": \"$usr:10\"}" "... its origin"

is "$(q hostname origin)" "default" "unset key: origin default"
is "$(q limits.cpu value)" "200" "unset key: default value (200%)"

# Human form: one line per key with "# origin".
human=$("$AISB_SHELL" --config "$sys" --user tpol3 --print-policy)
like "$human" "(^|$'\n')shell = \"/bin/dash\" +# $usr:3($'\n'|$)" "human: shell line with origin"
like "$human" "network.allow = \{\"a.example.org\", \"b.example.org\", \"c.example.org\"\} +# $usr:5" \
    "human: the effective network allowlist"
like "$human" "limits.memory = 2G +# $sys:10" "human: size in K/M/G form with origin"
n=$(printf '%s\n' "$human" | grep -vc '^#')
# Every key of the parser's list, env.secret.file folded into the one
# secret's line; no credential here, so the five credential keys are one
# comment line ("# credential: none").
want=$(( $("$AISB_HELPERS/print_policy_keys" | grep -c .) - 1 - 5 ))
is "$n" "$want" "human: one line per key ($want; one secret, no credential here)"

# The hash is over values: same policy from differently written files.
h1=$(printf '%s' "$json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
sed -i 's/^shell = "\/bin\/dash"/\n\nshell = \/bin\/dash   # moved/' "$usr"
h2=$("$AISB_SHELL" --config "$sys" --user tpol3 --print-policy --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
is "$h2" "$h1" "hash unchanged when only layout changes"
sed -i 's/^shell = \/bin\/dash/shell = \/bin\/bash/' "$usr"
h3=$("$AISB_SHELL" --config "$sys" --user tpol3 --print-policy --json |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["hash"])')
unlike "$h3" "^$h1\$" "hash changes with a value"

# Errors in the user file name the user file.
printf 'limits { pids = lots }\n' > "$usr"
out=$("$AISB_SHELL" --config "$sys" --user tpol3 --check-config 2>&1 >/dev/null)
like "$? $out" "^78 $usr:1: limits.pids: not a number" "an error in users.d names that file and line"
# A secret in both files is an error.
printf 'env { secret A { file = "/a" } }\n' >> "$sys"
printf 'env { secret A { file = "/b" } }\n' > "$usr"
out=$("$AISB_SHELL" --config "$sys" --user tpol3 --check-config 2>&1 >/dev/null)
like "$? $out" "^78 $usr:1: env.secret.A: secret defined twice" "a secret defined in both files is an error"

# Another user does not get tpol3's file.
json=$("$AISB_SHELL" --config "$sys" --user root --print-policy --json)
is "$(printf '%s' "$json" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["files"]))')" \
    "1" "root's policy reads only the system file"

done_testing
