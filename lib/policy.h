/*
 * policy.h: the merged aisb policy (aisb.conf(5)).
 *
 * policy_load() checks ownership and mode of each file on the opened fd,
 * parses it with libconfuse under an empty environment, validates every
 * value, merges /etc/aisb/aisb.conf with /etc/aisb/users.d/USER.conf
 * (scalars override, lists replace, "+=" appends) and expands %u and %h.
 *
 * This is library code: it is linked into pam_aisb.so, so it never
 * exits, prints or touches signal dispositions.  Errors are collected
 * in a struct policy_errs, each "FILE:LINE: KEY: message".
 */
#ifndef AISB_POLICY_H
#define AISB_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define AISB_CONF_PATH "/etc/aisb/aisb.conf"

/* Hard limits on what a policy may contain (bounded memory). */
#define POLICY_MAX_FILE (1024 * 1024) /* bytes per config file */
#define POLICY_MAX_LIST 1024 /* entries per list */
#define POLICY_MAX_STR 4096 /* bytes per string value */

enum aisb_netmode { AISB_NET_GATED = 0, AISB_NET_NONE = 1 };
enum aisb_enforce { AISB_ENFORCE_STRICT = 0, AISB_ENFORCE_BEST_EFFORT = 1 };
/* limits.notices: where the line about unenforced limits may go. */
enum aisb_notices {
	AISB_NOTICES_TERMINAL = 0, /* stderr only when it is a terminal */
	AISB_NOTICES_ALWAYS = 1,
	AISB_NOTICES_NEVER = 2,
};
/* filesystem.view: the system set only, or every top-level entry. */
enum aisb_view { AISB_VIEW_SYSTEM = 0, AISB_VIEW_WHOLE_ROOT = 1 };

struct aisb_strv {
	char **v;
	size_t n;
};

/* One network.allow or network.deny entry, canonical (see hostpat.h). */
struct aisb_hostrule {
	char *host; /* "api.example.org" or "*.example.org" */
	uint16_t *ports; /* nports == 0: network.ports applies */
	size_t nports;
	char *src; /* "FILE:LINE" the entry came from */
};

struct aisb_cidr {
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* network order, host bits zero */
	unsigned prefix;
};

struct aisb_secret {
	char *name; /* environment name */
	char *file; /* absolute path, %u/%h expanded */
};

/* Bounds of the credential sections (aisb.conf(5), credential). */
#define POLICY_MAX_CREDS 16 /* credential sections */
#define POLICY_CRED_MAX 4096 /* bytes of one credential's value */
#define POLICY_CRED_PORT 443 /* hosts entries that name no port */

/*
 * One credential NAME { ... } section: a value the gate adds to
 * requests bound for hosts, in header; inside, env holds a placeholder.
 */
struct aisb_credential {
	char *name; /* the section's title */
	char *file; /* absolute path, %u/%h expanded */
	struct aisb_hostrule *hosts; /* nports == 0: POLICY_CRED_PORT */
	size_t nhosts;
	char *header; /* canonical: "NAME" or "NAME: FORMAT" */
	char *hname; /* the header's name, as written */
	/*
	 * The header's value with one "%s" for the credential: "%s" for a
	 * bare header; basic: the text after "Basic ", sent base64-encoded.
	 */
	char *format;
	bool basic;
	char *env; /* the variable that holds the placeholder inside */
	char *src; /* "FILE:LINE" of the section */
};

struct aisb_policy {
	char *user; /* the user the policy was merged for */
	char *shell; /* inner shell; SHELL inside */
	char *hostname; /* uts name inside, default "aisb" */
	struct aisb_strv agents; /* "name" or "@group" */

	struct {
		char *path; /* absolute, expanded */
		struct aisb_strv roots;
		char *target; /* default "/project" */
		bool readonly;
		struct aisb_strv protect; /* relative to the project */
	} project;

	struct {
		char *path; /* absolute, expanded; NULL if tmpfs */
		bool tmpfs;
	} home;

	struct {
		char *root; /* default "/" */
		enum aisb_view view; /* default AISB_VIEW_SYSTEM */
		struct aisb_strv hide; /* absolute paths or globs */
		struct aisb_strv readonly;
		struct aisb_strv readwrite;
		uint64_t tmp_size; /* bytes */
	} fs;

	struct {
		struct aisb_strv pass; /* names or globs ("LC_*") */
		struct aisb_strv set; /* "NAME=value" */
		struct aisb_secret *secrets;
		size_t nsecrets;
	} env;

