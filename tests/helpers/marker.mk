# tests/helpers/marker.mk: the marker library of the entry point's tests
# (tests/helpers/lib/marker.c; included by the Makefile).
#
#   $(BUILD)/tests/helpers/libaisbt-marker.so      LD_PRELOAD, LD_AUDIT,
#                                                  and a gconv module
#   $(BUILD)/tests/helpers/ldpath/libconfuse.so.2  the same code under the
#       name of a library aisb-shell-main needs: LD_LIBRARY_PATH finds it
#       first, and its DT_NEEDED names the real libconfuse by absolute
#       path (a stand-in whose soname is that path), so the program still
#       runs.  Not built when libconfuse's file cannot be found.
#   $(BUILD)/tests/helpers/envprobe               the plain dynamic program
#       those act on (tests/helpers/envprobe.c)
#
# All three are built without sanitizers, in an ASan build too: they
# stand in for an ordinary program on the host, and an ASan program
# refuses an LD_PRELOAD that comes before its runtime, so the tests'
# controls would show the sanitizer and not the C library.

MARKER_SRC := tests/helpers/lib/marker.c
MARKER_SO  := $(BUILD)/tests/helpers/libaisbt-marker.so
MARKER_CONFUSE := $(realpath $(shell pkg-config --variable=libdir libconfuse 2>/dev/null)/libconfuse.so.2)
MARKER_LDPATH := $(if $(MARKER_CONFUSE),$(BUILD)/tests/helpers/ldpath/libconfuse.so.2)
MARKER_CFLAGS := $(filter-out -fsanitize=% -MMD -MP,$(ALL_CFLAGS)) -Wno-missing-prototypes

all: $(MARKER_SO) $(MARKER_LDPATH)
C_FILES += $(MARKER_SRC)

$(MARKER_SO): $(MARKER_SRC)
	@mkdir -p $(dir $@)
	$(CC) $(MARKER_CFLAGS) -shared $(LDHARD) -o $@ $<

$(BUILD)/tests/helpers/ldpath/needed.so:
	@mkdir -p $(dir $@)
	$(CC) -shared -nostdlib -Wl,-soname,$(MARKER_CONFUSE) -o $@ -x c /dev/null

$(MARKER_LDPATH): $(MARKER_SRC) $(BUILD)/tests/helpers/ldpath/needed.so
	@mkdir -p $(dir $@)
	$(CC) $(MARKER_CFLAGS) -DMARKER_LDPATH -shared $(LDHARD) \
	    -Wl,-soname,libconfuse.so.2 -o $@ $< \
	    -Wl,--no-as-needed $(BUILD)/tests/helpers/ldpath/needed.so

# A rule of its own: it overrides the pattern rule of tests/helpers/%.
$(BUILD)/tests/helpers/envprobe: tests/helpers/envprobe.c
	@mkdir -p $(dir $@)
	$(CC) $(MARKER_CFLAGS) -pie $(LDHARD) -o $@ $< $(PKG_LIBS)
