/*
 * gate.h: aisb-gate internals shared between the gate/ sources.
 *
 * The gate is one single-threaded process: an edge-triggered epoll loop
 * (loop.c) serving the HTTP proxy and the capture port (conn.c: one
 * connection's life; relay.c: moving its bytes), the DNS stub (stub.c),
 * its own resolver client (resolv.c), all deciding through decide.c and
 * writing every decision through record.c.  The parsers (http.c, dns.c)
 * are pure functions on bounded buffers so that the fuzz targets can
 * drive them directly.
 */
#ifndef AISB_GATE_H
#define AISB_GATE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "hostpat.h"
#include "policy.h"

/* Bounds (docs/architecture.md, "The gate"). */
#define GATE_MAX_CONNS 1024 /* concurrent proxied connections */
/*
 * A tunnel holds 6 descriptors (client, origin, two pipes): 1024 of them
 * need 6144, plus the listeners, the DNS clients and the resolver.
 */
#define GATE_CONN_FDS 6
#define GATE_FDS_RESERVED 256
#define GATE_NOFILE 8192 /* RLIMIT_NOFILE */
/*
 * Bulk transfers: a relay direction that has carried GATE_BULK_AFTER
 * bytes gets a GATE_BULK_PIPE pipe (fewer splices and wake-ups per
 * byte: docs/performance.md), at most GATE_BULK_PIPES at once gate-wide,
 * and gives it back after GATE_BULK_IDLE_MS without traffic.  Pipe
 * memory is charged to the agent's uid (fs.pipe-user-pages-soft, 16384
 * pages by default); these 4 x 256 pages stay far below it.
 */
#define GATE_BULK_AFTER (1u << 20)
#define GATE_BULK_PIPE (1 << 20)
#define GATE_BULK_PIPES 4
#define GATE_BULK_IDLE_MS 2000
/*
 * A relay's pipes are made when bytes come and closed after
 * GATE_PIPE_IDLE_MS without any (gate/relay.c relay_pipe): an idle tunnel
 * holds its two sockets only.  Quiet is checked every GATE_SWEEP_MS.
 */
#define GATE_PIPE_IDLE_MS 10000
#define GATE_SWEEP_MS 500
#define GATE_MAX_ADDRS 8 /* resolved addresses kept per name */
#define GATE_MAX_DNS_TCP 32 /* concurrent DNS-over-TCP clients */
#define GATE_SYNTH_MAX 16384 /* names with a synthetic address */
#define GATE_CACHE_MAX 1024 /* resolver cache entries */
#define GATE_CACHE_TTL_MAX 300 /* seconds */
#define GATE_RESOLVE_MS 5000 /* whole lookup */
#define GATE_CONNECT_MS 10000 /* per address */
#define GATE_HEAD_MS 30000 /* first request head */
#define GATE_IDLE_MS 120000 /* keep-alive idle between requests */
#define GATE_EGRESS_MAX 2048 /* names and ports in the egress record */
#define GATE_REC_FD 4 /* the egress record's socket to aisb-shell */
/* The session's fallback log file, only when no syslog receiver listens
 * (shell/slog.h): opened O_APPEND by aisb-shell, written, never opened. */
#define GATE_LOG_FD 5

/* --- http.c: request heads and request bodies (RFC 9112) --- */

#define HTTP_HEAD_MAX 16384
#define HTTP_LINES_MAX 100

struct http_req {
	char method[16];
	bool connect; /* CONNECT host:port */
	char host[HOST_MAX + 3]; /* as written (may be "[v6]") */
	uint16_t port;
	int minor; /* HTTP/1.minor */
	size_t path_off, path_len; /* origin-form target in the head */
	bool has_host; /* a Host header was present */
	bool chunked;
	bool has_clen;
	uint64_t clen;
	size_t hdr_off; /* first header line */
	size_t head_len; /* through the empty line */
	/* http_parse_origin_head only: */
	bool origin; /* parsed as a request to an origin */
	bool absolute; /* the target was "https://host/..." */
	bool upgrade; /* an Upgrade header: the protocol changes after */
};

/*
 * Parse one request head at buf[0..len).  Returns the head length (> 0)
 * when a complete, valid head is there; 0 when more bytes are needed
 * (len < HTTP_HEAD_MAX); -EINVAL when the head is malformed or too big,
 * with *why set to a static sentence for the 400 body.
 */
