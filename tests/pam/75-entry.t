#!/bin/bash
# aisb-shell's entry point (entry/): nothing in the environment it is
# started with configures the outer.  The loader and the C library act
# on LD_PRELOAD, LD_AUDIT, LD_LIBRARY_PATH, GCONV_PATH and GLIBC_TUNABLES
# (and its MALLOC_* aliases) in a dynamic program; the entry point is a
# static program without a loader that holds every caller string under a
# prefix before aisb-shell-main starts.  Each attack is shown to work on
# the same dynamic program started directly (the control), and to do
# nothing through the entry point; the values still reach the inner
# shell unchanged where env.pass names them, and the marker does run
# there, inside the sandbox.  The forms here set the environment the way
# a unit's Environment= or a harness does (no PAM); tests/pam/65-pam-env.t
# does it through sshd and su with pam_env.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/lib.sh"
require_root
H=$AISB_HELPERS
MAIN=$BUILD/libexec/aisb/aisb-shell-main
for f in "$H/libaisbt-marker.so" "$H/ldpath/libconfuse.so.2" "$H/envprobe" "$MAIN"; do
	[ -e "$f" ] || skip_all "$f is not built"
done

T=$(pam_tmpdir)
at_exit "rm -rf $T"
hostmnt=$(readlink /proc/self/ns/mnt)

# The attack material, in a directory the agent owns (as an agent that
# can write somewhere would make it).  witness.log gets one line per
# load, with the mount namespace it happened in.
L=$T/lib
install -d -m 0755 "$L" "$L/ldpath" "$L/gconv"
cp "$H/libaisbt-marker.so" "$H/envprobe" "$L/"
cp "$H/ldpath/libconfuse.so.2" "$L/ldpath/"
printf 'module AISBT-MARKER// INTERNAL %s/libaisbt-marker 1\nmodule INTERNAL AISBT-MARKER// %s/libaisbt-marker 1\n' \
	"$L" "$L" > "$L/gconv/gconv-modules"
wit_reset() { : > "$L/witness.log"; : > "$L/ldpath/witness.log"; chmod 0666 "$L/witness.log" "$L/ldpath/witness.log"; }
wit() { cat "$L/witness.log" "$L/ldpath/witness.log"; }
wit_host() { wit | grep -F "mnt=$hostmnt exe="; }
wit_inside() { wit | grep -vF "mnt=$hostmnt exe="; }
ATTACK=(LD_PRELOAD="$L/libaisbt-marker.so" LD_AUDIT="$L/libaisbt-marker.so"
	LD_LIBRARY_PATH="$L/ldpath" GCONV_PATH="$L/gconv"
	GLIBC_TUNABLES=glibc.malloc.perturb=85 MALLOC_PERTURB_=85 LD_SHOW_AUXV=1)

# --- the entry point's file ------------------------------------------------
ok "the entry point has no program interpreter (no dynamic loader runs)" \
	bash -c "! readelf -lW '$AISB_SHELL' | grep -q INTERP"
ok "... and needs no library" bash -c "! readelf -dW '$AISB_SHELL' | grep -q NEEDED"
if file "$AISB_SHELL" | grep -q 'static-pie linked'; then
	like "$(readelf -rW "$AISB_SHELL")" "no relocations" \
		"... a static PIE without relocations: its own start, nothing runs before it"
else
	diag "the entry point is linked against the C library here (ENTRY_HOSTED): $(file -b "$AISB_SHELL")"
fi

# --- the entry point in front of a probe --------------------------------------
# DIR/bin/aisb-shell (a copy of the entry point) runs DIR/libexec/aisb/
# aisb-shell-main: here the probe, a dynamic program that lets the C
# library do what it does with its environment.
E=$T/e
install -d -m 0755 "$E/bin" "$E/libexec/aisb"
cp "$AISB_SHELL" "$E/bin/aisb-shell"
cp "$H/envprobe" "$E/libexec/aisb/aisb-shell-main"

wit_reset
out=$(env -i "${ATTACK[@]}" "$E/libexec/aisb/aisb-shell-main" 2>&1)
w=$(wit_host)
like "$w" "^ctor .*exe=$E/libexec/aisb/aisb-shell-main" "control: LD_PRELOAD runs the marker in a dynamic program"
like "$w" "^audit " "control: so does LD_AUDIT"
like "$w" "^ldpath " "control: so does LD_LIBRARY_PATH (a library of the same name)"
like "$w" "^gconv " "control: so does GCONV_PATH (iconv_open)"
like "$out" "perturb=aa" "control: GLIBC_TUNABLES and MALLOC_PERTURB_ change malloc"
like "$out" "AT_PAGESZ" "control: LD_SHOW_AUXV makes the loader print"

