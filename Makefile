# aisb: GNU make + pkg-config.  See README.md.
#
# Sources are found by directory, so adding a file needs no edit here:
#   lib/*.c          -> $(BUILD)/libaisb.a (PIC: also linked into the module)
#   entry/*.c        -> $(BUILD)/bin/aisb-shell (static, no library: the
#                       entry point; see lib/entry.h)
#   shell/*.c        -> $(BUILD)/libexec/aisb/aisb-shell-main
#   gate/*.c         -> $(BUILD)/libexec/aisb/aisb-gate
#                       (and $(BUILD)/tests/helpers/aisb-gate-test)
#   pam/*.c          -> $(BUILD)/lib/security/pam_aisb.so
#   tests/unit/*.c   -> $(BUILD)/tests/unit/NAME     (TAP programs)
#   tests/helpers/*.c-> $(BUILD)/tests/helpers/NAME  (attack helpers)
#   tests/fuzz/fuzz_*.c -> $(BUILD)/fuzz/NAME        (libFuzzer, clang)

BUILD	?= build
, := ,
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
MANDIR	?= $(PREFIX)/share/man
SYSCONFDIR ?= /etc
DESTDIR	?=
# The distribution's PAM module directory (Debian: multiarch).
PAMDIR	?= $(shell d=$$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null); \
	   if [ -n "$$d" ]; then echo /usr/lib/$$d/security; \
	   elif [ -d /usr/lib64/security ]; then echo /usr/lib64/security; \
	   else echo /usr/lib/security; fi)

CC	?= cc
FUZZ_CC	?= clang
FUZZ_SECONDS ?= 60
WERROR	?=
SAN	?=

# The libraries are looked up when this file is read.  `make demo` and
# the deps targets install them first, so they read none: demo builds in
# a make of its own, started after deps-build.  Any other goal stops at
# once with one line naming the library that is missing.
PKG_CONFIG ?= pkg-config
PKGS	:= libconfuse libcap-ng libseccomp libnftnl libmnl
PKG_FREE_GOALS := demo deps-build deps-test clean dist
ifneq ($(filter-out $(PKG_FREE_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(shell command -v $(PKG_CONFIG)),)
$(error $(PKG_CONFIG) is missing: install pkg-config (or run `make deps-build` as root))
endif
PKG_MISSING := $(shell for p in $(PKGS); do \
	$(PKG_CONFIG) --exists $$p 2>/dev/null || echo $$p; done)
ifneq ($(PKG_MISSING),)
$(error library $(firstword $(PKG_MISSING)) is missing ($(PKG_CONFIG) --exists \
	$(firstword $(PKG_MISSING)) fails): install $(PKG_MISSING:%=%-dev) \
	(or run `make deps-build` as root))
endif
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS))
endif
# TLS for the gate only (its credential path, gate/tls.c): OpenSSL 3.
# Neither aisb-shell nor the PAM module links it.
TLS_PKGS := libssl libcrypto
TLS_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(TLS_PKGS) 2>/dev/null)
TLS_LIBS   := $(shell $(PKG_CONFIG) --libs $(TLS_PKGS) 2>/dev/null || echo -lssl -lcrypto)

# Probe a flag: $(call cc-option,-flag) expands to the flag if $(CC)
# accepts it (as OpenSSH's configure does), else to nothing.
cc-option = $(shell if $(CC) -Werror $(1) -x c -c /dev/null -o /dev/null \
	      >/dev/null 2>&1; then echo "$(1)"; fi)
ld-option = $(shell if echo 'int main(void){return 0;}' | $(CC) -Werror \
	      $(1) -x c - -o /dev/null >/dev/null 2>&1; then echo "$(1)"; fi)

WARN	:= -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes \
	   -Wmissing-prototypes -Wcast-qual -Wwrite-strings \
	   -Werror=implicit-function-declaration -Werror=format-security \
	   $(call cc-option,-Wimplicit-fallthrough) \
	   $(call cc-option,-Wno-format-nonliteral)