int http_parse_head(
    const char *buf, size_t len, struct http_req *r, const char **why);

/*
 * The same for a request inside a TLS connection the gate terminates
 * (gate/tls.c), where requests go to the origin itself: the target is
 * origin-form, "*" (OPTIONS) or "https://host/..." (agreeing with Host),
 * never CONNECT; host and port come from the target or from Host
 * (default port 443); HTTP/1.1 needs Host.  The same strictness on
 * bytes, lines, Content-Length and Transfer-Encoding, so that the gate
 * and the origin agree on where each request ends.
 */
int http_parse_origin_head(
    const char *buf, size_t len, struct http_req *r, const char **why);

/*
 * Write the head as it goes to the origin: origin-form request line,
 * the client's headers without the dropped ones, Host added when it was
 * missing.  Returns bytes written or -ENOSPC.
 */
int http_rewrite_head(
    const char *buf, const struct http_req *r, char *out, size_t outlen);

/* Split "host:port" / "[v6]:port" (port required when need_port). */
int http_split_authority(const char *s, size_t len, char *host, size_t hostlen,
    uint16_t *port, bool need_port);

/* Request body framing, fed the bytes that follow a head. */
enum http_body_state {
	HB_DONE = 0,
	HB_CLEN,
	HB_CSIZE,
	HB_CEXT,
	HB_CSIZE_LF,
	HB_CDATA,
	HB_CDATA_CR,
	HB_CDATA_LF,
	HB_TRAILER,
	HB_TRAILER_LF,
	HB_TLINE,
	HB_TLINE_LF,
};

struct http_body {
	enum http_body_state st;
	uint64_t remain; /* content-length or chunk bytes left */
	unsigned ndigits;
	unsigned linelen;
};

void http_body_start(struct http_body *b, const struct http_req *r);
/*
 * Consume up to n bytes of body; returns how many belong to this body
 * (forward them verbatim), or -EINVAL on bad chunk framing.  The body
 * is complete when b->st == HB_DONE.
 */
ssize_t http_body_feed(struct http_body *b, const char *p, size_t n);

/*
 * --- inject.c: a request head inside a terminated TLS connection ---
 *
 * What inject_head needs of one credential (tls.c builds these from
 * vault.c for each connection).  ph_hdr is the header's whole value
 * with the placeholder ("Bearer PH", "Basic base64(user:PH)", "PH"),
 * val_hdr the same with the real value; the first ci_len bytes (the
 * scheme word and its space) are compared without regard to case.
 */
struct inject_cred {
	const char *name; /* credential.NAME */
	const char *hname; /* the header's name */
	const char *ph; /* the bare placeholder */
	size_t ph_raw;
	const char *ph_hdr, *val_hdr;
	size_t ph_len, val_len, ci_len;
	bool basic; /* the placeholder appears base64-encoded */
	bool here; /* the credential's hosts include the target */
};

struct inject_target {
	const char *host; /* canonical name of the connection */
	uint16_t port;
	const struct inject_cred *creds; /* at most 32 */
	size_t ncreds;
};

enum { INJ_MORE, INJ_OK, INJ_BAD, INJ_MISDIRECTED };

struct inject_result {
	struct http_req req; /* the head's framing (http_body_start) */
	size_t head_len, out_len;
	/* Bit i: credential i.  seen: its placeholder is in the head;
	 * injected: its header was replaced; misplaced: its placeholder is
	 * elsewhere too (left as it is); foreign: its placeholder, for a
	 * host not in its hosts (left as it is: a denied use). */
	unsigned seen, hdr_seen, injected, misplaced, foreign;
	const char *why; /* INJ_BAD, INJ_MISDIRECTED */
};

/*
 * Parse the head at buf[0..len) and write it to out (outlen bytes) with
 * the placeholders of t's credentials for this host replaced in their
 * headers.  INJ_MORE: incomplete; INJ_OK: res filled, out[0..out_len)
 * goes to the origin; INJ_BAD: a 400 (res->why), also when out is too
 * small or a credential's header comes twice; INJ_MISDIRECTED: the
 * head names another host or port (a 421).
 */
int inject_head(const struct inject_target *t, const char *buf, size_t len,
    char *out, size_t outlen, struct inject_result *res);
/* Which credentials' placeholders occur in buf[0..len) (bit i). */
unsigned inject_scan(
    const struct inject_target *t, const char *buf, size_t len);

