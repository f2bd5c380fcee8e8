# packaging/dist.mk: release artefacts (included by the Makefile).
#
#   make dist   $(BUILD)/aisb-VERSION.tar.gz: the committed tree (HEAD)
#               as a reproducible tarball.  git archive stores the commit's
#               own time as every mtime and root/root (0/0) as owner, and
#               gzip -n leaves out the name and time stamp, so the same
#               commit always gives the same bytes.  Uncommitted changes
#               are not in it (a warning says so).
#   make deb    the Debian package from that tarball, with
#               dpkg-buildpackage -us -uc -b, into $(BUILD)/pkg/deb/.
#   make rpm    the RPM from that tarball, with rpmbuild -bb, into
#               $(BUILD)/pkg/rpm/.

AISB_VERSION_STR := $(shell sed -n 's/^\#define AISB_VERSION[[:space:]]*"\(.*\)"/\1/p' lib/aisb.h)
DIST_NAME	:= aisb-$(AISB_VERSION_STR)
DIST_TARBALL	:= $(BUILD)/$(DIST_NAME).tar.gz

.PHONY: dist deb rpm

# The package builds run make again in the unpacked tree: nothing of this
# make (BUILD=..., -j, the environment) may leak into them.
PKG_ENV := env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u BUILD

dist:
	@mkdir -p $(BUILD)
	@git diff --quiet HEAD -- 2>/dev/null || \
	    echo "dist: warning: uncommitted changes are not in the tarball" >&2
	git -c core.autocrlf=false -c tar.umask=0022 archive --format=tar \
	    --prefix=$(DIST_NAME)/ HEAD | gzip -n -9 > $(DIST_TARBALL).tmp
	mv -f $(DIST_TARBALL).tmp $(DIST_TARBALL)
	@sha256sum $(DIST_TARBALL)

deb: dist
	rm -rf $(BUILD)/pkg/deb && mkdir -p $(BUILD)/pkg/deb
	tar -xzf $(DIST_TARBALL) -C $(BUILD)/pkg/deb
	cp -a $(BUILD)/pkg/deb/$(DIST_NAME)/packaging/debian \
	    $(BUILD)/pkg/deb/$(DIST_NAME)/debian
	cd $(BUILD)/pkg/deb/$(DIST_NAME) && $(PKG_ENV) dpkg-buildpackage -us -uc -b
	@ls -l $(BUILD)/pkg/deb/*.deb

# rpmbuild checks BuildRequires against the rpm database, which is empty
# on Debian: RPMFLAGS=--nodeps there (the packages are checked by apt).
RPMFLAGS ?= $(if $(wildcard /etc/debian_version),--nodeps)
rpm: dist
	rm -rf $(BUILD)/pkg/rpm && mkdir -p $(BUILD)/pkg/rpm/SOURCES
	cp $(DIST_TARBALL) $(BUILD)/pkg/rpm/SOURCES/
	$(PKG_ENV) rpmbuild -bb $(RPMFLAGS) --define '_topdir $(abspath $(BUILD))/pkg/rpm' \
	    packaging/rpm/aisb.spec
	@find $(BUILD)/pkg/rpm/RPMS -name '*.rpm' -exec ls -l {} +