HARDEN	:= $(call cc-option,-fstack-protector-strong) \
	   $(call cc-option,-fstack-clash-protection) \
	   $(call cc-option,-fcf-protection) \
	   $(call cc-option,-ftrivial-auto-var-init=zero) \
	   $(call cc-option,-fno-strict-overflow)
ifeq ($(SAN),)
OPT	:= -O2 -D_FORTIFY_SOURCE=2
else
# ASan+UBSan: no FORTIFY (it confuses the interceptors), keep frames.
OPT	:= -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	   -fno-sanitize-recover=undefined
endif
LDHARD	:= $(call ld-option,-Wl$(,)-z$(,)relro) $(call ld-option,-Wl$(,)-z$(,)now) \
	   $(call ld-option,-Wl$(,)-z$(,)noexecstack)

CFLAGS	?=
LDFLAGS	?=
ALL_CFLAGS := -std=gnu11 -g $(OPT) $(WARN) $(HARDEN) $(if $(WERROR),-Werror) \
	   -fPIC -Ilib $(PKG_CFLAGS) $(CFLAGS) -MMD -MP
ALL_LDFLAGS := $(LDHARD) $(if $(SAN),-fsanitize=address$(,)undefined) $(LDFLAGS)

LIB_SRC	  := $(wildcard lib/*.c)
ENTRY_SRC := $(wildcard entry/*.c)
SHELL_SRC := $(wildcard shell/*.c)
GATE_SRC  := $(wildcard gate/*.c)
PAM_SRC	  := $(wildcard pam/*.c)
UNIT_SRC  := $(wildcard tests/unit/*.c)
HELP_SRC  := $(wildcard tests/helpers/*.c)
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)

LIB_OBJ	  := $(LIB_SRC:%.c=$(BUILD)/%.o)
ENTRY_OBJ := $(ENTRY_SRC:%.c=$(BUILD)/%.o)
SHELL_OBJ := $(SHELL_SRC:%.c=$(BUILD)/%.o)
GATE_OBJ  := $(GATE_SRC:%.c=$(BUILD)/%.o)
PAM_OBJ	  := $(PAM_SRC:%.c=$(BUILD)/%.o)

LIBAISB	  := $(BUILD)/libaisb.a
ENTRY_BIN := $(BUILD)/bin/aisb-shell
SHELL_BIN := $(BUILD)/libexec/aisb/aisb-shell-main
GATE_BIN  := $(BUILD)/libexec/aisb/aisb-gate
GATE_TEST_BIN := $(BUILD)/tests/helpers/aisb-gate-test
PAM_SO	  := $(BUILD)/lib/security/pam_aisb.so
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
HELP_BIN  := $(HELP_SRC:tests/helpers/%.c=$(BUILD)/tests/helpers/%)
FUZZ_BIN  := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)

PROGS	  := $(ENTRY_BIN) $(SHELL_BIN) $(if $(GATE_SRC),$(GATE_BIN)) $(if $(PAM_SRC),$(PAM_SO))

.PHONY: all progs check check-unit asan fuzz fuzz-build demo install uninstall \
	lint clean deps-build deps-test bench dist
all: $(PROGS) $(UNIT_BIN) $(HELP_BIN) $(if $(GATE_SRC),$(GATE_TEST_BIN))
progs: $(PROGS)

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIBAISB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# The inner's main seccomp filter is compiled by libseccomp once, here,
# not in every session: a generator prints the BPF as a C header that
# shell/seccomp_deny.c installs (tests/unit/test_seccomp_gen checks it).
SECCOMP_GEN := $(BUILD)/gen/seccomp_deny_gen
SECCOMP_BPF := $(BUILD)/gen/seccomp_deny_bpf.h
$(SECCOMP_GEN): shell/gen/seccomp_deny_gen.c shell/seccomp_deny_rules.h lib/util.h lib/seccomp_prog.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -iquote shell $(ALL_LDFLAGS) -o $@ $< $(PKG_LIBS)
$(SECCOMP_BPF): $(SECCOMP_GEN)
	$(SECCOMP_GEN) > $@.tmp && mv $@.tmp $@
$(BUILD)/shell/seccomp_deny.o $(BUILD)/tests/unit/test_seccomp_gen: $(SECCOMP_BPF)
$(BUILD)/shell/seccomp_deny.o $(BUILD)/tests/unit/test_seccomp_gen: \
	ALL_CFLAGS += -iquote $(BUILD)/gen
# The gate's allowlist likewise (gate/harden.c, test_seccomp_gate_gen).
SECCOMP_GATE_GEN := $(BUILD)/gen/seccomp_gate_gen
SECCOMP_GATE_BPF := $(BUILD)/gen/seccomp_gate_bpf.h
$(SECCOMP_GATE_GEN): gate/gen/seccomp_gate_gen.c gate/seccomp_gate_rules.h lib/util.h lib/seccomp_prog.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -iquote gate $(ALL_LDFLAGS) -o $@ $< $(PKG_LIBS)
$(SECCOMP_GATE_BPF): $(SECCOMP_GATE_GEN)
	$(SECCOMP_GATE_GEN) > $@.tmp && mv $@.tmp $@
$(BUILD)/gate/harden.o $(BUILD)/gate-test/gate/harden.o $(BUILD)/fuzz/obj/gate/harden.o \
	$(BUILD)/tests/unit/test_seccomp_gate_gen lint: $(SECCOMP_GATE_BPF)
$(BUILD)/gate/harden.o $(BUILD)/gate-test/gate/harden.o $(BUILD)/tests/unit/test_seccomp_gate_gen: \
	ALL_CFLAGS += -iquote $(BUILD)/gen
$(BUILD)/fuzz/obj/gate/harden.o: FUZZ_FLAGS += -iquote $(BUILD)/gen

# The entry point: its own flags, none of the caller's CFLAGS or of a
# sanitizer build (there is no C library to support them).  On x86_64
# and aarch64 it is freestanding, a static PIE without relocations (its
# own _start and system calls, entry/sys.c); elsewhere ENTRY_HOSTED=1
# links it statically against the C library.
ENTRY_HOSTED ?= $(if $(filter x86_64-% aarch64-%,$(shell $(CC) -dumpmachine)),,1)
ENTRY_CFLAGS := -std=gnu11 -g -O2 $(WARN) $(if $(WERROR),-Werror) -Ilib \
	   -fPIE -fno-stack-protector -U_FORTIFY_SOURCE -fno-lto \
	   $(call cc-option,-fcf-protection) $(call cc-option,-mbranch-protection=standard) \
	   $(call cc-option,-fstack-clash-protection) \
	   $(if $(ENTRY_HOSTED),-DENTRY_HOSTED,-ffreestanding -fno-builtin \
	       $(call cc-option,-fno-tree-loop-distribute-patterns)) -MMD -MP
ENTRY_LDFLAGS := $(if $(ENTRY_HOSTED),-static,-nostdlib -static-pie) \
	   -Wl,-z,noexecstack -Wl,-z,relro -Wl,-z,now
$(BUILD)/entry/%.o: entry/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ENTRY_CFLAGS) -c $< -o $@
$(ENTRY_BIN): $(ENTRY_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(ENTRY_CFLAGS) $(ENTRY_LDFLAGS) -o $@ $^

$(SHELL_BIN): $(SHELL_OBJ) $(LIBAISB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -pie $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS)

$(GATE_BIN): $(GATE_OBJ) $(LIBAISB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -pie $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(TLS_LIBS)

# The gate's test build: the same sources with AISB_GATE_TEST, which adds
# --debug-no-seccomp (tests/gate/85-valgrind.t, bench/profile.sh: valgrind
# makes calls the allowlist kills).  Never installed: the release gate
# has no switch that turns its own hardening off.
GATE_TEST_OBJ := $(GATE_SRC:%.c=$(BUILD)/gate-test/%.o)
$(BUILD)/gate-test/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DAISB_GATE_TEST -c $< -o $@
$(GATE_TEST_BIN): $(GATE_TEST_OBJ) $(LIBAISB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -pie $(ALL_LDFLAGS) -o $@ $^ $(PKG_LIBS) $(TLS_LIBS)

# The module: only the pam_sm_* entry points are exported, and every
# symbol must resolve at link time.
# In a sanitizer build the module is built with UBSan only: sshd, su and
# pamtester are not ASan programs, and an ASan library cannot be loaded
# into them.  ASan covers the module's code through tests/unit, which
# link the same sources into ASan programs.
ifeq ($(SAN),)
MOD_OBJ	  := $(PAM_OBJ) $(LIBAISB)
MOD_LDSAN :=
else
MOD_CFLAGS := $(subst -fsanitize=address$(,)undefined,-fsanitize=undefined,$(ALL_CFLAGS))
MOD_OBJ	  := $(PAM_SRC:%.c=$(BUILD)/mod/%.o) $(LIB_SRC:%.c=$(BUILD)/mod/%.o)
MOD_LDSAN := -fsanitize=undefined
$(BUILD)/mod/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(MOD_CFLAGS) -c $< -o $@
-include $(MOD_OBJ:.o=.d)
endif

$(PAM_SO): $(MOD_OBJ) pam/pam_aisb.map
	@mkdir -p $(dir $@)
	$(CC) $(if $(SAN),$(MOD_CFLAGS),$(ALL_CFLAGS)) -shared $(LDHARD) $(MOD_LDSAN) $(LDFLAGS) \
	    -Wl,--version-script=pam/pam_aisb.map -Wl,--no-undefined \
	    -o $@ $(MOD_OBJ) $(PKG_LIBS) -lpam

UNIT_OBJ  := $(filter-out $(BUILD)/shell/main.o $(BUILD)/gate/main.o,$(SHELL_OBJ) $(GATE_OBJ))
$(BUILD)/tests/unit/%: tests/unit/%.c $(UNIT_OBJ) $(LIBAISB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-discarded-qualifiers -Itests/lib -iquote shell -iquote gate -pie $(ALL_LDFLAGS) \
	    -o $@ $< $(UNIT_OBJ) $(LIBAISB) $(PKG_LIBS) $(TLS_LIBS)

$(BUILD)/tests/helpers/%: tests/helpers/%.c $(LIBAISB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Wno-discarded-qualifiers -Itests/lib -pie $(ALL_LDFLAGS) \
	    -o $@ $< $(LIBAISB) $(PKG_LIBS)

-include $(LIB_OBJ:.o=.d) $(ENTRY_OBJ:.o=.d) $(SHELL_OBJ:.o=.d) $(GATE_OBJ:.o=.d) \
	$(PAM_OBJ:.o=.d) $(GATE_TEST_OBJ:.o=.d)
# Tests and helpers are built in one step each: their headers (probe.h)
# too are dependencies.
-include $(UNIT_BIN:=.d) $(HELP_BIN:=.d)

# Tests.  tests/run prints TAP through prove and ends with one line
# "N passed, N failed, N skipped".
check: all deps-test
	BUILD=$(abspath $(BUILD)) tests/run

# The unit tests, the programs and the helpers they start (not the
# gate's test build).
check-unit: $(PROGS) $(UNIT_BIN) $(HELP_BIN)
	BUILD=$(abspath $(BUILD)) tests/run tests/unit

# check-PART: one directory of tests, tests/PART (check-gate,
# check-sandbox, ...); check-unit above needs no test packages.
CHECK_PARTS := $(sort $(patsubst tests/%/,%,$(dir $(wildcard tests/*/*.t))))
.PHONY: $(CHECK_PARTS:%=check-%)
$(CHECK_PARTS:%=check-%): check-%: all deps-test
	BUILD=$(abspath $(BUILD)) tests/run tests/$*

