#!/bin/bash
# make dist: a reproducible tarball of the committed tree, and the
# version is the same in every place that states it.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"

src=$AISB_SRC
ver=$(sed -n 's/^#define AISB_VERSION[[:space:]]*"\(.*\)"/\1/p' "$src/lib/aisb.h")
like "$ver" '^[0-9]+\.[0-9]+\.[0-9]+$' "AISB_VERSION is a version: $ver"
deb=$(sed -n '1s/^aisb (\([^)]*\)).*/\1/p' "$src/packaging/debian/changelog")
is "${deb%%-*}" "$ver" "debian/changelog has version $ver"
rpmv=$(sed -n 's/^Version:[[:space:]]*//p' "$src/packaging/rpm/aisb.spec")
is "$rpmv" "$ver" "aisb.spec has version $ver"

if ! git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1; then
	skip "make dist twice gives the same bytes" "not a git checkout"
	done_testing; exit
fi
tmp=$(mktemp -d)
at_exit "rm -rf '$tmp'"
# Two builds in different directories, a second apart, with a different
# umask: none of that may show in the bytes.
make -s -C "$src" BUILD="$tmp/a" dist >"$tmp/log" 2>&1
rc1=$?
sleep 1
(umask 077 && make -s -C "$src" BUILD="$tmp/b" dist >>"$tmp/log" 2>&1)
rc2=$?
ok "make dist runs twice" test "$rc1" = 0 -a "$rc2" = 0
t1=$tmp/a/aisb-$ver.tar.gz t2=$tmp/b/aisb-$ver.tar.gz
ok "make dist writes aisb-$ver.tar.gz" test -s "$t1" -a -s "$t2"
s1=$(sha256sum < "$t1" | cut -d' ' -f1)
s2=$(sha256sum < "$t2" | cut -d' ' -f1)
is "$s2" "$s1" "two runs give the same sha256"

names=$(tar -tzvf "$t1" | awk '{print $2}' | sort -u)
is "$names" "root/root" "every member is owned by root/root"
owners=$(tar --numeric-owner -tzvf "$t1" | awk '{print $2}' | sort -u)
is "$owners" "0/0" "numeric owner 0/0"
modes=$(tar -tzvf "$t1" | awk '{print $1}' | sort -u | tr '\n' ' ')
is "$modes" "-rw-r--r-- -rwxr-xr-x drwxr-xr-x " "modes are 0644, 0755 (umask 022, whatever git's tar.umask)"
mtimes=$(tar -tzvf "$t1" | awk '{print $4, $5}' | sort -u | wc -l)
is "$mtimes" 1 "one mtime for every member (the commit's)"
files=$(tar -tzf "$t1")
like "$files" "^aisb-$ver/Makefile$" "the tarball has the Makefile under aisb-$ver/"
like "$files" "^aisb-$ver/packaging/rpm/aisb.spec$" "and the packaging"
unlike "$files" "^aisb-$ver/build/" "and no build output"
committed=$(git -C "$src" ls-files | wc -l)
got=$(printf '%s\n' "$files" | grep -vc '/$')
is "$got" "$committed" "exactly the committed files ($committed)"
done_testing
