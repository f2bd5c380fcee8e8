#!/bin/bash
# bench/startup.sh: start-up cost of `aisb-shell -c true` against bare
# unshare(1) of the same namespaces and bwrap --unshare-all, all run as
# the same unprivileged user through the same setpriv wrapper, in one run.
# Prints a table of medians and the ratio to unshare.
set -eu
: "${BUILD:=$(cd "$(dirname "$0")/.." && pwd)/build}"
QUICK=${QUICK:-}
runs=50; warm=5
[ -n "$QUICK" ] && { runs=5; warm=1; }
[ "$(id -u)" = 0 ] || { echo "startup: needs root (creates a user)"; exit 0; }
command -v hyperfine >/dev/null || { echo "startup: SKIP: hyperfine missing"; exit 0; }

u=tbench1
dir=/srv/aisbt-bench
work=$(mktemp -d)
cleanup() {
	pkill -KILL -u "$u" 2>/dev/null || true
	# rootless podman's run and state directories, without a login session
	[ -n "${uid:-}" ] && rm -rf "/tmp/podman-run-$uid" "/tmp/containers-user-$uid"
	userdel -r "$u" >/dev/null 2>&1 || true
	rm -rf "$dir" "$work"
}
trap cleanup EXIT
userdel -r "$u" >/dev/null 2>&1 || true
useradd -m -s /bin/bash "$u"
install -d -m 0755 "$dir" "$dir/conf"
install -d -o "$u" -m 0755 "$dir/$u" "$dir/$u/project"
for mode in none gated; do
	cat > "$dir/conf/$mode.conf" <<EOC
project { path = "$dir/%u/project"  roots = {"$dir/%u"} }
home { path = "tmpfs" }
network { mode = "$mode" }
limits { enforce = "best-effort" }
EOC
done
uid=$(id -u "$u"); gid=$(id -g "$u")
as="setpriv --reuid=$uid --regid=$gid --clear-groups env -i PATH=/usr/bin:/bin HOME=/ "
cmds=(
	"unshare"      "$as unshare -U -m -p -n -i -u -C -f true"
	"bwrap"        "$as bwrap --unshare-all --ro-bind / / --proc /proc --dev /dev true"
	"aisb-none"    "$as $BUILD/bin/aisb-shell --config $dir/conf/none.conf -c true"
	"aisb-gated"   "$as $BUILD/bin/aisb-shell --config $dir/conf/gated.conf -c true"
)
# Rootless podman, where it runs: as the same user, with a local image
# the bench makes itself from busybox-static (nothing is pulled), without
# network, with pasta, and with slirp4netns (podman before 4.4 has no
# pasta).  crun refuses a host with cgroup v1 and v2 mounted together
# ("hybrid"); there, runc with the cgroupfs manager is what works.
# shellcheck disable=SC2086 # $pas: a command line, split on purpose
podman_img() { # the image, imported once for $u
	local root=$work/rootfs
	mkdir -p "$root/bin" && cp "$(command -v busybox)" "$root/bin/" &&
	    ln -s busybox "$root/bin/true" && tar -C "$root" -cf "$work/mini.tar" . &&
	    chmod 755 "$work" && chmod 644 "$work/mini.tar" &&
	    (cd / && timeout 60 $pas podman import -q "$work/mini.tar" localhost/aisb-bench-mini) >/dev/null
}
pas="$as HOME=$(getent passwd "$u" | cut -d: -f6)" # podman keeps its store in the home
if ! command -v podman >/dev/null; then
	echo "startup: SKIP podman: not installed"
elif ! command -v busybox >/dev/null || ! file -L "$(command -v busybox)" | grep -q 'statically linked'; then
	echo "startup: SKIP podman: no static busybox to make a local image from (busybox-static)"
elif ! podman_img 2>"$work/podman.err"; then
	echo "startup: SKIP podman: cannot import a local image: $(head -c 200 "$work/podman.err" | tr '\n' ' ')"
else
	pm="podman"
	# shellcheck disable=SC2086 # $pas, $pm: command lines, split on purpose
	(cd / && timeout 60 $pas $pm run --rm --network=none localhost/aisb-bench-mini true) >/dev/null 2>&1 ||
		pm="podman --runtime runc --cgroup-manager=cgroupfs"
	nets="none slirp4netns"
	# pasta came with podman 4.4
	if [ "$(printf '%s\n' 4.4 "$(podman version -f '{{.Client.Version}}' 2>/dev/null)" | sort -V | head -1)" = 4.4 ]; then
		nets="none pasta slirp4netns"
	else
		echo "startup: SKIP podman-pasta: podman $(podman version -f '{{.Client.Version}}' 2>/dev/null) has no pasta (4.4 and later)"
	fi
	for net in $nets; do
		cmds+=("podman-$net" "$pas $pm run --rm --network=$net localhost/aisb-bench-mini true")
	done
fi
args=()
names=()
for ((i = 0; i < ${#cmds[@]}; i += 2)); do
	name=${cmds[i]} cmd=${cmds[i+1]}
	# Only measure what works here; say why not otherwise.
	if ! (cd / && timeout 60 sh -c "$cmd") >"$work/$name.err" 2>&1; then
		echo "startup: SKIP $name: $(head -c 200 "$work/$name.err" | tr '\n' ' ')"
		continue
	fi
	names+=("$name")
	args+=(-n "$name" "$cmd")
done
cd / && hyperfine -N --warmup "$warm" --runs "$runs" --export-json "$work/h.json" \
    --style none "${args[@]}" >/dev/null 2>"$work/hyperfine.err"
python3 - "$work/h.json" <<'EOP'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = next((x for x in r if x["command"] == "unshare"), r[0])
print(f"{'command':<12} {'median ms':>10} {'p90 ms':>8} {'x unshare':>10}")
for x in r:
    t = sorted(x["times"])
    p90 = t[int(len(t) * 0.9) - 1] if t else 0
    print(f"{x['command']:<12} {x['median']*1e3:>10.2f} {p90*1e3:>8.2f} "
          f"{x['median']/base['median']:>10.2f}")
by = {x["command"]: x["median"] for x in r}
if "aisb-gated" in by and "unshare" in by:
    k = by["aisb-gated"] / by["unshare"]
    line = f"targets: aisb-gated <= 2.5 x unshare: {k:.2f} ({'met' if k <= 2.5 else 'MISSED'})"
    if "podman-pasta" in by:
        f = by["podman-pasta"] / by["aisb-gated"]
        line += f"; >= 40 x faster than podman with pasta: {f:.1f} ({'met' if f >= 40 else 'MISSED'})"
    else:
        line += "; podman with pasta: not measured here"
        for net in ("slirp4netns", "none"):
            if "podman-" + net in by:
                f = by["podman-" + net] / by["aisb-gated"]
                line += f"; podman --network={net} / aisb-gated: {f:.1f}"
    print(line)
EOP