asan:
	$(MAKE) BUILD=build-asan SAN=1 check

deps-build:
	@tests/deps.sh build

deps-test:
	@tests/deps.sh test

# libFuzzer targets: clang, ASan+UBSan, each linked with the library
# compiled for fuzzing.
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -Ilib -iquote shell -iquote gate \
	      $(PKG_CFLAGS) -DAISB_FUZZ
FUZZ_LIBSRC := $(LIB_SRC) $(filter-out gate/main.c,$(GATE_SRC))
# The library is compiled once for all targets (fuzzer-no-link), each
# target then only compiles its own file and links.
FUZZ_OBJ := $(FUZZ_LIBSRC:%.c=$(BUILD)/fuzz/obj/%.o)
$(BUILD)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(subst -fsanitize=fuzzer$(,),-fsanitize=fuzzer-no-link$(,),$(FUZZ_FLAGS)) \
	    -MMD -MP -c $< -o $@
-include $(FUZZ_OBJ:.o=.d)
.SECONDARY: $(FUZZ_OBJ)
# A target may #include the source it fuzzes (shell/*.c): -MMD makes it
# depend on that file too.
$(BUILD)/fuzz/%: tests/fuzz/%.c $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) -MMD -MP -o $@ $< $(FUZZ_OBJ) $(PKG_LIBS) $(TLS_LIBS)
-include $(FUZZ_BIN:=.d)

