/*
 * tls.c: the connections the gate terminates TLS for, the ones to a
 * credential's hosts (gate/vault.c, vault_terminates), from the proxy's
 * CONNECT and from the capture port alike.  Every other connection
 * stays a splice() tunnel (relay.c) whose bytes the gate never sees.
 *
 * OpenSSL 3 (Debian's libssl3), set up before the lockdown (tls_init):
 * no configuration file is read (the host's openssl.cnf does not change
 * what the gate accepts), TLS 1.2 at least, security level 2, no
 * renegotiation.  The origin is verified against the system trust
 * bundle (the first of AISB_CA_BUNDLES that exists) and
 * network.ca_file, both read into memory before the lockdown, with its
 * name (SNI and the certificate's names, SSL_set1_host); a certificate
 * that does not verify refuses the connection with the reason (a 502
 * on the proxy, before the client's TLS begins; a reset on the capture
 * port).  The client is shown a certificate for the connection's name
 * from the session CA (gate/ca.c).  ALPN offers and accepts only
 * http/1.1 on both sides: a client that offers only h2 fails its
 * handshake, it is never served something else.
 *
 * Then HTTP/1.1 both ways.  Client to origin, each request head goes
 * through inject_head (the credentials' headers replaced, Host checked)
 * and its body is framed (http.c) only to find the next head; after an
 * Upgrade the bytes pass as they are.  Origin to client, bytes are
 * passed on as each TLS record arrives (no buffering of a response:
 * server-sent events flow as they come).  A request the gate refuses
 * (malformed, another host) is answered inside TLS, once the responses
 * to the requests before it are through: the origin's side is closed
 * first and drained, as ST_DRAIN does for plain HTTP.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "aisb.h"
#include "gate.h"
#include "log.h"
#include "util.h"

#define TLS_BUF 16384 /* one TLS record of plaintext */
#define TLS_BUNDLE_MAX (8 << 20)

/* process() copies a body's bytes from rbuf to wbuf whole. */
_Static_assert(TLS_BUF <= HTTP_HEAD_MAX, "wbuf must take a full rbuf");

enum tls_phase { TP_UP_HS, TP_SEND_200, TP_CL_HS, TP_RELAY };
enum tls_req { TR_HEAD, TR_BODY, TR_RAW, TR_STOP };

struct tls {
	SSL *up, *cl;
	enum tls_phase ph;
	enum tls_req rq;
	size_t off200; /* of the 200 line sent (proxy) */
	unsigned long nreq; /* requests sent on */
	/* Client to origin: plaintext in, head rewritten or body out. */
	char *rbuf, *wbuf;
	size_t rlen, woff, wlen, wcap;
	struct http_body body;
	/* Origin to client. */
	char *dbuf;
	size_t doff, dlen;
	/* A refusal for the client, once the origin is done. */
	const char *err_rule;
	int err_code;
	bool proxy;
	bool raw_after; /* the request had Upgrade */
	bool wipe; /* wbuf holds a credential's value */
	bool cl_eof, up_shut; /* client to origin: ends */
	bool up_eof, cl_shut; /* origin to client: ends */
	char err_why[160];
	struct inject_cred *ic;
	struct inject_target tgt;
	char name[HOST_MAX + 1];
	char why[300];
};

static SSL_CTX *srv_ctx, *cli_ctx;

/* ---- set-up, before the lockdown ------------------------------------ */

/* Add every certificate of the PEM text b (n bytes) to store. */
static int
add_pem(X509_STORE *store, const char *b, size_t n, size_t *count)
{
	BIO *bio = BIO_new_mem_buf(b, (int)n);
	X509 *x;

	if (bio == NULL)
		return -ENOMEM;
	while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
		if (X509_STORE_add_cert(store, x))
			(*count)++;
		X509_free(x);
	}
	ERR_clear_error(); /* the end of the text reads as an error */
	BIO_free(bio);
	return 0;
}