/* --- dns.c: DNS messages (RFC 1035), bounded --- */

#define DNS_NAME_MAX 255
#define DNS_T_A 1
#define DNS_T_CNAME 5
#define DNS_T_AAAA 28
#define DNS_C_IN 1
#define DNS_R_NOERROR 0
#define DNS_R_FORMERR 1
#define DNS_R_SERVFAIL 2
#define DNS_R_NXDOMAIN 3
#define DNS_R_NOTIMP 4
#define DNS_R_REFUSED 5

struct dns_query {
	uint16_t id;
	uint16_t flags;
	uint16_t qtype, qclass;
	char name[DNS_NAME_MAX + 1]; /* dotted, no trailing dot */
	bool name_ok; /* only LDH/underscore labels */
	size_t qend; /* end of the question section */
	int rcode; /* on error: what to answer */
};

/*
 * Parse a query.  0: ok.  -EINVAL: answer with q->rcode when q->qend
 * is set (header and question readable), else drop.  No compression
 * pointers, exactly one question.
 */
int dns_parse_query(const uint8_t *p, size_t n, struct dns_query *q);

/*
 * Build a reply to query p (whose question ends at q->qend) into out.
 * addr4: NULL or 4 bytes for one A record.  Returns length or -ENOSPC.
 */
int dns_build_reply(const uint8_t *p, const struct dns_query *q, int rcode,
    const uint8_t *addr4, uint32_t ttl, uint8_t *out, size_t outlen);

/* A type's name for records: "A", "AAAA", ..., else "TYPEn" in buf. */
const char *dns_type_name(uint16_t type, char *buf, size_t len);

/* A query for name/type with id (RD set).  Returns length or -EINVAL. */
int dns_build_query(
    const char *name, uint16_t type, uint16_t id, uint8_t *out, size_t outlen);

struct dns_addr {
	int family;
	uint8_t a[16];
};

/*
 * Parse an answer to our query (id, name, type): collect A/AAAA
 * records for name and its CNAME chain into addrs (at most max).
 * Returns the number found (>= 0), with *rcode and *ttl (minimum of
 * the records used); -EINVAL for a malformed or foreign packet;
 * -EAGAIN when truncated (TC).
 */
int dns_parse_answer(const uint8_t *p, size_t n, uint16_t id, const char *name,
    uint16_t type, struct dns_addr *addrs, size_t max, int *rcode,
    uint32_t *ttl);

/* --- decide.c: the one policy decision --- */

enum decision {
	DEC_ALLOW_NAME, /* resolve name, then check addresses */
	DEC_ALLOW_ADDR, /* IP literal covered by allow_cidr */
	DEC_DENY,
};

struct verdict {
	enum decision d;
	char name[HOST_MAX + 1]; /* canonical name (or literal) */
	struct dns_addr addr; /* DEC_ALLOW_ADDR */
	const char *rule; /* X-Aisb-Reason: short rule name */
	char why[768]; /* one sentence for logs and bodies */
};

/* May the proxy or the capture port connect to host:port? */
void decide_target(const struct aisb_policy *p, const char *host, uint16_t port,
    struct verdict *v);
/* May the DNS stub give name (canonical) a synthetic address? */
bool decide_name(
    const struct aisb_policy *p, const char *canon, const char **rule);
/*
 * Is a resolved address usable?  false with *range set when it is in a
 * special-purpose range that allow_cidr does not cover.
 */
bool decide_addr(
    const struct aisb_policy *p, const struct dns_addr *a, const char **range);
void decide_fmt_addr(const struct dns_addr *a, char *buf, size_t len);

/*
 * --- suffix.c: network.suffix_names, the distinct names below each "*."
 * allow entry (index idx of network.allow) per session.  true when name
 * is counted already or can be; always true for an exact entry. ---
 */
bool suffix_admit(const struct aisb_policy *p, size_t idx, const char *name);
void suffix_reset(void);
/* --- vault.c: the credentials' values, in the gate's memory only --- */

struct vault_cred {
	const struct aisb_credential *policy;
	char *ph, *value; /* placeholder and value, NUL-terminated */
	size_t ph_len, value_len;
	const char *ph_hdr, *val_hdr; /* the header's values (inject.c) */
	size_t ph_hdr_len, val_hdr_len, ci_len;
};

/*
 * Before the lockdown: read the session's "cred" messages from ctl, one
 * per credential of p (waits at most 10 s for each).  0 or -errno
 * (logged; never a value).
 */