fuzz-build: $(FUZZ_BIN)

# Each target for FUZZ_SECONDS; any crash, leak, timeout or sanitizer
# report fails the run and leaves the reproducer in $(BUILD)/fuzz/.
# One make target per fuzzer, so that `make -j2 -k -O fuzz` runs them
# side by side (each fuzzer is one process) and still runs them all.
FUZZ_RUN := $(FUZZ_BIN:%=%.run)
.PHONY: $(FUZZ_RUN)
fuzz: $(FUZZ_RUN)
$(FUZZ_RUN): %.run: %
	@f=$<; n=$$(basename $$f); c=tests/fuzz/corpus/$$n; mkdir -p $$c; \
	    w=$$(mktemp -d); log=$(BUILD)/fuzz/$$n.log; \
	    if $$f -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
	        -print_final_stats=1 -artifact_prefix=$(BUILD)/fuzz/$$n- \
	        $$w $$c >$$log 2>&1; then \
	        echo "fuzz: $$n for $(FUZZ_SECONDS)s: $$(grep -E '^stat::number_of_executed_units|^Done' $$log | tr '\n' ' ')"; \
	        rm -rf $$w; \
	    else \
	        echo "fuzz: $$n FAILED:"; tail -n 40 $$log; rm -rf $$w; exit 1; \
	    fi