wit_reset
out=$(env -i "${ATTACK[@]}" X=1 'Y=a b=c' EMPTY= AISB_ENTRY=/evil AISB_CALLER_Z=2 \
	"$E/bin/aisb-shell" one 'two words' 2>&1)
rc=$?
is "$rc" 0 "through the entry point: the probe ran"
is "$(wit)" "" "through the entry point: the marker ran nowhere"
unlike "$out" "perturb=aa" "... malloc untouched"
unlike "$out" "AT_PAGESZ" "... the loader printed nothing"
like "$out" "iconv=refused" "... iconv found no module"
want="env[0]=AISB_ENTRY=$E/bin/aisb-shell"
i=1
for v in "${ATTACK[@]}" X=1 'Y=a b=c' EMPTY= AISB_ENTRY=/evil AISB_CALLER_Z=2; do
	want="$want"$'\n'"env[$i]=AISB_CALLER_$v"
	i=$((i + 1))
done
is "$(grep '^env\[' <<<"$out")" "$want" \
	"the program got the marker, then every caller string held, in order (a forged marker or prefix too)"
is "$(grep '^argv\[' <<<"$out")" "argv[0]=$E/bin/aisb-shell
argv[1]=one
argv[2]=two words" "argv reaches it unchanged"

# --- what it runs is fixed by where it is --------------------------------
out=$(bash -c 'exec -a -aisb-shell "$0"' "$E/bin/aisb-shell" | grep '^argv\[0\]')
is "$out" "argv[0]=-aisb-shell" "a login argv[0] stays a login"
out=$(bash -c 'exec -a /nowhere/evil/aisb-shell "$0"' "$E/bin/aisb-shell" | grep -c '^argv\[0\]=/nowhere/evil/aisb-shell')
is "$out" 1 "argv[0] does not choose what runs (still the probe beside it)"
install -d -m 0755 "$T/s"
ln -s "$E/bin/aisb-shell" "$T/s/aisb-shell"
like "$("$T/s/aisb-shell" | head -1)" "^argv\[0\]=$T/s/aisb-shell" "through a symlink elsewhere: the probe beside the real file runs"
install -d -m 0755 "$T/lone/bin"
cp "$AISB_SHELL" "$T/lone/bin/aisb-shell"
out=$(env -i PATH="$E/libexec/aisb" "$T/lone/bin/aisb-shell" 2>&1)
is "$?:$out" "77:aisb-shell: cannot run $T/lone/libexec/aisb/aisb-shell-main: No such file or directory (is aisb installed completely?)" \
	"a copy with nothing beside it: 77, one line, PATH not consulted"

# A setuid or setgid entry point is refused (it would start the outer with
# privileges it did not have); on a nosuid mount the bit means nothing.
V=$(mktemp -d /var/tmp/aisbt-entry.XXXXXX)
at_exit "rm -rf $V"
chmod 0755 "$V"
install -d -m 0755 "$V/bin" "$V/libexec/aisb"
cp "$AISB_SHELL" "$V/bin/aisb-shell"
cp "$H/envprobe" "$V/libexec/aisb/aisb-shell-main"
nob() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
is "$(nob "$V/bin/aisb-shell" 2>&1 | grep -c '^argv')" 1 "twin: run by nobody without a set-id bit, it runs"
if findmnt -no OPTIONS -T "$V" | grep -qw nosuid; then
	skip "a setuid entry point is refused" "$V is on a nosuid mount"
else
	chmod 4755 "$V/bin/aisb-shell"
	out=$(nob "$V/bin/aisb-shell" 2>&1)
	is "$?:$out" "77:aisb-shell: runs setuid or setgid: refusing (aisb-shell needs no privilege: chmod u-s,g-s it)" \
		"a setuid entry point is refused: 77, nothing ran"
	chmod 2755 "$V/bin/aisb-shell"
	out=$(nob "$V/bin/aisb-shell" 2>&1)
	like "$?:$out" "^77:aisb-shell: runs setuid or setgid" "... and a setgid one"
fi

# --- aisb-shell-main itself ------------------------------------------------
# An ASan build's aisb-shell-main cannot be started with LD_PRELOAD at
# all: the sanitizer's runtime must come first and aborts before main.
if san_build; then
	for d in "control: aisb-shell-main started directly loads LD_PRELOAD" \
		"control: ... and the LD_LIBRARY_PATH stand-in"; do
		skip "$d" "aisb-shell-main is an ASan program: its runtime refuses an LD_PRELOAD"
	done
	out=$(env -i "$MAIN" --version 2>&1)
	is "$?" 77 "aisb-shell-main started directly refuses to run at all (not started by the entry point)"
	like "$out" "not started by its entry point" "... saying so"
