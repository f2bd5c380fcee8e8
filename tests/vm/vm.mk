# tests/vm/vm.mk: the VM lane (included by the Makefile).
#
#   make vm-check [VM_KERNELS="stock bpo"] [VM_TESTS="tests/vm/20-ssh.t"]
#       builds the package and the tree, then tests/vm/check: a Debian 12
#       guest under qemu, booted with Debian's own kernel and with the
#       bookworm-backports kernel, runs tests/vm/*.t and tests/limits;
#       one closing line "N passed, N failed, N skipped" for both.
#   make vm-image
#       only the guest image (cached in $(BUILD)/vm/img-HASH); needs no
#       test lock, so it can be built while other suites run.

VM_DEB = $(abspath $(BUILD))/pkg/deb/aisb_$(AISB_VERSION_STR)_$(shell dpkg --print-architecture 2>/dev/null).deb
VM_TESTS ?=

.PHONY: vm-check vm-image
vm-check: deps-test all deb
	BUILD=$(abspath $(BUILD)) AISB_DEB=$(VM_DEB) tests/vm/check $(VM_TESTS)

vm-image:
	tests/vm/image.sh $(abspath $(BUILD))/vm/img-$$(cat tests/vm/image.sh tests/deps.sh | sha256sum | cut -c1-16)
