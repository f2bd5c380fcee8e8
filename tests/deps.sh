#!/bin/bash
# tests/deps.sh build|test: install the Debian packages aisb needs when
# any is missing (root only; otherwise say what to install).
# tests/deps.sh list build|test: print those packages, one a line, and
# install nothing (the VM lane's image keeps the build list in a local
# repository for its fresh-machine run).
set -eu
build_pkgs=(build-essential pkg-config libpam0g-dev libcap-ng-dev
	libnftnl-dev libmnl-dev libconfuse-dev libseccomp-dev libssl-dev)
test_pkgs=(pamtester openssh-server openssh-client dnsmasq nftables mandoc
	shellcheck tmux curl wget iproute2 util-linux passwd login procps psmisc
	python3 socat openssl clang libclang-rt-14-dev perl cron at git rsync
	clang-format clang-tidy cppcheck nodejs)
here=$(cd "$(dirname "$0")" && pwd)
# Each part of the test suite lists extra packages in tests/deps.d/*.txt.
extra=()
for f in "$here"/deps.d/*.txt; do
	[ -f "$f" ] || continue
	while read -r p _; do
		case "$p" in ''|'#'*) ;; *) extra+=("$p") ;; esac
	done < "$f"
done
list=false
if [ "${1:-}" = list ]; then
	list=true
	shift
fi
case "${1:-build}" in
build) want=("${build_pkgs[@]}") ;;
test) want=("${build_pkgs[@]}" "${test_pkgs[@]}" "${extra[@]}") ;;
*) echo "usage: $0 [list] build|test" >&2; exit 2 ;;
esac
if $list; then
	printf '%s\n' "${want[@]}"
	exit 0
fi
# A name an installed package provides counts too (nodesource's nodejs
# provides npm and conflicts with Debian's npm package).
provided=" $(dpkg-query -W -f='${db:Status-Abbrev}${Provides}\n' 2>/dev/null |
	sed -n 's/^ii *//p' | sed 's/([^)]*)//g' | tr ',\n' '  ') "
missing=()
for p in "${want[@]}"; do
	case "$provided" in *" $p "*) continue ;; esac
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "aisb: missing packages: ${missing[*]} (run as root: apt-get install ${missing[*]})" >&2
	exit 1
fi
echo "aisb: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# Services that packages start on install are not wanted here.
printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
trap 'rm -f /usr/sbin/policy-rc.d' EXIT
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
