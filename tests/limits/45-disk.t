#!/bin/bash
# The disk: limits.fsize bounds one file, not the total, so a home or a
# project on a host filesystem can be filled file after file.  What
# bounds the total is a filesystem of their own or a quota: a home on a
# small loop-mounted ext4 image stops the filler at that size, and
# --doctor says which bound applies or warns that there is none
# (docs/admin-guide.md, "Bound the disk").  The doctor reads quotas with
# quotactl_fd; a kernel without CONFIG_QUOTA (this test host's) cannot
# have them, so no quota is set up here.
# shellcheck source=tests/lib/tap.sh
. "$(dirname "$0")/../lib/tap.sh"
# shellcheck source=tests/limits/lib.sh
. "$(dirname "$0")/lib.sh"

lim_user tlim45 || skip_all "cannot create test user"
lim_need_sessions tlim45
command -v mkfs.ext4 >/dev/null || skip_all "mkfs.ext4 not installed"
img=$LIM_DIR/home.img
mnt=$LIM_DIR/homefs
mkdir -m 0755 "$mnt"
truncate -s 24M "$img"
mkfs.ext4 -q -F -m 0 "$img" || skip_all "mkfs.ext4 failed"
mount -o loop,nosuid,nodev "$img" "$mnt" || skip_all "cannot loop-mount an ext4 image here"
at_exit "umount '$mnt' || umount -l '$mnt'"
chmod 0755 "$mnt"
install -d -o tlim45 -g tlim45 -m 0700 "$mnt/h"
conf=$LIM_DIR/disk.conf
cat > "$conf" <<C
shell = "/bin/bash"
agents = {"tlim45"}
project { path = "%h/project"  roots = {"%h/project"} }
home { path = "$mnt/h" }
network { mode = "none" }
limits { fsize = "4M"  enforce = "best-effort" }
C
chmod 0644 "$conf"

# The attack, on the project (a host filesystem): three files under
# fsize make more than fsize in all.
lim_run tlim45 "$conf" 'for f in a b c; do /project/lim_tool fill /project/$f 3; done; \
    du -k -c /project/a /project/b /project/c | tail -1; rm -f /project/a /project/b /project/c'
is "$(printf '%s\n' "$LIM_OUT" | grep -c 'wrote 3145728 errno 0')" 3 \
    "fsize = 4M: three 3M files in the project, each under the bound"
total=$(printf '%s\n' "$LIM_OUT" | sed -n 's/^\([0-9]*\)[[:space:]]*total$/\1/p')
ok "... together ${total:-?} KiB, more than fsize: fsize bounds one file, not the disk" \
    test "${total:-0}" -gt 4096

# The bound: the home on a 24M filesystem of its own.  Ten 3M files
# would be 30M; the filler stops at the filesystem's size.
lim_run tlim45 "$conf" 'for i in 1 2 3 4 5 6 7 8 9 10; do /project/lim_tool fill ~/f$i 3; done; \
    df -k ~ | tail -1'
like "$LIM_OUT" "errno ENOSPC" "a home on a 24M filesystem: the filler gets ENOSPC"
used=$(du -sk "$mnt/h" | cut -f1)
ok "... having written ${used:-?} KiB, no more than the filesystem holds" \
    test "${used:-99999}" -le $((24 * 1024))
rm -f "$mnt"/h/f*
lim_run tlim45 "$conf" '/project/lim_tool fill ~/ok 3'
like "$LIM_OUT" "wrote 3145728 errno 0" "the twin: a 3M file in the emptied home is fine"

# The doctor: which bound applies, or none.
out=$("$AISB_SHELL" --config "$conf" --user tlim45 --doctor 2>&1)
like "$out" "ok: disk\\[tlim45\\]: home $mnt/h: no quota, but a filesystem of its own" \
    "--doctor: the home's own filesystem is its bound"
like "$out" "warn: disk\\[tlim45\\]: project /home/tlim45/project is on the filesystem of /(home)? .* with no quota for uid $(id -u tlim45).*; fix: " \
    "--doctor: the project on the root filesystem without a quota: warned, with the fix"
sed -i 's|^home .*|home { path = "tmpfs" }|' "$conf"
out=$("$AISB_SHELL" --config "$conf" --user tlim45 --doctor 2>&1)
like "$out" "ok: disk\\[tlim45\\]: home: a tmpfs of filesystem.tmp_size" "--doctor: a tmpfs home is bounded by tmp_size"

done_testing
