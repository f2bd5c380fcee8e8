#!/bin/bash
# make install (the path without a package): the entry point in BINDIR
# and, in LIBEXECDIR/aisb beside it, the aisb-shell-main it runs and the
# gate, each root's with mode 0755 whatever the umask, in root's 0755
# directories (what pam_aisb's login-shell check accepts).  The installed
# entry point runs the installed aisb-shell-main (the witness: without
# it, 77); a LIBEXECDIR that is not BINDIR/../libexec is refused before
# anything is written; make uninstall takes the programs away, and
# LIBEXECDIR/aisb when nothing else is left in it.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

require_root
src=$AISB_SRC
for f in "$AISB_SHELL" "$BUILD/libexec/aisb/aisb-shell-main"; do
	[ -x "$f" ] || skip_all "$f is not built"
done
command -v readelf >/dev/null || skip_all "readelf is missing"
ver=$(sed -n 's/^#define AISB_VERSION[[:space:]]*"\(.*\)"/\1/p' "$src/lib/aisb.h")
tmp=$(mktemp -d)
chmod 0755 "$tmp"
at_exit "rm -rf '$tmp'"
D=$tmp/root
mk() { make -s -C "$src" BUILD="$BUILD" DESTDIR="$D" "$@" >"$tmp/make.log" 2>&1; }

# An administrator's umask 077 must not make the programs unreadable to
# the agent (its login would then fail at every start).
if (umask 077 && mk install); then
	pass "make install (umask 077)"
else
	fail "make install (umask 077)" "$(tail -n 20 "$tmp/make.log")"
	done_testing; exit
fi
P=$D/usr/local
mode() { stat -c '%U:%G %a' "$1" 2>&1; }
is "$(mode "$P/bin/aisb-shell")" "root:root 755" "bin/aisb-shell: the entry point, root's, 0755"
is "$(mode "$P/libexec/aisb/aisb-shell-main")" "root:root 755" "libexec/aisb/aisb-shell-main: root's, 0755"
if compgen -G "$src/gate/*.c" >/dev/null; then
	is "$(mode "$P/libexec/aisb/aisb-gate")" "root:root 755" "libexec/aisb/aisb-gate: root's, 0755"
fi
for d in "$P/bin" "$P/libexec" "$P/libexec/aisb"; do
	is "$(mode "$d")" "root:root 755" "${d#"$D"}/: root's, 0755"
done
ok "the installed aisb-shell is the static entry point (no interpreter)" \
	bash -c "! readelf -lW '$P/bin/aisb-shell' | grep -q INTERP"
ok "the installed aisb-shell-main is the dynamic program (an interpreter)" \
	bash -c "readelf -lW '$P/libexec/aisb/aisb-shell-main' | grep -q INTERP"
ok "bin/aisb-shell is the build's entry point" cmp -s "$AISB_SHELL" "$P/bin/aisb-shell"

is "$("$P/bin/aisb-shell" --version 2>&1)" "aisb-shell $ver" \
	"the installed entry point runs the installed aisb-shell-main (--version)"
out=$("$P/libexec/aisb/aisb-shell-main" --version 2>&1)
is "$?" 77 "the installed aisb-shell-main alone refuses to run"
# Witness: what answered --version above was the file beside the entry
# point, not the build tree's.
mv "$P/libexec/aisb/aisb-shell-main" "$tmp/main.away"
out=$("$P/bin/aisb-shell" --version 2>&1)
rc=$?
is "$rc" 77 "without the installed aisb-shell-main the entry point exits 77"
like "$out" "aisb-shell-main" "... and names what is missing"
mv "$tmp/main.away" "$P/libexec/aisb/aisb-shell-main"

# LIBEXECDIR elsewhere: the entry point would not find its program.
rm -rf "$D"
if mk install LIBEXECDIR=/usr/lib; then
	fail "make install LIBEXECDIR=/usr/lib is refused"
else
	like "$(cat "$tmp/make.log")" "LIBEXECDIR=/usr/lib must be BINDIR/../libexec" \
		"make install LIBEXECDIR=/usr/lib is refused, saying why"
fi
ok "... and writes nothing" test ! -e "$D"
# Twin: BINDIR and LIBEXECDIR moved together.
if mk install BINDIR=/opt/aisb/bin LIBEXECDIR=/opt/aisb/libexec; then
	is "$("$D/opt/aisb/bin/aisb-shell" --version 2>&1)" "aisb-shell $ver" \
		"twin: BINDIR=/opt/aisb/bin LIBEXECDIR=/opt/aisb/libexec installs and runs"
else
	fail "twin: BINDIR=/opt/aisb/bin LIBEXECDIR=/opt/aisb/libexec installs and runs" \
		"$(tail -n 20 "$tmp/make.log")"
fi

rm -rf "$D"
mk install && mk uninstall
left=$(cd "$P" && find bin libexec -type f 2>/dev/null)
is "$left" "" "make uninstall removes the entry point, aisb-shell-main and the gate"
ok "... and the directory LIBEXECDIR/aisb install made" test ! -e "$P/libexec/aisb"
# Twin: a file of someone else's in it keeps the directory (and itself).
rm -rf "$D"
mk install && echo mine >"$P/libexec/aisb/local-tool" && mk uninstall
is "$(cd "$P" && find libexec/aisb 2>&1 | sort | tr '\n' ' ')" \
    "libexec/aisb libexec/aisb/local-tool " \
    "make uninstall keeps LIBEXECDIR/aisb with a file it did not install"
done_testing
