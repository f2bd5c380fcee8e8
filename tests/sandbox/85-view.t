#!/bin/bash
# filesystem.view: the host's view is an allowlist.  By default a session
# shows the system set only (/usr and its merged-/usr links, /etc
# filtered, fresh /proc /sys /dev /tmp, an empty /run, /var with an
# empty tmp and the run link, the home, the project): a top-level
# directory and a top-level file the test creates on the host are not
# there.  Named in filesystem.readonly the directory shows (read-only,
# and filesystem.hide still holds inside it); with view =
# "whole-root-unsafe" both show, hide still covers them, and the
# doctor lists them.  The twin: ordinary tools still run in the system
# view (bash, coreutils, python3 with the system CA store, git, node, a
# compiler, curl).
# Commands run inside the sandbox are single-quoted on purpose.
# shellcheck disable=SC2016
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/lib/sess.sh
. "$(dirname "$0")/../lib/sess.sh" sbx
exec </dev/null
sess_require
u=tsbx9
sess_user "$u"
# A site-specific top-level directory and a file at / (a container
# marker, say): nobody listed them anywhere.
data=/aisbtest-$$-data
file=/aisbtest-$$-file
rm -rf "$data" "$file"
at_exit "rm -rf '$data' '$file'"
install -d -m 0755 "$data" "$data/secret"
echo data-canary > "$data/canary"
echo secret-canary > "$data/secret/key"
echo file-canary > "$file"
chmod 0644 "$data/canary" "$data/secret/key" "$file"

conf=$(sess_conf view)
r() { sess "$u" "$conf" -c "$1" 2>&1; }

# The top level is exactly the system set (what of it this host has),
# with the home's top directory and the project.
want=$(for n in usr bin sbin lib lib32 lib64 libx32 etc; do
	[ -e "/$n" ] || [ -L "/$n" ] && echo "$n"
done
printf '%s\n' dev proc sys tmp run var home project)
want=$(sort <<<"$want" | tr '\n' ' ')
is "$(r 'ls -A / | sort | tr "\n" " "')" "$want" \
    "default view: the top level is the system set and nothing else"
out=$(r "cat $data/canary $file; ls -d $data $file")
unlike "$out" "data-canary|file-canary" "default view: the test's top-level directory and file are not readable"
like "$out" "No such file" "... and not there at all"
if [ -d /opt ]; then
	is "$(r '[ -e /opt ] && echo shown || echo absent')" absent "default view: the host's /opt is not there"
fi
is "$(r 'echo "[$(ls -A /run)][$(ls -A /var/tmp)][$(readlink /var/run)][$(ls -A /var | sort | tr "\n" " ")]"')" \
    "[][][/run][run tmp ]" \
    "default view: /run and /var/tmp are empty, /var holds only tmp and the run link"
# The links of a merged /usr are links, as on the host.
for n in bin lib; do
	if [ -L "/$n" ]; then
		is "$(r "readlink /$n")" "$(readlink "/$n")" "default view: /$n is the host's link"
	fi
done

# Twin: what real tools need is in the system set.
is "$(r 'bash -c "echo \$BASH_VERSION" | cut -c1; echo a b | tr " " "\n" | sort -r | head -1')" \
    "$(printf '%s\n' "${BASH_VERSION:0:1}" b)" "twin: bash and coreutils run"
