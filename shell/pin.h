/*
 * pin.h: holding paths of the project in place inside the view
 * (docs/architecture.md stage 6, the project).
 *
 * Every path is relative to the project ("" is the project itself) and
 * resolved from the project's mount in the view, one component at a
 * time without following symlinks.  Pinning a path:
 *   - binds each parent directory inside the project onto itself unless
 *     it already is a mount point: the kernel refuses to rename or
 *     remove a mount point (EBUSY), so no parent can be swapped for a
 *     directory the agent fills;
 *   - then binds the path itself onto itself, read-only (PIN_RO) or
 *     writable ("held": it cannot be renamed or removed, what is below
 *     it can change);
 *   - refuses a symlink anywhere on the path (the host would follow it
 *     somewhere writable), and a component of the wrong type.
 * A missing path is created on the host, owned by the agent (which
 * could have made it anyway): the first missing component becomes an
 * empty directory held read-only, so nothing below it can be created
 * inside; PIN_CREATE with PIN_FILE makes the path itself a file with
 * the given content instead; PIN_OPTIONAL leaves a missing path alone.
 */
#ifndef AISB_PIN_H
#define AISB_PIN_H

#include <stdbool.h>
#include <stddef.h>

/* Most mounts one session makes for the project's pinned paths. */
#define PIN_MAX_MOUNTS 4096

struct pin {
	int pfd; /* the project's mount in the view (O_PATH directory) */
	char host[4096]; /* the project's path on the host, "" if unknown */
	unsigned mounts; /* mounts made so far */
};

#define PIN_RO 0x01U /* read-only; else held writable */
#define PIN_DIR 0x02U /* the path must be a directory */
#define PIN_FILE 0x04U /* the path must be a regular file */
#define PIN_CREATE 0x08U /* a missing PIN_FILE path: create it */
#define PIN_OPTIONAL 0x10U /* a missing path: leave it, *ret_fd = -1 */

/*
 * Pin rel as flags say.  0 with an O_PATH fd of the pinned path in
 * *ret_fd (when not NULL; -1 when the path was missing and a parent
 * placeholder or nothing was made), or -errno, logged as
 * "WHAT: REASON" (-SESSION_EPOLICY for what the project's content
 * decides).  what names the path for that line.
 */
int pin_path(struct pin *c, const char *rel, unsigned flags,
    const char *content, const char *what, int *ret_fd);

/*
 * Read the regular file fd (O_PATH, from pin_path) whole: at most max
 * bytes, NUL-terminated in buf (max + 1 bytes).  Its length, or -errno
 * (-EFBIG when larger).  Not logged.
 */
long pin_read(int fd, char *buf, size_t max);

/* Flags of pin_resolve. */
#define PIN_R_CONFIG 0x01U /* a path from a git config (~ and %(prefix)) */

/*
 * Resolve path as git would, from the directory base (relative to the
 * project): absolute, or relative to base.  1 with the path relative to
 * the project in out ("" for the project itself) when it lies inside
 * the project; 0 when it lies elsewhere (or is a config path starting
 * with "~" or "%(prefix)", which git expands for the human running it);
 * -SESSION_EPOLICY (logged, naming what) when git could reach the
 * project through it in a way that cannot be pinned: ".." after a
 * symlink or a missing directory, or a host symlink into the project.
 */
int pin_resolve(struct pin *c, const char *base, const char *path,
    unsigned flags, const char *what, char *out, size_t n);

/* Join a and b ("" is nothing) with '/' into out.  0 or -ENAMETOOLONG. */
int pin_join(const char *a, const char *b, char *out, size_t n);

/* The directory part of rel ("" for a single component), into out. */
void pin_dirname(const char *rel, char *out, size_t n);

#endif
