#!/bin/bash
# tests/vm/qemu.sh: boot the lane's guest and talk to it (sourced by
# tests/vm/check).  One guest at a time per caller:
#   vm_boot IMGDIR KERNEL RUNDIR   boot root.img with vmlinuz-KERNEL and
#                                  initrd-KERNEL (snapshot=on: the image
#                                  never changes), wait for its sshd
#   vm_ssh CMD...                  run CMD as root in the guest (within
#                                  VM_SSH_TIMEOUT seconds, when set)
#   vm_put SRC DEST                copy a local directory's contents in
#   vm_stop                        power off (kill qemu if it hangs)
#
# Emulation, not KVM: the Debian kernels do not run under this machine's
# KVM, and tcg with one thread per vCPU does.  The only network is
# user-mode (slirp) with restrict=on: the guest reaches nothing outside,
# neither the host nor the internet; the one way in is a hostfwd from a
# loopback port of the host to the guest's sshd.

VM_MEM=${VM_MEM:-2048}
VM_BOOT_TIMEOUT=${VM_BOOT_TIMEOUT:-240}
VM_PID=
VM_PORT=
VM_KEY=

# A loopback port nobody listens on (the kernel picks it).
_vm_free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

_vm_ssh_opts() {
	printf '%s\n' -i "$VM_KEY" -p "$VM_PORT" -o BatchMode=yes \
	    -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
	    -o LogLevel=ERROR -o ConnectTimeout=10 -o ServerAliveInterval=15 \
	    -o ServerAliveCountMax=8
}

# VM_SSH_TIMEOUT (seconds, 0: none) bounds one vm_ssh: a guest test that
# hangs must not hold the lane, and the lock, for ever.
vm_ssh() {
	local opts
	mapfile -t opts < <(_vm_ssh_opts)
	# shellcheck disable=SC2029  # the command is meant for the guest's shell
	timeout "${VM_SSH_TIMEOUT:-0}" ssh "${opts[@]}" root@127.0.0.1 "$@"
}

# vm_put SRC DEST: the contents of directory SRC into DEST in the guest.
vm_put() {
	tar -C "$1" -cf - . | vm_ssh "mkdir -p '$2' && tar -C '$2' -xf -"
}

vm_boot() {
	local img=$1 k=$2 run=$3 t0 i
	VM_KEY="$run/key"
	mkdir -p "$run"
	install -m 0600 "$img/key" "$VM_KEY"
	rm -f "$run/console.log" "$run/qemu.pid"
	VM_PORT=$(_vm_free_port)
	t0=$(date +%s)
	# -kernel/-initrd from the image directory: no bootloader, and both
	# kernels boot the same root.img.  TMPDIR takes the snapshot overlay.
	TMPDIR=$run qemu-system-x86_64 \
	    -accel tcg,thread=multi -cpu max -smp 2 -m "$VM_MEM" \
	    -nodefaults -display none -no-reboot \
	    -serial "file:$run/console.log" \
	    -kernel "$img/vmlinuz-$k" -initrd "$img/initrd-$k" \
	    -append "root=/dev/vda rw console=ttyS0,115200 net.ifnames=0 quiet loglevel=4 systemd.show_status=0" \
	    -drive "file=$img/root.img,format=raw,if=virtio,snapshot=on,cache=unsafe" \
	    -netdev "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:$VM_PORT-:22" \
	    -device virtio-net-pci,netdev=n0 \
	    -device virtio-rng-pci \
	    -pidfile "$run/qemu.pid" -daemonize ||
		{ echo "vm: qemu did not start" >&2; return 1; }
	VM_PID=$(cat "$run/qemu.pid")
	for ((i = 0; i < VM_BOOT_TIMEOUT; i += 2)); do
		if vm_ssh true 2>/dev/null; then
			echo "vm: $k kernel up, ssh on 127.0.0.1:$VM_PORT after $(($(date +%s) - t0)) s"
			return 0
		fi
		kill -0 "$VM_PID" 2>/dev/null || break
		sleep 2
	done
	echo "vm: the $k guest gave no ssh within ${VM_BOOT_TIMEOUT} s; its console:" >&2
	tail -n 30 "$run/console.log" >&2
	vm_stop
	return 1
}

vm_stop() {
	local i
	[ -n "$VM_PID" ] || return 0
	vm_ssh 'systemctl poweroff' >/dev/null 2>&1 || true
	for ((i = 0; i < 60; i++)); do
		kill -0 "$VM_PID" 2>/dev/null || break
		sleep 1
	done
	if kill -0 "$VM_PID" 2>/dev/null; then
		kill "$VM_PID" 2>/dev/null
		sleep 1
		kill -KILL "$VM_PID" 2>/dev/null || true
	fi
	VM_PID=
}
