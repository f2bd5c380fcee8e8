#!/bin/bash
# The build's libraries: with one missing, make stops with one line that
# names it and the package to install; `make demo` reads them only in the
# make it starts after deps-build (which installs them), so its first run
# on a fresh machine links with them.  PKG_CONFIG is a wrapper that fails
# for libseccomp and logs every call.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

command -v pkg-config >/dev/null || skip_all "pkg-config is missing"
pkg-config --exists libseccomp || skip_all "libseccomp is missing here"
src=$AISB_SRC
tmp=$(mktemp -d)
at_exit "rm -rf '$tmp'"
wrap=$tmp/pkg-config
cat >"$wrap" <<EOS
#!/bin/sh
echo "\$*" >>'$tmp/calls'
for a; do [ "\$a" = libseccomp ] && exit 1; done
exec pkg-config "\$@"
EOS
chmod +x "$wrap"

# mk LOG ARGS...: make -n in the source tree, output in LOG.  Not the
# flags of a make this test runs under (`make -j2 asan`): its jobserver
# and its variables would add lines and change the build.
mk() {
	local log=$1
	shift
	(cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		make --no-print-directory -n BUILD="$tmp/b" "$@") >"$log" 2>&1
}

mk "$tmp/miss" PKG_CONFIG="$wrap" all
rc=$?
ok "make all stops when libseccomp is missing" test "$rc" -ne 0
ok "the wrapper ran (witness)" grep -q 'libseccomp' "$tmp/calls"
is "$(wc -l <"$tmp/miss")" 1 "one line of output"
like "$(cat "$tmp/miss")" 'library libseccomp is missing.*install libseccomp-dev' \
	"it names the library and the package"
unlike "$(cat "$tmp/miss")" '^cc ' "nothing is compiled"

# The same for a goal that is not all (a single program).
mk "$tmp/miss2" PKG_CONFIG="$wrap" "$tmp/b/gen/seccomp_deny_gen"
ok "a single program stops too" test $? -ne 0
like "$(cat "$tmp/miss2")" 'install libseccomp-dev' "with the same line"

# clean and dist need no library.
mk "$tmp/clean" PKG_CONFIG="$wrap" clean
ok "make clean needs no library" test $? -eq 0

# demo: the parse of demo's own make reads no library; the build is a
# make of its own after deps-build (here -n prints deps-build's command
# and runs the sub-make, which reads the libraries then).
: >"$tmp/calls"
mk "$tmp/demo" PKG_CONFIG="$wrap" demo
ok "make -n demo fails only in the build it starts" test $? -ne 0
dl=$(grep -n 'deps.sh build' "$tmp/demo" | cut -d: -f1 | head -n1)
el=$(grep -n 'library libseccomp is missing' "$tmp/demo" | cut -d: -f1 | head -n1)
ok "deps-build comes first, the library check after it ($dl < $el)" \
	test -n "$dl" -a -n "$el" -a "${dl:-0}" -lt "${el:-0}"

# The twin: the real pkg-config builds, with the -l flags.
mk "$tmp/real" demo
ok "make -n demo with the real pkg-config" test $? -eq 0
like "$(grep 'seccomp_deny_gen ' "$tmp/real" | head -n1)" '-lseccomp' \
	"the seccomp generator links with -lseccomp"
(cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES make --no-print-directory BUILD="$tmp/b" "$tmp/b/gen/seccomp_deny_gen") \
	>"$tmp/build" 2>&1
ok "the real one builds the seccomp generator" test -x "$tmp/b/gen/seccomp_deny_gen"
done_testing