else
	wit_reset
	out=$(env -i "${ATTACK[@]}" "$MAIN" --version 2>&1)
	rc=$?
	w=$(wit_host)
	like "$w" "^ctor .*exe=$MAIN" "control: aisb-shell-main started directly loads LD_PRELOAD (what a dynamic login shell did)"
	like "$w" "^ldpath .*exe=$MAIN" "control: ... and the LD_LIBRARY_PATH stand-in for libconfuse"
	is "$rc" 77 "... and then refuses to run at all (not started by the entry point)"
	like "$out" "not started by its entry point" "... saying so"
fi
wit_reset
out=$(env -i "${ATTACK[@]}" "$AISB_SHELL" --version 2>&1)
is "$?:$(grep -v '^AT_' <<<"$out")" "0:aisb-shell $(sed -n 's/^#define AISB_VERSION[[:space:]]*"\(.*\)"/\1/p' "$AISB_SRC/lib/aisb.h")" \
	"through the entry point: --version works"
is "$(wit)" "" "... and the marker ran nowhere"

# --- a real session: the caller's variables arrive inside, unchanged ----------
have_userns || { done_testing; exit; }
cat > "$T/aisb.conf" <<CONF
agents = {"${U1}"}
home { path = "$T/home/%u" }
project { path = "$T/proj/%u" }
network { mode = "none" }
limits { memory = "0"  pids = 0  cpu = "0%" }
env { pass = {"TERM", "LANG", "AISBT_CANARY", "LD_PRELOAD", "LD_AUDIT",
              "LD_LIBRARY_PATH", "GCONV_PATH"} }
filesystem { readwrite = {"$L"} }
CONF
mkdir -p "$T/users.d"
tu_user ${U1}
install -d -m 0755 "$T/home" "$T/proj"
install -d -o ${U1} -m 0700 "$T/home/${U1}" "$T/proj/${U1}"
chown -R ${U1} "$L"
sess() { as ${U1} env "$@" "$AISB_SHELL" --config "$T/aisb.conf" -c "$SESS_CMD" 2>&1; }

SESS_CMD='cat /proc/1/comm; printenv TERM LANG AISBT_CANARY'
out=$(sess TERM=xterm-aisbt LANG=C.UTF-8 'AISBT_CANARY=a b  c=d')
like "$out" "^aisb" "twin: a session runs"
is "$(sed -n 2,4p <<<"$out")" "xterm-aisbt
C.UTF-8
a b  c=d" "twin: TERM, LANG and a passed variable reach the inner shell unchanged"

wit_reset
SESS_CMD="cat /proc/1/comm; printenv LD_PRELOAD LD_AUDIT LD_LIBRARY_PATH GCONV_PATH; $L/envprobe | grep -E '^(iconv|perturb)='"
out=$(sess "${ATTACK[@]}" AISBT_CANARY=x)
like "$out" "^aisb" "the session with every attack variable ran, inside the sandbox"
is "$(sed -n 2,5p <<<"$out")" "$L/libaisbt-marker.so
$L/libaisbt-marker.so
$L/ldpath
$L/gconv" "... and env.pass still gave the inner shell each value unchanged"
is "$(wit_host)" "" "the marker never ran outside the sandbox (no line from the host's mount namespace)"
w=$(wit_inside)
like "$w" "^ctor .*exe=/usr/bin/(bash|cat)" "inside, bash and cat load the same LD_PRELOAD marker (it works: the test can fail)"
like "$w" "^audit " "inside, LD_AUDIT loads it"
like "$w" "^ldpath .*exe=$L/envprobe" "inside, LD_LIBRARY_PATH finds the stand-in"
like "$w" "^gconv .*exe=$L/envprobe" "inside, GCONV_PATH loads the module"

# What the loader of aisb-shell-main saw: its environment block, read
# while the session runs.
SESS_CMD='sleep 5'
sess "${ATTACK[@]}" >/dev/null &
bg=$!
outer=
for _ in $(seq 100); do
	for p in $(pgrep -u ${U1} -x aisb-shell-main); do
		[ "$(readlink "/proc/$p/ns/mnt")" = "$hostmnt" ] && outer=$p
	done
	[ -n "$outer" ] && break
	sleep 0.05
done
ok "the outer aisb-shell-main of a running session found" test -n "$outer"
envblk=$(tr '\0' '\n' < "/proc/$outer/environ" 2>/dev/null)
like "$envblk" "^AISB_CALLER_LD_PRELOAD=$L/libaisbt-marker\.so$" "the outer's start-up environment holds LD_PRELOAD as AISB_CALLER_LD_PRELOAD"
unlike "$envblk" "^(LD_[A-Z_]*|GCONV_PATH|GLIBC_TUNABLES|MALLOC_[A-Z_]*)=" \
	"... and has no name the loader or the C library reads"
wait "$bg"

done_testing
