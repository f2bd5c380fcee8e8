#!/bin/bash
# tests/vm/image.sh DIR: build the Debian 12 guest image of the VM lane
# into DIR (a directory of the build tree), unless DIR/ok says a build
# of these same scripts is already there.  Needs root and unshare(1).
#
# What it makes, from Debian's own packages (mmdebstrap):
#   DIR/root.img          ext4, the whole guest; booted with snapshot=on,
#                         so one image serves every boot unchanged
#   DIR/vmlinuz-stock     Debian 12's own kernel (6.1) and its initrd
#   DIR/initrd-stock
#   DIR/vmlinuz-bpo       the bookworm-backports kernel (6.12) and its initrd
#   DIR/initrd-bpo
#   DIR/kernels           "stock VERSION" and "bpo VERSION"
#   DIR/key, DIR/key.pub  root's ssh key into the guest
# The guest has systemd as PID 1 (cgroup v2), logind and pam_systemd,
# journald, AppArmor, Debian's sshd, aisb's run-time libraries and the
# tools its tests use; no compiler (the host builds, the guest runs).
# git, make and the build's packages (tests/deps.sh list build), with
# all they pull in, are kept, not installed, in a local repository,
# /opt/aisb-vm-repo: the guest cannot reach a mirror, and
# tests/vm/95-fresh-demo.t points apt there for the README's quick start
# on a machine without them.
#
# Only the package mirror is reached, from the host (mmdebstrap runs on
# the host; nothing of the guest runs while it builds).  The mirror may
# resolve into 203.0.113.0/24 on the CI machines, so the build first
# checks that no test network on this host claims the mirror's address.
set -euo pipefail
dir=${1:?usage: image.sh DIR}
mirror=${AISB_VM_MIRROR:-http://deb.debian.org}

say() { echo "vm-image: $*"; }
die() { echo "vm-image: $*" >&2; exit 1; }

[ -f "$dir/ok" ] && { say "cached: $dir"; exit 0; }
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap, mkfs.ext4 -d with owners)"
for t in mmdebstrap mkfs.ext4 ssh-keygen dpkg-scanpackages; do
	command -v "$t" >/dev/null || die "$t is missing (tests/vm/check installs it)"
done