if command -v python3 >/dev/null; then
	is "$(r 'python3 -c "import ssl, json; print(ssl.create_default_context().cert_store_stats()[\"x509_ca\"] > 0)"')" True \
	    "twin: python3 runs and loads the system CA store"
fi
if command -v git >/dev/null; then
	out=$(r 'cd /tmp && git init -q r && cd r && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && git log --format=%s')
	is "$out" x "twin: git init and commit work"
fi
if command -v node >/dev/null; then
	is "$(r 'node -e "console.log(1 + 1)"')" 2 "twin: node runs"
fi
if command -v cc >/dev/null; then
	is "$(r 'cd /tmp && printf "#include <stdio.h>\nint main(void){puts(\"built\");return 0;}\n" > t.c && cc -o t t.c && ./t')" built \
	    "twin: the C compiler builds and the program runs"
fi
if command -v curl >/dev/null; then
	like "$(r 'curl --version | head -1')" "^curl " "twin: curl runs"
fi
like "$(r 'head -c 27 /etc/ssl/certs/ca-certificates.crt')" "BEGIN CERTIFICATE" \
    "twin: the system CA bundle is readable"
out=$(r 'cat /etc/shadow')
unlike "$out" 'root:[^:]*:[0-9]' "twin: /etc is filtered as before (no shadow)"

# Named in filesystem.readonly: the directory shows, read-only; a hide
# entry inside it still holds.  The top-level file stays out.
named=$(sess_conf view-named "filesystem { readonly = {\"$data\"}  hide += {\"$data/secret\"} }")
out=$(sess "$u" "$named" -c "cat $data/canary; cat $data/secret/key; ls -A $data/secret; cat $file; touch $data/w && echo WROTE" 2>&1)
like "$out" "^data-canary$" "readonly: the named directory is readable"
unlike "$out" "secret-canary" "readonly + hide: the hidden path inside it stays hidden"
unlike "$out" "file-canary" "readonly: the top-level file it does not name stays out"
unlike "$out" "WROTE" "readonly: the named directory is read-only"
ok "readonly: nothing was written on the host" [ ! -e "$data/w" ]

# The whole-root mode: every top-level entry shows but those hidden.
whole=$(sess_conf view-whole 'filesystem { view = "whole-root-unsafe" }')
out=$(sess "$u" "$whole" -c "cat $data/canary $file" 2>&1)
is "$out" "$(printf 'data-canary\nfile-canary')" "whole-root-unsafe: the top-level directory and file show"
if [ -d /opt ]; then
	is "$(sess "$u" "$whole" -c '[ -e /opt ] && echo shown')" shown "whole-root-unsafe: /opt shows"
fi
hidden=$(sess_conf view-whole-hide "filesystem { view = \"whole-root-unsafe\"  hide += {\"$data\", \"$file\"} }")
out=$(sess "$u" "$hidden" -c "cat $data/canary; cat $file; ls -A $data; echo end" 2>&1)
unlike "$out" "data-canary|file-canary" "whole-root-unsafe + hide: the hidden directory and file show nothing"
like "$out" "^end$" "... (the session ran)"
like "$(sess "$u" "$whole" -c 'cat /etc/shadow' 2>&1)" "Permission denied|No such file" \
    "whole-root-unsafe: the default hide list still covers /etc/shadow"

# --print-policy names the view; a bad value is a policy error.
like "$("$AISB_SHELL" --config "$whole" --print-policy --user "$u" 2>&1)" 'filesystem.view = "?whole-root-unsafe' \
    "--print-policy shows the view"
bad=$(sess_conf view-bad 'filesystem { view = "all" }')
out=$(sess "$u" "$bad" -c true 2>&1); rc=$?
is "$rc" 78 "an unknown view is a policy error (78)"
like "$out" "filesystem.view: must be system or whole-root-unsafe" "... that says which values exist"

# --doctor lists every host path the view shows outside the system set.
out=$("$AISB_SHELL" --config "$whole" --doctor --user "$u" 2>&1)
like "$out" "warn: view\[$u\]: $data is shown" "--doctor, whole-root: the top-level directory is listed"
like "$out" "warn: view\[$u\]: $file is shown" "--doctor, whole-root: the top-level file is listed"
out=$("$AISB_SHELL" --config "$named" --doctor --user "$u" 2>&1)
like "$out" "ok: view\[$u\]: $data is shown read-only" "--doctor: a readonly path is listed"
unlike "$out" "warn: view" "... and the system view has no warning"
like "$("$AISB_SHELL" --config "$conf" --doctor --user "$u" 2>&1)" "ok: view\[$u\]: the system set only" \
    "--doctor, default: the system set only"

done_testing
