#!/bin/bash
# The README's quick start on a fresh machine: in this guest, which has
# none of the build's packages (no make, no compiler, no -dev
# libraries), `apt-get install git make` and then `make demo` from a
# clean clone work on the first try, then `make check-unit`.  apt reaches no mirror from the guest, so it is pointed at
# the image's local repository of exactly those packages
# (/opt/aisb-vm-repo, tests/vm/image.sh); `make demo` installs them
# itself through tests/deps.sh.  Runs last, after the package is purged,
# and on one kernel only (the stock one): it is a test of the build, and
# a compile under emulation takes minutes.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/vm/lib.sh
. "$(dirname "$0")/lib.sh"

[ "${VM_KERNEL:-}" = bpo ] && skip_all "the fresh-machine build runs on the stock kernel's boot only"
[ -s "$VM_REPO/Packages" ] || skip_all "the image has no local repository at $VM_REPO (rebuild it: make vm-image)"
mapfile -t pkgs < <("$AISB_SRC/tests/deps.sh" list build)

# --- before: a machine without the build's packages -----------------------
have=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' && have+=("$p")
done
is "${have[*]}" "" "before: none of the build's packages is installed (${pkgs[*]})"
ok "before: no git, no make and no C compiler" \
	eval '! command -v git && ! command -v make && ! command -v cc && ! command -v gcc'

# --- apt: only the local repository ---------------------------------------
W=/var/tmp/aisb-fresh
cleanup() {
	vm_local_apt_off
	rm -rf /var/tmp/aisb-fresh /var/tmp/aisb-fresh.apt.log
}
at_exit cleanup
vm_local_apt_on

# --- the README's first line -------------------------------------------------
t0=$(date +%s)
apt-get install -y -qq --no-install-recommends git make >"$W.apt.log" 2>&1
is "$?" 0 "apt-get install git make (the README's first line)"
ok "... make is there now" command -v make
ok "... and still no C compiler" eval '! command -v cc && ! command -v gcc'

# --- a clean clone ---------------------------------------------------------
# The tree as it came into the guest, without what the host built; then
# cloned, so that nothing but git's files is there.
rm -rf "$W"
mkdir -p "$W/origin"
(cd "$AISB_SRC" && tar --exclude=./build --exclude=./aisb.deb -cf - .) | tar -C "$W/origin" -xf -
git -C "$W/origin" init -q
git -C "$W/origin" add -A
git -C "$W/origin" -c user.name=vm -c user.email=vm@aisbvm commit -q -m tree
git clone -q "$W/origin" "$W/aisb"
ok "the clone has no build tree" test ! -e "$W/aisb/build"

# --- make demo, the first time --------------------------------------------
# As an administrator's root shell would: none of the test runner's
# variables (BUILD would point make at the lane's own built tree).
fresh() { env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
	HOME=/root TERM=dumb LANG=C.UTF-8 "$@"; }
t0=$(date +%s)
d0=$(wc -l </var/log/dpkg.log)
(cd "$W/aisb" && fresh timeout 1200 make -j2 demo) >"$W/demo.log" 2>&1
rc=$?
# How much of it was dpkg (its log's first and last new lines).
dpkg_s=$(tail -n +"$((d0 + 1))" /var/log/dpkg.log | awk 'NR == 1 {a = $2} {b = $2}
	END { if (a != "") { split(a, x, ":"); split(b, y, ":")
		print (y[1] * 3600 + y[2] * 60 + y[3]) - (x[1] * 3600 + x[2] * 60 + x[3]) } }')
diag "make demo: $(($(date +%s) - t0)) s under emulation, ${dpkg_s:-?} s of it installing the build's packages"
is "$rc" 0 "make demo works on the first run"
[ "$rc" = 0 ] || tail -n 30 "$W/demo.log" | sed 's/^/# /'
like "$(cat "$W/demo.log")" "aisb: installing " "... it installed the build's packages itself (tests/deps.sh)"
like "$(cat "$W/demo.log")" "== cat /etc/shadow \(must be denied\)" "... and ran the demo's sandboxed session"
like "$(tail -n 1 "$W/demo.log")" "^status: 42$" "... to its end (the exit status comes back)"
unlike "$(cat "$W/demo.log")" "DEMO FAILED" "... with nothing of the host reachable"
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
is "${missing[*]}" "" "after: every build package is installed"
ok "... and the programs were built in the clone" test -x "$W/aisb/build/bin/aisb-shell"

# --- then one part of the test suite ---------------------------------------
t0=$(date +%s)
(cd "$W/aisb" && fresh timeout 1200 make -j2 check-unit) >"$W/unit.log" 2>&1
rc=$?
diag "make check-unit: $(($(date +%s) - t0)) s under emulation"
is "$rc" 0 "make check-unit then passes"
[ "$rc" = 0 ] || tail -n 30 "$W/unit.log" | sed 's/^/# /'
like "$(tail -n 1 "$W/unit.log")" "^[1-9][0-9]* passed, 0 failed, " "... with tests that ran"
userdel -r aisbdemo >/dev/null 2>&1 || true
rm -rf /srv/aisb-demo
done_testing