int vault_recv(int ctl, const struct aisb_policy *p);
size_t vault_count(void);
const struct vault_cred *vault_get(size_t i);
/* May v be sent to name:port (canonical name)? */
bool vault_for(const struct vault_cred *v, const char *name, uint16_t port);
/* Does any credential go to name:port: is its TLS terminated? */
bool vault_terminates(const char *name, uint16_t port);
/*
 * What inject_head needs for a connection to name:port (NULL: none, as
 * for a plain HTTP request): out has room for vault_count() entries.
 */
void vault_target(const char *name, uint16_t port, struct inject_cred *out);
/* How much longer a head can get when every header is replaced. */
size_t vault_growth(void);
/* At exit: wipe and unmap. */
void vault_wipe(void);

/* --- synth.c: the session's name <-> synthetic address table --- */

int synth_lookup_name(const char *canon, uint32_t *addr); /* host order */
int synth_assign(const char *canon, uint32_t *addr);
const char *synth_name(uint32_t addr);
void synth_reset(void);

/* --- the running gate (loop.c, conn.c, stub.c, resolv.c) --- */

enum gate_sock { GS_PROXY, GS_DNS_UDP, GS_DNS_TCP, GS_CAPTURE, GS_COUNT };

#define GATE_MAX_NS 3 /* upstream nameservers (glibc's MAXNS) */

struct gate_opts {
	const struct aisb_policy *policy;
	/* network.resolver, or resolv.conf's nameservers: tried in order */
	struct sockaddr_storage resolver[GATE_MAX_NS];
	socklen_t resolver_len[GATE_MAX_NS];
	size_t nresolver; /* 1..GATE_MAX_NS */
	bool log_stderr; /* decision records also on stderr (tests) */
	int ctl_fd; /* fd 3 */
	int sig_fd; /* signalfd: SIGTERM ends the gate cleanly */
};

/* Event sources: epoll_event.data.ptr points at one of these. */
enum ev_kind {
	EV_LISTEN_PROXY,
	EV_LISTEN_CAPTURE,
	EV_LISTEN_DNS_TCP,
	EV_DNS_UDP,
	EV_DNS_TCP,
	EV_CLIENT,
	EV_UPSTREAM,
	EV_RESOLV,
	EV_RESOLV_TCP,
	EV_CTL,
	EV_SIGNAL,
};

struct ev {
	enum ev_kind kind;
	void *obj;
};

/* loop.c */
int loop_run(const struct gate_opts *o, int socks[GS_COUNT]);
int loop_add(int fd, uint32_t events, struct ev *ev);
void loop_del(int fd);
uint64_t loop_now(void); /* monotonic ms */
const struct gate_opts *loop_opts(void);

/*
 * record.c: the gate's records, the one place they are written: the
 * journal or syslog (authpriv.info), and stderr when asked.  Each call
 * is one decision with what it is about; connection and DNS records are
 * rate limited.
 * record_open connects to journald (where it runs) and /dev/log, and
 * names the session and user of every record; call it before the
 * lockdown.
 */
struct record_conn {
	const char *kind; /* "proxy" or "capture" */
	const char *name; /* the target's name (or literal) */
	unsigned port;
	const char *addr; /* the origin's address, once connected */
};

void record_open(bool log_stderr, const char *session, const char *user);
void record_ready(
    const char *session, const char *user, size_t nallow, size_t ndeny);
void record_allow(const struct record_conn *s, const char *why, bool again);
void record_deny(
    const struct record_conn *s, const char *rule, const char *why);
/* A capture whose original destination cannot be read (errno err). */
void record_deny_nodst(int err);
/* One resolved address in a special-purpose range, not used. */
void record_refuse(
    const struct record_conn *s, const char *addr, const char *range);
void record_unreachable(const struct record_conn *s, const char *why);
void record_close(const struct record_conn *s, unsigned long long up,
    unsigned long long down, uint64_t ms);
/* A failure of the gate's own (what, errno err) that ends a connection. */
void record_error(const struct record_conn *s, const char *what, int err);
/* name: NULL before a request named its target. */
void record_bad_request(const char *kind, const char *name, const char *why);
/* A "*." allow entry reached network.suffix_names (once per entry). */
void record_suffix_bound(const char *entry, const char *src, unsigned limit);
/* The connection limit refuses one (at most one record a second). */
void record_refusing(size_t open, size_t limit);
/* A credential added to a request (its header named, never its value). */
void record_inject(
    const struct record_conn *s, const char *cred, const char *header);
