/*
 * gitconf.h: read a git configuration file the way git reads it.
 *
 * aisb-shell reads the configuration of the project's repository before
 * a session to find the files that configuration makes git read or run
 * from the project (include.path, includeIf.*.path, core.hooksPath) and
 * holds them read-only (docs/architecture.md, the project).  A reader
 * that parsed a line differently from git would miss what git sees, so
 * this one follows git's grammar (git-config(1) "CONFIGURATION FILE")
 * to the byte: the same ASCII classes, comments, quoting, escapes,
 * continuation lines, CRLF, the leading UTF-8 BOM, and the same errors:
 * a file git refuses is refused here too.
 */
#ifndef AISB_GITCONF_H
#define AISB_GITCONF_H

#include <stddef.h>

/* Longest file read: anything larger is refused (-EFBIG). */
#define GITCONF_MAX (1U << 20)

/*
 * Called for each variable with its full name as git spells it
 * internally: the section and the variable name lower-cased, a
 * subsection as written, joined by dots ("core.hookspath",
 * "includeif.gitdir:/x/.path").  value is NULL for a variable without
 * "=" (a boolean true).  A negative return stops the parse and is
 * returned.
 */
typedef int (*gitconf_fn)(const char *var, const char *value, void *data);

/*
 * Parse len bytes of text.  0; -EINVAL where git reports "bad config
 * line" (the line number in *ret_line when not NULL); -EFBIG; -ENOMEM;
 * or the callback's return.
 */
int gitconf_parse(const char *text, size_t len, gitconf_fn fn, void *data,
    unsigned *ret_line);

/*
 * Does var name a variable of section (lower case) with key name (lower
 * case), whatever its subsection?  "includeif.onbranch:x.path" matches
 * ("includeif", "path").  The subsection (or NULL) to *ret_sub, its
 * length to *ret_n.
 */
int gitconf_key(const char *var, const char *section, const char *name,
    const char **ret_sub, size_t *ret_n);

#endif