static int
read_fd(int fd, const char *path, char **ret, size_t *ret_len)
{
	struct stat st;
	char *b;
	size_t n = 0;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size > TLS_BUNDLE_MAX) {
		log_err(
		    "aisb-gate: %s: not a regular file of at most 8 MiB", path);
		return -EINVAL;
	}
	b = malloc((size_t)st.st_size + 1);
	if (b == NULL)
		return -ENOMEM;
	while (n < (size_t)st.st_size) {
		ssize_t k = read(fd, b + n, (size_t)st.st_size - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	*ret = b;
	*ret_len = n;
	return 0;
}

/*
 * The origins' trust: the system bundle and network.ca_file (which must
 * be as safe as the policy: policy_open_trusted).  Without either, no
 * origin verifies and every terminated connection is refused.
 */
static int
load_trust(const struct aisb_policy *p, X509_STORE *store)
{
	static const char *const bundles[] = {AISB_CA_BUNDLES};
	size_t count = 0, n = 0;
	char path[128], *b = NULL;
	int r;

	for (size_t i = 0; i < ELEMENTSOF(bundles); i++) {
		_cleanup_close_ int fd = -1;

		snprintf(path, sizeof(path), "/etc/%s", bundles[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd < 0)
			continue;
		if (read_fd(fd, path, &b, &n) == 0) {
			r = add_pem(store, b, n, &count);
			free(b);
			b = NULL;
			if (r < 0)
				return r;
		}
		break;
	}
	if (p->net.ca_file != NULL && p->net.ca_file[0] != '\0') {
		struct policy_errs errs = {0};
		_cleanup_close_ int fd = -1;
		size_t before = count;

		r = policy_open_trusted(p->net.ca_file, &fd, &errs);
		if (r < 0) {
			log_err("%s: network.ca_file: %s",
			    policy_origin(p, "network.ca_file"),
			    errs.n ? errs.msg[0] : strerror(-r));
			policy_errs_free(&errs);
			return -EINVAL;
		}
		if ((r = read_fd(fd, p->net.ca_file, &b, &n)) < 0)
			return r;
		r = add_pem(store, b, n, &count);
		free(b);
		b = NULL;
		if (r < 0)
			return r;
		if (count == before) {
			log_err("%s: network.ca_file: %s holds no PEM "
			        "certificate",
			    policy_origin(p, "network.ca_file"),
			    p->net.ca_file);
			return -EINVAL;
		}
	}
	if (count == 0)
		log_warn("aisb-gate: no trusted certificate authorities (no "
		         "system bundle, no network.ca_file): the credentials' "
		         "hosts cannot be reached");
	return 0;
}

static int
alpn_select(SSL *s, const unsigned char **out, unsigned char *outlen,
    const unsigned char *in, unsigned int inlen, void *arg)
{
	static const unsigned char h11[] = "http/1.1";
	unsigned int i = 0;

	(void)s;
	(void)arg;
	while (i < inlen) {
		unsigned int l = in[i];

		if (i + 1 + l > inlen)
			break;
		if (l == 8 && memcmp(in + i + 1, h11, 8) == 0) {
			*out = in + i + 1;
			*outlen = 8;
			return SSL_TLSEXT_ERR_OK;
		}
		i += 1 + l;
	}
	return SSL_TLSEXT_ERR_ALERT_FATAL;
}

static int
common(SSL_CTX *ctx)
{
	SSL_CTX_set_options(ctx,
	    SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF |
	        SSL_OP_NO_COMPRESSION);
	SSL_CTX_set_mode(ctx,
	    SSL_MODE_ENABLE_PARTIAL_WRITE |
	        SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_set_security_level(ctx, 2);
	return SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ? 0 : -EIO;
}

int
tls_init(const struct aisb_policy *p)
{
	static const unsigned char alpn[] = "\x08http/1.1";
	X509_STORE *store;
	int r;

	if (!OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL))
		return -EIO;
	srv_ctx = SSL_CTX_new(TLS_server_method());
	cli_ctx = SSL_CTX_new(TLS_client_method());
	if (srv_ctx == NULL || cli_ctx == NULL || common(srv_ctx) < 0 ||
	    common(cli_ctx) < 0)
		goto fail;
	SSL_CTX_set_alpn_select_cb(srv_ctx, alpn_select, NULL);
	/* No session tickets for clients: nothing to resume across gates. */
	SSL_CTX_set_options(srv_ctx, SSL_OP_NO_TICKET);
	SSL_CTX_set_num_tickets(srv_ctx, 0);
	SSL_CTX_set_verify(cli_ctx, SSL_VERIFY_PEER, NULL);
	if (SSL_CTX_set_alpn_protos(cli_ctx, alpn, sizeof(alpn) - 1) != 0)
		goto fail;
	store = SSL_CTX_get_cert_store(cli_ctx);
	if ((r = load_trust(p, store)) < 0) {
		tls_reset();
		return r;
	}
	return 0;
fail:
	log_err("aisb-gate: cannot set up TLS (OpenSSL)");
	tls_reset();
	return -EIO;
}

/* ---- one connection -------------------------------------------------- */

struct tls *
tls_new(const char *name, uint16_t port, bool proxy, int cfd, int ufd)
{
	struct tls *t = calloc(1, sizeof(*t));
	X509 *cert;
	EVP_PKEY *key;
	size_t n = vault_count();

	if (t == NULL)
		return NULL;
	snprintf(t->name, sizeof(t->name), "%s", name);
	t->proxy = proxy;
	t->wcap = HTTP_HEAD_MAX + vault_growth() + 64;
	t->rbuf = malloc(TLS_BUF);
	t->wbuf = malloc(t->wcap);
	t->dbuf = malloc(TLS_BUF);
	t->ic = calloc(n ? n : 1, sizeof(*t->ic));
	t->up = SSL_new(cli_ctx);
	t->cl = SSL_new(srv_ctx);
	if (!t->rbuf || !t->wbuf || !t->dbuf || !t->ic || !t->up || !t->cl ||
	    ca_leaf(name, &cert, &key) < 0 ||
	    !SSL_use_certificate(t->cl, cert) ||
	    !SSL_use_PrivateKey(t->cl, key) || !SSL_set_fd(t->up, ufd) ||
	    !SSL_set_fd(t->cl, cfd) || !SSL_set_tlsext_host_name(t->up, name) ||
	    !SSL_set1_host(t->up, name)) {
		ERR_clear_error();
		tls_free(t);
		return NULL;
	}
	SSL_set_connect_state(t->up);
	SSL_set_accept_state(t->cl);
	vault_target(name, port, t->ic);
	t->tgt = (struct inject_target){
	    .host = t->name, .port = port, .creds = t->ic, .ncreds = n};
	return t;
}

void
tls_free(struct tls *t)
{
	if (t == NULL)
		return;
	SSL_free(t->up);
	SSL_free(t->cl);
	if (t->wbuf)
		explicit_bzero(t->wbuf, t->wcap);
	free(t->rbuf);
	free(t->wbuf);
	free(t->dbuf);
	free(t->ic);
	free(t);
}

const char *
tls_why(const struct tls *t)
{
	return t->why;
}

/* The OpenSSL reason for the last failure, for a record. */
static const char *
ossl_reason(void)
{
	unsigned long e = ERR_peek_last_error();
	const char *s = e ? ERR_reason_error_string(e) : NULL;

	return s ? s : "connection closed";
}

enum { IO_OK = 1, IO_WAIT = 0, IO_EOF = -1, IO_ERR = -2 };

static int
io_result(SSL *s, int r)
{
	int e = SSL_get_error(s, r);

	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
		return IO_WAIT;
	if (e == SSL_ERROR_ZERO_RETURN)
		return IO_EOF;
	return IO_ERR;
}

static int
ssl_read(SSL *s, char *b, size_t n, size_t *got)
{
	int r;

	ERR_clear_error();
	r = SSL_read_ex(s, b, n, got);
	return r == 1 ? IO_OK : io_result(s, r);
}

static int
ssl_write(SSL *s, const char *b, size_t n, size_t *put)
{
	int r;

	ERR_clear_error();
	r = SSL_write_ex(s, b, n, put);
	return r == 1 ? IO_OK : io_result(s, r);
}

/* A handshake step: 1 done, 0 wait, -1 failed. */
static int
handshake(SSL *s)
{
	int r;

	ERR_clear_error();
	r = SSL_do_handshake(s);
	if (r == 1)
		return 1;
	return io_result(s, r) == IO_WAIT ? 0 : -1;
}

static void
close_notify(SSL *s, int fd)
{
	ERR_clear_error();
	(void)SSL_shutdown(s);
	ERR_clear_error();
	shutdown(fd, SHUT_WR);
}

/* Queue a refusal for the client (into dbuf: the origin is done). */
static void
answer(struct tls *t)
{
	const char *text =
	    t->err_code == 421 ? "Misdirected Request" : "Bad Request";
	int n = snprintf(t->dbuf, TLS_BUF,
	    "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n"
	    "X-Aisb-Reason: %s\r\n\r\naisb: %s\n",
	    t->err_code, text, sizeof("aisb: \n") - 1 + strlen(t->err_why),
	    t->err_rule, t->err_why);

	t->doff = 0;
	t->dlen = n > 0 && n < TLS_BUF ? (size_t)n : 0;
	t->err_code = 0;
}

/* Refuse the request at the head of rbuf; answered when safe. */
static void
refuse(struct tls *t, const struct record_conn *subj, int code,
    const char *rule, const char *why)
{
	record_bad_request(subj->kind, subj->name, why);
	t->err_code = code;
	t->err_rule = rule;
	snprintf(t->err_why, sizeof(t->err_why), "%s", why);
	t->rq = TR_STOP;
	t->rlen = 0;
	/* Requests sent before: the origin finishes, then the answer
	 * (pump closes the origin's side once nothing is pending). */
}

static void
note(const struct tls *t, const struct record_conn *subj,
    const struct inject_result *res)
{
	for (size_t i = 0; i < t->tgt.ncreds; i++) {
		const struct inject_cred *c = &t->ic[i];
		unsigned bit = 1u << i;

		if (res->injected & bit)
			record_inject(subj, c->name, c->hname);
		if (res->foreign & bit)
			record_cred_misuse(subj, c->name,
			    "its placeholder went to a host not in its hosts, "
			    "not replaced");
		if (res->misplaced & bit)
			record_cred_misuse(subj, c->name,
			    "its placeholder went outside its header, not "
			    "replaced there");
	}
}

/* Turn client bytes in rbuf into bytes for the origin in wbuf. */
static void
process(struct tls *t, const struct record_conn *subj)
{
	struct inject_result res;
	size_t k;
	ssize_t fed;

	switch (t->rq) {
	case TR_HEAD:
		switch (inject_head(
		    &t->tgt, t->rbuf, t->rlen, t->wbuf, t->wcap, &res)) {
		case INJ_MORE:
			return;
		case INJ_BAD:
			refuse(t, subj, 400, "bad-request", res.why);
			return;
		case INJ_MISDIRECTED:
			refuse(t, subj, 421, "credential-host", res.why);
			return;
		default:
			break;
		}
		note(t, subj, &res);
		t->wlen = res.out_len;
		t->woff = 0;
		t->wipe = res.injected != 0;
		memmove(
		    t->rbuf, t->rbuf + res.head_len, t->rlen - res.head_len);
		t->rlen -= res.head_len;
		t->nreq++;
		t->raw_after = res.req.upgrade;
		http_body_start(&t->body, &res.req);
		t->rq = t->body.st != HB_DONE ? TR_BODY
		    : t->raw_after            ? TR_RAW
		                              : TR_HEAD;
		return;
	case TR_BODY:
		fed = http_body_feed(&t->body, t->rbuf, t->rlen);
		if (fed < 0) {
			refuse(t, subj, 400, "bad-request", "bad chunked body");
			return;
		}
		k = (size_t)fed;
		if (t->body.st == HB_DONE)
			t->rq = t->raw_after ? TR_RAW : TR_HEAD;
		break;
	case TR_RAW:
		k = t->rlen;
		break;
	default:
		return;
	}
	memcpy(t->wbuf, t->rbuf, k);
	t->wlen = k;
	t->woff = 0;
	t->wipe = false;
	memmove(t->rbuf, t->rbuf + k, t->rlen - k);
	t->rlen -= k;
}

/* The relay, until neither side can move.  TLS_WAIT, or an end. */
static int
pump(struct tls *t, struct relay_sock *cs, struct relay_sock *us,
    const struct record_conn *subj, unsigned long long *up,
    unsigned long long *down, bool *progress)
{
	for (;;) {
		bool did = false;
		size_t n;
		int r;

		/* Client to origin. */
		if (t->woff < t->wlen) {
			r = ssl_write(
			    t->up, t->wbuf + t->woff, t->wlen - t->woff, &n);
			if (r < IO_WAIT)
				return TLS_EIO;
			if (r == IO_OK) {
				t->woff += n;
				*up += n;
				did = true;
				if (t->woff == t->wlen) {
					if (t->wipe)
						explicit_bzero(
						    t->wbuf, t->wlen);
					t->woff = t->wlen = 0;
				}
			}
		}
		if (t->wlen == 0 && t->rlen > 0 && t->rq != TR_STOP) {
			size_t before = t->rlen;

			process(t, subj);
			did = did || t->rlen != before || t->wlen > 0 ||
			    t->rq == TR_STOP;
		}
		if (!t->cl_eof && t->rq != TR_STOP && t->rlen < TLS_BUF) {
			r = ssl_read(
			    t->cl, t->rbuf + t->rlen, TLS_BUF - t->rlen, &n);
			if (r == IO_ERR)
				return TLS_EIO;
			if (r == IO_OK) {
				t->rlen += n;
				did = true;
			} else if (r == IO_EOF) {
				t->cl_eof = true;
				did = true;
			}
		}
		if (((t->cl_eof && t->rlen == 0) || t->rq == TR_STOP) &&
		    t->wlen == 0 && !t->up_shut) {
			/* Nothing more for the origin: say so. */
			close_notify(t->up, us->fd);
			t->up_shut = true;
			did = true;
		}
		/* A refusal before anything went to the origin: now. */
		if (t->err_code && t->nreq == 0 && t->dlen == t->doff) {
			answer(t);
			t->up_eof = true;
			did = true;
		}
		/* Origin to client. */
		if (t->doff < t->dlen) {
			r = ssl_write(
			    t->cl, t->dbuf + t->doff, t->dlen - t->doff, &n);
			if (r < IO_WAIT)
				return TLS_EIO;
			if (r == IO_OK) {
				t->doff += n;
				*down += n;
				did = true;
			}
		} else if (!t->up_eof) {
			t->doff = t->dlen = 0;
			r = ssl_read(t->up, t->dbuf, TLS_BUF, &n);
			if (r == IO_ERR)
				return TLS_EIO;
			if (r == IO_OK) {
				t->dlen = n;
				did = true;
			} else if (r == IO_EOF) {
				t->up_eof = true;
				did = true;
			}
		}
		if (t->up_eof && t->doff == t->dlen) {
			if (t->err_code) {
				answer(t);
				continue;
			}
			if (!t->cl_shut) {
				close_notify(t->cl, cs->fd);
				t->cl_shut = true;
			}
			return TLS_CLOSED;
		}
		if (!did)
			return TLS_WAIT;
		*progress = true;
	}
}

int
tls_step(struct tls *t, struct relay_sock *cs, struct relay_sock *us,
    const struct record_conn *subj, unsigned long long *up,
    unsigned long long *down, bool *progress)
{
	static const char ok200[] =
	    "HTTP/1.1 200 Connection established\r\n\r\n";
	int r;

	switch (t->ph) {
	case TP_UP_HS:
		r = handshake(t->up);
		if (r == 0)
			return TLS_WAIT;
		if (r < 0) {
			long v = SSL_get_verify_result(t->up);

			if (v != X509_V_OK)
				snprintf(t->why, sizeof(t->why),
				    "the certificate of %s does not verify: "
				    "%s",
				    t->name, X509_verify_cert_error_string(v));
			else
				snprintf(t->why, sizeof(t->why),
				    "TLS with %s failed: %s", t->name,
				    ossl_reason());
			return TLS_EUPSTREAM;
		}
		{
			const unsigned char *a;
			unsigned int al;

			SSL_get0_alpn_selected(t->up, &a, &al);
			if (al != 0 && (al != 8 || memcmp(a, "http/1.1", 8))) {
				snprintf(t->why, sizeof(t->why),
				    "%s chose another protocol than "
				    "http/1.1 (ALPN)",
				    t->name);
				return TLS_EUPSTREAM;
			}
		}
		t->ph = t->proxy ? TP_SEND_200 : TP_CL_HS;
		*progress = true;
		return tls_step(t, cs, us, subj, up, down, progress);
	case TP_SEND_200:
		while (t->off200 < sizeof(ok200) - 1) {
			ssize_t w = send(cs->fd, ok200 + t->off200,
			    sizeof(ok200) - 1 - t->off200,
			    MSG_NOSIGNAL | MSG_DONTWAIT);

			if (w < 0)
				return errno == EAGAIN || errno == EINTR
				    ? TLS_WAIT
				    : TLS_EIO;
			t->off200 += (size_t)w;
		}
		t->ph = TP_CL_HS;
		*progress = true;
		/* FALLTHROUGH */
	case TP_CL_HS:
		r = handshake(t->cl);
		if (r == 0)
			return TLS_WAIT;
		if (r < 0) {
			snprintf(t->why, sizeof(t->why),
			    "TLS with the client failed (%s): does it trust "
			    "the session CA, and offer http/1.1?",
			    ossl_reason());
			return TLS_ECLIENT;
		}
		t->ph = TP_RELAY;
		*progress = true;
		/* FALLTHROUGH */
	case TP_RELAY:
		break;
	}
	return pump(t, cs, us, subj, up, down, progress);
}

bool
tls_relaying(const struct tls *t)
{
	return t->ph == TP_RELAY;
}

void
tls_reset(void)
{
	SSL_CTX_free(srv_ctx);
	SSL_CTX_free(cli_ctx);
	srv_ctx = cli_ctx = NULL;
}