/* A credential's placeholder where it does not belong (not replaced). */
void record_cred_misuse(
    const struct record_conn *s, const char *cred, const char *why);
/* A terminated connection whose TLS with the client failed. */
void record_tls_client(const struct record_conn *s, const char *why);
/* One DNS query and its answer; synth: the address given, or 0. */
void record_dns(const char *proto, const char *name, uint16_t type,
    const char *decision, uint32_t synth);

/*
 * egress.c: the session's egress record (per name and port: times,
 * counts, rule, bytes) and its notices, sent to aisb-shell over fd
 * GATE_REC_FD; fed by record.c.  egress_open before the lockdown (fd
 * -1: no record); egress_tick from the loop; egress_finish at exit
 * sends what is left (waiting at most 2 s per message) and frees all.
 */
void egress_open(int fd, bool notices);
void egress_allow(const struct record_conn *s, const char *why, bool again);
void egress_deny(
    const struct record_conn *s, const char *rule, const char *why);
void egress_unreachable(const struct record_conn *s, const char *why);
void egress_close(const struct record_conn *s, unsigned long long up,
    unsigned long long down);
/* A DNS query for qname, answered (allowed) or refused; p may be NULL. */
void egress_dns(const struct aisb_policy *p, const char *qname, bool allowed);
void egress_tick(uint64_t now);
void egress_finish(void);

/* --- relay.c: a connection's bytes, moved without being looked at --- */

/*
 * One socket of a relayed connection, as edge-triggered epoll sees it.
 * dry: a read returned EAGAIN, full: a write could not take everything,
 * since the socket's last event.  New data or new room brings a new
 * event, which clears them (relay_sock_event); until then calling again
 * would only return EAGAIN.  conn.c reads and writes the same sockets
 * itself (request heads, error responses) and keeps the flags up to date.
 */
struct relay_sock {
	int fd;
	bool eof; /* a read returned 0 */
	bool dry, full;
	bool shut; /* our write side is shut down */
};

/*
 * One direction, src -> pipe -> dst, by splice(): bytes the gate never
 * sees.  A relay that must see them (terminating TLS, adding a
 * credential) would be a second set of functions over the same
 * relay_sock pair, chosen by conn.c when the origin is connected.
 */
struct relay_dir {
	struct relay_sock *src, *dst;
	int pipe[2]; /* -1 while no bytes flow */
	size_t inpipe; /* bytes in the pipe */
	unsigned long long bytes; /* carried to dst, with conn.c's own */
	bool big; /* holds a GATE_BULK_PIPE pipe */
};

void relay_sock_init(struct relay_sock *s, int fd);
void relay_sock_close(struct relay_sock *s); /* and forget its state */
void relay_sock_event(struct relay_sock *s, uint32_t events);
void relay_shut(struct relay_sock *s); /* shutdown(SHUT_WR), once */
void relay_dir_init(
    struct relay_dir *d, struct relay_sock *src, struct relay_sock *dst);
void relay_dir_close(struct relay_dir *d); /* the pipe, if any */
/* Make the pipe when the source may have bytes; -errno if none can be. */
int relay_pipe(struct relay_dir *d);
/* Move until neither side can (0), or -errno on a hard error. */
int relay_move(struct relay_dir *d, bool *progress);
/* The source has ended and everything it sent has gone on. */
bool relay_drained(const struct relay_dir *d);
/* Nothing moved for quiet ms: shrink, then close, an empty pipe. */
void relay_idle(struct relay_dir *d, uint64_t quiet);

/*
 * --- ca.c: the session's certificate authority (with credentials) ---
 * ca_init before the lockdown: the CA's key and certificate (name
 * constraints: the credentials' hosts), a key for the leaves.  ca_pem:
 * the certificate in PEM into buf, with its subject hash; the length or
 * -errno.  ca_leaf: the certificate for name (made on first use, kept),
 * owned by ca.c.  ca_reset at exit: every key freed (and wiped).
 */
typedef struct x509_st X509;
typedef struct evp_pkey_st EVP_PKEY;
int ca_init(const struct aisb_policy *p, const char *session);
int ca_pem(char *buf, size_t len, char hash[9]);
int ca_leaf(const char *name, X509 **ret_cert, EVP_PKEY **ret_key);
void ca_reset(void);

