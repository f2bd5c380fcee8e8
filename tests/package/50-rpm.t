#!/bin/bash
# The RPM: rpmbuild -bb from the `make dist` tarball (Debian's rpm package
# provides rpmbuild; BuildRequires are not checked there: --nodeps).
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
skip_in_san

command -v rpmbuild >/dev/null || skip_all "rpmbuild is missing (tests/deps.d/docs.txt)"
src=$AISB_SRC
git -C "$src" rev-parse --verify -q HEAD >/dev/null 2>&1 ||
	skip_all "not a git checkout: make dist needs one"
# The spec lists every part of the product; until each is on main the
# build cannot succeed, and says so here.
missing=
[ -f "$src/etc/aisb/aisb.conf" ] || missing="$missing etc/aisb/aisb.conf"
compgen -G "$src/gate/*.c" >/dev/null || missing="$missing gate/"
compgen -G "$src/pam/*.c" >/dev/null || missing="$missing pam/*.c"
compgen -G "$src/etc/systemd/*.service" >/dev/null || missing="$missing etc/systemd/*.service"
[ -z "$missing" ] || skip_all "not on main yet:$missing"

ver=$(sed -n 's/^#define AISB_VERSION[[:space:]]*"\(.*\)"/\1/p' "$src/lib/aisb.h")
tmp=$(mktemp -d)
at_exit "rm -rf '$tmp'"
if make -s -C "$src" BUILD="$tmp" rpm >"$tmp/build.log" 2>&1; then
	pass "rpmbuild -bb builds the RPM"
else
	fail "rpmbuild -bb builds the RPM" "$(tail -n 25 "$tmp/build.log")"
	done_testing; exit
fi
rpm=$(find "$tmp/pkg/rpm/RPMS" -name "aisb-$ver-1*.rpm" ! -name '*debug*' | head -n1)
ok "aisb-$ver-1.*.rpm exists" test -s "$rpm"
list=$(rpm -qpl "$rpm" 2>/dev/null)
for f in /usr/bin/aisb-shell /usr/libexec/aisb/aisb-shell-main /usr/libexec/aisb/aisb-gate /etc/aisb/aisb.conf \
    /etc/aisb/users.d /var/lib/aisb/home /usr/share/aisb/sshd_config.d/aisb.conf \
    /usr/lib/systemd/system/aisb-harness@.service; do
	ok "the RPM ships $f" grep -qxF "$f" <<<"$list"
done
# Man pages: compressed by the build host's brp-compress (Fedora), or not.
for f in /usr/share/man/man8/aisb-shell.8 /usr/share/man/man5/aisb.conf.5 \
    /usr/share/man/man8/pam_aisb.8; do
	ok "the RPM ships $f" grep -qE "^${f//./\\.}(\\.(gz|bz2|xz|zst))?\$" <<<"$list"
done
like "$list" '/security/pam_aisb\.so' "the RPM ships pam_aisb.so"
# Mode and owner as the RPM holds them: pam_aisb accepts the login shell
# only when it and its aisb-shell-main are root's alone.
perms=$(rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILENAMES}\n]' "$rpm" 2>/dev/null)
for f in /usr/bin/aisb-shell /usr/libexec/aisb/aisb-shell-main; do
	is "$(awk -v f="$f" '$3 == f {print $1, $2}' <<<"$perms")" "-rwxr-xr-x root:root" "in the RPM, $f is root's, 0755"
done
is "$(awk '$3 == "/usr/libexec/aisb" {print $1, $2}' <<<"$perms")" "drwxr-xr-x root:root" "in the RPM, /usr/libexec/aisb/ is root's, 0755"
cfg=$(rpm -qpc "$rpm" 2>/dev/null)
like "$cfg" '^/etc/aisb/aisb\.conf$' "/etc/aisb/aisb.conf is %config"
unlike "$list" '^/etc/ssh/' "the sshd drop-in is not enabled (nothing in /etc/ssh)"
done_testing