# The mirror's addresses must leave by the default route: a test network
# left over on this host (a veth routing part of 203.0.113.0/24 into a
# namespace) would swallow the downloads, or worse, answer them.
host=${mirror#*://}; host=${host%%/*}
def=$(ip -4 route show default | awk '{for (i = 1; i < NF; i++) if ($i == "dev") print $(i + 1); exit}')
for a in $(getent ahostsv4 "$host" | awk '{print $1}' | sort -u); do
	dev=$(ip -4 route get "$a" | awk '{for (i = 1; i < NF; i++) if ($i == "dev") print $(i + 1); exit}')
	[ "$dev" = "$def" ] ||
		die "the mirror $host ($a) routes via $dev, not the default route's $def: a test network claims its address; remove it (ip route show match $a) and rerun"
done

# The guest's tree (device nodes included) never touches the disk: it is
# built on a tmpfs mounted in a mount namespace of this script's own, so
# no other process sees it, and it vanishes with the namespace however
# the build ends.  What stays is the image file and the boot files.
if [ -z "${AISB_VM_PRIVATE:-}" ]; then
	exec unshare --mount --propagation private \
	    env AISB_VM_PRIVATE=1 "$0" "$@"
fi
rm -rf "$dir"
mkdir -p "$dir"
root="$dir/root"
mkdir "$root"
mount -t tmpfs -o size=3G,mode=0755 aisb-vm-root "$root"
trap 'umount -l "$root" 2>/dev/null; rmdir "$root" 2>/dev/null' EXIT
say "building in $dir (mirror $mirror; the tree on a private tmpfs)"

# Packages of the guest.  The kernel: Debian 12's stock metapackage here;
# the backports kernel is added by the customize hook below.
pkgs=(
	# boot and the real host: systemd as PID 1, logind, journald, AppArmor
	systemd-sysv libpam-systemd dbus udev kmod initramfs-tools
	linux-image-amd64 apparmor
	# the way in
	openssh-server openssh-client openssh-sftp-server
	# aisb's run-time libraries (the package's Depends, installed ahead:
	# the guest has no network when the .deb is installed)
	libcap-ng0 libconfuse2 libmnl0 libnftnl11 libseccomp2 libpam-modules
	# what the guest tests use (tests/vm, tests/limits, two of tests/pam)
	perl bc procps psmisc iproute2 util-linux passwd login python3 curl
	tmux pamtester
	# tests/vm/96-credentials.t: the test internet (dnsmasq without its
	# service; openssl makes the test CA and the origins' certificates)
	# and a client runtime (Node's fetch); git comes from the local
	# repository below, since the fresh-machine test needs a guest
	# without it
	dnsmasq-base openssl ca-certificates nodejs
)
# What the README's quick start installs on a fresh machine: git and
# make, then (make demo) tests/deps.sh's build list.
mapfile -t build_pkgs < <(echo git; echo make; "$(dirname "$0")/../deps.sh" list build)
[ "${#build_pkgs[@]}" -gt 0 ] || die "tests/deps.sh list build printed nothing"


ssh-keygen -q -t ed25519 -N '' -C aisb-vm -f "$dir/key"

# Set before any package: initramfs-tools reads it when the kernels'
# postinsts build their initrds.  A small initrd with the virtio disk and
# ext4 boots much faster under emulation than MODULES=most.
setup_hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/etc/initramfs-tools/hooks"
printf "MODULES=list\nRESUME=none\nCOMPRESS=gzip\n" > "$1/etc/initramfs-tools/conf.d/aisb-vm"
cat > "$1/etc/initramfs-tools/hooks/aisb-vm" <<EOF
#!/bin/sh
[ "\$1" = prereqs ] && exit 0
. /usr/share/initramfs-tools/hook-functions
manual_add_modules virtio_pci virtio_blk virtio_net ext4 crc32c_generic
EOF
chmod 0755 "$1/etc/initramfs-tools/hooks/aisb-vm"'

# After the packages: the backports kernel, then the guest's own setup.
customize_hook='set -e
chroot "$1" apt-get install -y -q -o APT::Install-Recommends=false \
    -t bookworm-backports linux-image-amd64 >/dev/null
echo aisbvm > "$1/etc/hostname"
printf "127.0.0.1 localhost\n127.0.1.1 aisbvm\n::1 localhost\n" > "$1/etc/hosts"
printf "/dev/vda / ext4 rw,errors=remount-ro 0 0\n" > "$1/etc/fstab"
mkdir -p "$1/etc/systemd/network"
printf "[Match]\nName=eth0\n\n[Network]\nDHCP=ipv4\n" > "$1/etc/systemd/network/50-eth0.network"
chroot "$1" systemctl enable systemd-networkd.service >/dev/null 2>&1
# Boot only what the tests need.
for u in systemd-networkd-wait-online.service apt-daily.timer \
    apt-daily-upgrade.timer man-db.timer e2scrub_all.timer fstrim.timer \
    dpkg-db-backup.timer systemd-tmpfiles-clean.timer getty@tty1.service; do
	ln -sf /dev/null "$1/etc/systemd/system/$u"
done
install -d -m 0700 "$1/root/.ssh"
install -m 0600 "'"$dir"'/key.pub" "$1/root/.ssh/authorized_keys"
printf "UseDNS no\n" > "$1/etc/ssh/sshd_config.d/00-aisb-vm.conf"
# The marker the guest tests look for.
echo "aisb test guest (tests/vm)" > "$1/etc/aisb-vm-guest"'

# Downloaded only, with what they need that the image lacks; a flat
# repository that apt trusts (it is built here, from the mirror).
repo_hook='set -e
repo="$1/opt/aisb-vm-repo"
mkdir -p "$repo/partial"
chroot "$1" apt-get install -y -q --download-only \
    -o APT::Install-Recommends=false -o Dir::Cache::Archives=/opt/aisb-vm-repo \
    '"${build_pkgs[*]}"' >/dev/null
rm -rf "$repo/partial" "$repo/lock"
ls "$repo"/*.deb >/dev/null
(cd "$repo" && dpkg-scanpackages -m . /dev/null >Packages 2>/dev/null)'

mmdebstrap --variant=minbase --mode=root \
	--aptopt='Acquire::Retries "5"' \
	--aptopt='APT::Install-Recommends "false"' \
	--include="$(IFS=,; echo "${pkgs[*]}")" \
	--setup-hook="$setup_hook" \
	--customize-hook="$customize_hook" \
	--customize-hook="$repo_hook" \
	bookworm "$root" \
	"deb $mirror/debian bookworm main" \
	"deb $mirror/debian bookworm-updates main" \
	"deb $mirror/debian-security bookworm-security main" \
	"deb $mirror/debian bookworm-backports main"

# The kernels: Debian 12's own (6.1) and the backports one, the newer
# (its version no longer says bpo: 6.12.N+deb12).
mapfile -t vers < <(for v in "$root"/boot/vmlinuz-*; do echo "${v##*/vmlinuz-}"; done | sort -V)
[ "${#vers[@]}" = 2 ] || die "want two kernels in the image, found: ${vers[*]}"
case "${vers[0]}" in 6.1.*) ;; *) die "the older kernel is ${vers[0]}, not Debian 12's 6.1" ;; esac
: >"$dir/kernels"
for k in stock bpo; do
	[ "$k" = stock ] && ver=${vers[0]} || ver=${vers[1]}
	[ -f "$root/boot/initrd.img-$ver" ] || die "no initrd for $ver"
	cp "$root/boot/vmlinuz-$ver" "$dir/vmlinuz-$k"
	cp "$root/boot/initrd.img-$ver" "$dir/initrd-$k"
	echo "$k $ver" >>"$dir/kernels"
done

# ext4 with the tree's owners and modes; room for the tests' files.
mkfs.ext4 -q -F -L aisbvm -d "$root" "$dir/root.img" 3G
umount "$root"
rmdir "$root"
trap - EXIT
touch "$dir/ok"
say "done: $(tr '\n' ' ' <"$dir/kernels")"
