/*
 * args.h: aisb-shell's command line (aisb-shell(8)).
 *
 * Leading "--" admin options are taken first; whatever follows is the
 * shell form (-c CMD, -l, -i, -s, a script) and is parsed by
 * session_main().  argv[0] starting with '-' marks a login shell.
 */
#ifndef AISB_ARGS_H
#define AISB_ARGS_H

#include <stdbool.h>

enum aisb_action {
	ACT_SESSION = 0, /* run a sandboxed session */
	ACT_PRINT_POLICY,
	ACT_CHECK_CONFIG,
	ACT_DOCTOR,
	ACT_JAILCHECK, /* run inside a session: what it exposes */
	ACT_SESSIONS, /* the live sessions (root) */
	ACT_END, /* end a session (root) */
	ACT_EGRESS, /* what sessions reached and were refused (root) */
	ACT_VERSION,
	ACT_HELP,
};

struct aisb_args {
	enum aisb_action action;
	bool json; /* --print-policy, --sessions, --egress: --json */
	bool jailcheck; /* --jailcheck: alone, or with --doctor */
	const char *config; /* --config FILE, or NULL */
	const char *user; /* --user NAME (admin forms only; root) */
	const char *target; /* --end ID|USER, --egress ID|USER */
	const char *since; /* --egress --since T */
	bool login; /* argv[0] starts with '-' */
	const char *argv0;
	int argc; /* the rest: the shell form */
	char **argv;
};

/*
 * Parse.  Returns 0, or -EINVAL after printing one line saying what is
 * wrong (the caller exits 2 for usage errors).
 */
int args_parse(int argc, char **argv, struct aisb_args *out);

/* Admin forms (shell/admin.c); returns the exit status. */
int admin_main(const struct aisb_args *a);
/* aisb-shell --doctor (shell/doctor.c); returns the exit status. */
int doctor_main(const struct aisb_args *a);
/* aisb-shell --jailcheck (shell/jailcheck.c); returns the exit status. */
int jailcheck_main(void);
/* --sessions and --end (shell/sessions.c); return the exit status. */
int sessions_main(const struct aisb_args *a);
int sessions_end_main(const struct aisb_args *a);
/* --egress (shell/egress.c); returns the exit status. */
int egress_main(const struct aisb_args *a);
/* A sandboxed session (shell/session.c); returns the exit status. */
int session_main(const struct aisb_args *a);

#endif