# deps-build may install the libraries: the build reads them in a make
# started after it.  The demo needs only the programs (the tests' build
# comes with the first check).
demo: deps-build
	$(MAKE) progs
	BUILD=$(abspath $(BUILD)) tests/demo.sh

# The entry point runs BINDIR/../libexec/aisb/aisb-shell-main (and
# aisb-shell-main the gate beside it): LIBEXECDIR must be that directory.
install: $(PROGS)
	$(if $(filter-out $(abspath $(BINDIR)/../libexec),$(abspath $(LIBEXECDIR))), \
	    $(error LIBEXECDIR=$(LIBEXECDIR) must be BINDIR/../libexec \
	        ($(abspath $(BINDIR)/../libexec)): aisb-shell finds its programs there))
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBEXECDIR)/aisb \
	    $(DESTDIR)$(PAMDIR) $(DESTDIR)$(SYSCONFDIR)/aisb/users.d
	install -m 0755 $(ENTRY_BIN) $(DESTDIR)$(BINDIR)/aisb-shell
	install -m 0755 $(SHELL_BIN) $(DESTDIR)$(LIBEXECDIR)/aisb/aisb-shell-main
	$(if $(GATE_SRC),install -m 0755 $(GATE_BIN) $(DESTDIR)$(LIBEXECDIR)/aisb/aisb-gate)
	$(if $(PAM_SRC),install -m 0644 $(PAM_SO) $(DESTDIR)$(PAMDIR)/pam_aisb.so)
	@# The session registry (lib/aisb.h AISB_REGISTRY_DIR; aisb-shell(8)).
	install -d -m 1733 $(DESTDIR)/var/lib/aisb/sessions
	test -e $(DESTDIR)$(SYSCONFDIR)/aisb/aisb.conf || \
	    install -m 0644 etc/aisb/aisb.conf $(DESTDIR)$(SYSCONFDIR)/aisb/aisb.conf
	@if ls docs/*.[58] >/dev/null 2>&1; then \
	    install -d $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8; \
	    for m in docs/*.5; do install -m 0644 $$m $(DESTDIR)$(MANDIR)/man5/; done; \
	    for m in docs/*.8; do install -m 0644 $$m $(DESTDIR)$(MANDIR)/man8/; done; \
	fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/aisb-shell $(DESTDIR)$(LIBEXECDIR)/aisb/aisb-shell-main \
	    $(DESTDIR)$(LIBEXECDIR)/aisb/aisb-gate \
	    $(DESTDIR)$(PAMDIR)/pam_aisb.so
	@# install made LIBEXECDIR/aisb: it goes once nothing else is in it.
	if [ -d $(DESTDIR)$(LIBEXECDIR)/aisb ]; then \
	    rmdir --ignore-fail-on-non-empty $(DESTDIR)$(LIBEXECDIR)/aisb; fi

C_FILES = $(LIB_SRC) $(ENTRY_SRC) $(SHELL_SRC) $(GATE_SRC) $(PAM_SRC) $(UNIT_SRC) \
	  $(HELP_SRC) $(FUZZ_SRC) $(wildcard bench/*.c tests/workloads/*.c) \
	  $(wildcard lib/*.h entry/*.h shell/*.h gate/*.h pam/*.h tests/lib/*.h tests/helpers/*.h)
SH_FILES = $(shell grep -lsr '^\#!/bin/bash' tests .ci bench packaging 2>/dev/null)

lint: deps-build $(SECCOMP_BPF)
	clang-format --dry-run --Werror $(C_FILES)
	@# memleak: cppcheck does not know __attribute__((cleanup)); ASan/LSan run the suite.
	cppcheck --quiet --error-exitcode=1 --enable=warning,portability \
	    -j "$$(nproc)" \
	    --inline-suppr --suppress=missingIncludeSystem --suppress=memleak -Ilib $(filter %.c,$(C_FILES))
	@# One file per run: clang-tidy 14 keeps checker state across the files
	@# of one run (va_start goes unseen: valist.Uninitialized reports).
	@# The runs go side by side, one per core (xargs fails if any does).
	@# Checks and the rules for NOLINT: .clang-tidy.
	@printf '%s\n' $(filter-out tests/fuzz/%,$(filter %.c,$(C_FILES))) | \
	    xargs -P "$$(nproc)" -I '{}' clang-tidy --quiet '{}' -- -std=gnu11 \
	    -Ilib -iquote shell -iquote gate -iquote $(BUILD)/gen -Itests/lib \
	    $(PKG_CFLAGS)
	@# Source paths and the checks turned off, with reasons: .shellcheckrc.
	@# Side by side too, 16 files a run (xargs fails if any does).
	@printf '%s\n' $(SH_FILES) | xargs -P "$$(nproc)" -n 16 shellcheck -x
	@for m in $(wildcard docs/*.[58]); do \
	    mandoc -Tlint -Wwarning $$m || exit 1; done

# The tree of $(BUILD); the default one goes with make asan's.
clean:
	rm -rf -- $(BUILD) $(if $(filter build,$(BUILD)),build-asan)

# Targets owned by one part of the tree (dist, bench, ...).
-include $(wildcard packaging/*.mk bench/*.mk tests/*/*.mk)