	struct {
		enum aisb_netmode mode;
		struct aisb_hostrule *allow;
		size_t nallow;
		struct aisb_hostrule *deny;
		size_t ndeny;
		struct aisb_cidr *allow_cidr;
		size_t nallow_cidr;
		uint16_t *ports; /* default ports for allow entries */
		size_t nports;
		bool transparent; /* nft capture of 198.18.0.0/15 */
		bool notices; /* refusals on the session's stderr */
		char *resolver; /* "" = host resolver; else "ADDR[:PORT]" */
		uint16_t proxy_port; /* default 3128 */
		/* distinct names a session may use below each "*." allow
		 * entry (0 = no bound) */
		uint32_t suffix_names;
		/* "" or a root-owned PEM bundle the gate also trusts */
		char *ca_file;
		/*
		 * Added by the policy part: network.resolver parsed.
		 * resolver_family is 0 when resolver is "" (host
		 * resolver), else AF_INET or AF_INET6 with the address
		 * in network order and the port (default 53).  The
		 * string form is "A.B.C.D[:PORT]" or "[V6][:PORT]".
		 */
		int resolver_family;
		uint8_t resolver_addr[16];
		uint16_t resolver_port;
	} net;

	struct aisb_credential *creds;
	size_t ncreds;

	struct {
		uint64_t memory; /* bytes, 0 = no limit */
		uint64_t pids; /* 0 = no limit */
		unsigned cpu; /* percent of one core, 0 = no limit */
		uint64_t nofile; /* 0 = inherit */
		uint64_t fsize; /* bytes, 0 = no limit */
		uint64_t timeout; /* seconds, 0 = none */
		enum aisb_enforce enforce;
		enum aisb_notices notices;
	} limits;
	struct {
		bool filter; /* escape sequences to the caller's terminal */
	} terminal;

	struct {
		struct aisb_strv services;
	} pam;

	char hash[65]; /* sha256 hex of the merged policy (stable) */

	/* Added by the policy part: where each value came from, and the
	 * files read, for policy_origin() and policy_print().  Opaque. */
	struct policy_prov *prov;
};

/* Error list: every error of every file, in order. */
struct policy_errs {
	char **msg; /* "FILE:LINE: KEY: text" or "FILE: text" */
	size_t n;
};

struct policy_opts {
	const char *user; /* user name for %u and users.d/USER.conf */
	const char *home; /* passwd home for %h */
	/*
	 * NULL: AISB_CONF_PATH.  Else --config FILE, an absolute path.
	 * Either way the user's file is DIR/users.d/USER.conf beside it
	 * (DIR = the directory of the file): policy_load() derives that
	 * directory and refuses a relative path; no caller names it.
	 */
	const char *conf_path;
	bool system_only; /* the config file alone, no users.d file */
	/*
	 * --config FILE: the file (and its directories) may also be owned
	 * by this uid instead of root.  (uid_t)-1 means root only.
	 */
	uid_t trusted_uid;
};

/*
 * Load and merge.  On success returns 0 and sets *ret.  On failure
 * returns -EINVAL (policy invalid or unsafe: exit 78) or another
 * -errno, and fills errs (which the caller frees with policy_errs_free).
 */
int policy_load(const struct policy_opts *opts, struct aisb_policy **ret,
    struct policy_errs *errs);
void policy_free(struct aisb_policy *p);
void policy_errs_free(struct policy_errs *errs);

/*
 * Where a value came from: "FILE:LINE" or "default".  key is the
 * dotted name as in aisb.conf(5), e.g. "network.allow".
 */
const char *policy_origin(const struct aisb_policy *p, const char *key);

/*
 * Write the merged policy, with the origin of each value, to fd.
 * json: one JSON object (see aisb-shell(8)).
 */
int policy_print(const struct aisb_policy *p, int fd, bool json);

/*
 * Open a file the policy names and that must be as safe as the policy
 * itself (a credential, network.ca_file): the trust checks of
 * policy_load (every directory from / down and the file owned by root
 * and not writable by group or other, no symlink, a regular file), on
 * the opened fd.  *ret_fd is O_RDONLY|O_CLOEXEC; the caller reads (and
 * checks what else it needs on the fd).  0 or -errno, with the reason in
 * errs as "PATH: text".
 */
int policy_open_trusted(
    const char *path, int *ret_fd, struct policy_errs *errs);

/* Every key the parser knows, dotted, NULL-terminated (for doc tests). */
extern const char *const policy_keys[];

/* Does user (with its groups) match the agents list? */
bool policy_is_agent(const struct aisb_policy *p, const char *user);

#endif