/*
 * --- tls.c: the connections the gate terminates TLS for ---
 * tls_init before the lockdown (OpenSSL, the trust bundle and
 * network.ca_file in memory).  tls_new for a connection to name:port
 * whose origin socket ufd is connected (proxy: the 200 line is sent
 * once the origin's TLS is up).  tls_step drives it on every event of
 * either socket, counting plaintext up and down.
 */
enum {
	TLS_WAIT = 0, /* nothing more until an event */
	TLS_CLOSED = 1, /* both sides ended: close */
	TLS_EUPSTREAM = -1, /* the origin's TLS failed (tls_why); the
	                     * client has seen nothing yet */
	TLS_ECLIENT = -2, /* the client's TLS failed (tls_why) */
	TLS_EIO = -3, /* a connection broke */
};
struct tls;
int tls_init(const struct aisb_policy *p);
struct tls *tls_new(
    const char *name, uint16_t port, bool proxy, int cfd, int ufd);
int tls_step(struct tls *t, struct relay_sock *cs, struct relay_sock *us,
    const struct record_conn *subj, unsigned long long *up,
    unsigned long long *down, bool *progress);
const char *tls_why(const struct tls *t);
bool tls_relaying(const struct tls *t); /* both handshakes are done */
void tls_free(struct tls *t);
void tls_reset(void);

/* conn.c */
struct conn;
void conn_accept(int lfd, bool capture);
void conn_event(struct conn *c, bool upstream, uint32_t events);
void conn_resolved(
    struct conn *c, const struct dns_addr *addrs, size_t n, const char *err);
void conn_tick(uint64_t now);
size_t conn_count(void);
/* Connections relaying now, and the bytes they have carried so far. */
void conn_totals(
    size_t *open, unsigned long long *up, unsigned long long *down);
/*
 * Lower the connection limit to what nofile descriptors can hold, so
 * that a connection is refused at accept rather than failing halfway
 * (out of pipes) when the hard RLIMIT_NOFILE is below GATE_NOFILE.
 * Returns the limit.
 */
size_t conn_set_nofile(unsigned long nofile); /* the new limit */
void conn_close_all(void);

/* stub.c */
void stub_udp_event(int fd);
void stub_tcp_accept(int lfd);
void stub_tcp_event(void *obj, uint32_t events);
void stub_tick(uint64_t now);
void stub_close_all(void);
/* Pure: answer one query (also the fuzz target's entry). */
int stub_answer(const struct aisb_policy *p, const uint8_t *q, size_t n,
    uint8_t *out, size_t outlen);

/*
 * resolv.c: one lookup per connection, cached for the records' TTL.
 * A lookup that ends without an address says why; these two mean the
 * name does not resolve (egress.c tells the session so).
 */
#define RESOLV_NXDOMAIN "the name does not exist (NXDOMAIN)"
#define RESOLV_NODATA "the name has no address"
struct resolv;
/*
 * 0: answered from the cache (addrs, *n filled); 1: pending, *ret set,
 * conn_resolved() follows from the loop; -errno on failure.
 */
int resolv_start(struct conn *c, const char *name, struct dns_addr *addrs,
    size_t *n, struct resolv **ret);
/* c no longer waits; the lookup stops when nobody does. */
void resolv_cancel(struct resolv *r, struct conn *c);
void resolv_event(struct resolv *r, bool tcp, uint32_t events);
/* Retransmits, timeouts, and freeing finished lookups. */
void resolv_tick(uint64_t now);
/* At exit: cancel lookups, free them and the cache. */
void resolv_reset(void);
/*
 * The upstream servers: override (network.resolver, ADDR[:PORT]) when
 * set, else the first GATE_MAX_NS nameserver addresses of text
 * (resolv.conf), else 127.0.0.1.  Returns how many (>= 1) or -EINVAL.
 */
int resolv_parse_conf(const char *text, const char *override,
    struct sockaddr_storage ss[GATE_MAX_NS], socklen_t len[GATE_MAX_NS]);

/* harden.c */
int harden_early(void);
int harden_lockdown(void);
#ifdef AISB_GATE_TEST
/*
 * Test builds only (tests/helpers/aisb-gate-test, never installed): the
 * lockdown without the seccomp allowlist, for running under valgrind.
 */
int harden_lockdown_no_seccomp(void);
#endif

#endif
