/*
 * vault.c: the credentials' values in the gate's memory.
 *
 * aisb-shell reads each credential file and sends its placeholder and
 * value over fd 3 right after starting the gate ("cred" messages,
 * shell/gatectl.h), before the sandbox exists; the gate reads them
 * before its lockdown.  Everything derived from a value (the header's
 * text, base64 for Basic) lives in one mapping of its own, locked in
 * memory (never swapped, when the uid's RLIMIT_MEMLOCK allows),
 * excluded from core dumps (which the gate does not write anyway: not
 * dumpable, RLIMIT_CORE 0), and wiped and unmapped at exit
 * (vault_wipe).  No record or message ever shows a value.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "gate.h"
#include "log.h"

#define VAULT_WAIT_MS 10000
/* A "cred" message: "cred" I N PLEN VLEN (10 bytes, shell/gatectl.h),
 * the placeholder (at most PH_MAX bytes: the value's length and a
 * margin over CRED_MIN_RANDOM, shell/cred.h), then the value. */
#define CRED_HEAD 10
#define PH_MAX (POLICY_CRED_MAX + 64)
#define CRED_MSG_MAX (CRED_HEAD + PH_MAX + POLICY_CRED_MAX)
/* "Basic ": the scheme word before base64. */
#define BASIC_LEN 6

static struct vault_cred *creds;
static size_t ncreds;
static char *region;
static size_t region_len, region_used;

static char *
vault_alloc(size_t n)
{
	char *p;

	if (region_used + n > region_len)
		return NULL;
	p = region + region_used;
	region_used += n;
	return p;
}

static void
b64(const unsigned char *in, size_t n, char *out)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnop"
	                          "qrstuvwxyz0123456789+/";
	size_t i, o = 0;

	for (i = 0; i + 2 < n; i += 3) {
		out[o++] = tab[in[i] >> 2];
		out[o++] = tab[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
		out[o++] = tab[((in[i + 1] & 15) << 2) | (in[i + 2] >> 6)];
		out[o++] = tab[in[i + 2] & 63];
	}
	if (i < n) {
		out[o++] = tab[in[i] >> 2];
		if (i + 1 < n) {
			out[o++] = tab[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
			out[o++] = tab[(in[i + 1] & 15) << 2];
		} else {
			out[o++] = tab[(in[i] & 3) << 4];
			out[o++] = '=';
		}
		out[o++] = '=';
	}
	out[o] = '\0';
}

/* An upper bound of the header text for a secret of n bytes. */
static size_t
hdr_size(const struct aisb_credential *c, size_t n)
{
	size_t t = strlen(c->format) + n;

	return BASIC_LEN + (t + 2) / 3 * 4 + 1;
}

/* An upper bound of what hdr_text takes from the vault for a secret of
 * n bytes: the plain text, and for Basic its base64 as well. */
static size_t
hdr_need(const struct aisb_credential *c, size_t n)
{
	size_t t = strlen(c->format) + n + 1;

	return c->basic ? t + hdr_size(c, n) : t;
}

/*
 * The header's value for secret s (n bytes) into the vault: the format
 * with %s replaced, base64-encoded after "Basic " for Basic.
 */
static const char *
hdr_text(const struct aisb_credential *c, const char *s, size_t n, size_t *len)
{
	const char *pct = strstr(c->format, "%s");
	size_t pre = (size_t)(pct - c->format), post = strlen(pct + 2);
	size_t t = pre + n + post;
	char *plain, *out;

	if (!c->basic) {
		out = vault_alloc(t + 1);
		if (out == NULL)
			return NULL;
		memcpy(out, c->format, pre);
		memcpy(out + pre, s, n);
		memcpy(out + pre + n, pct + 2, post + 1);
		*len = t;
		return out;
	}
	plain = vault_alloc(t + 1);
	out = vault_alloc(hdr_size(c, n));
	if (plain == NULL || out == NULL)
		return NULL;
	memcpy(plain, c->format, pre);
	memcpy(plain + pre, s, n);
	memcpy(plain + pre + n, pct + 2, post);
	memcpy(out, "Basic ", BASIC_LEN);
	b64((const unsigned char *)plain, t, out + BASIC_LEN);
	explicit_bzero(plain, t + 1);
	*len = strlen(out);
	return out;
}

static int
recv_one(int ctl, char *msg, size_t cap, size_t *len)
{
	struct pollfd pf = {.fd = ctl, .events = POLLIN};
	ssize_t n;
	int r;

	do
		r = poll(&pf, 1, VAULT_WAIT_MS);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return r < 0 ? -errno : -ETIMEDOUT;
	n = recv(ctl, msg, cap, MSG_TRUNC);
	if (n <= 0)
		return n < 0 ? -errno : -EPIPE;
	if ((size_t)n > cap)
		return -EMSGSIZE;
	*len = (size_t)n;
	return 0;
}

int
vault_recv(int ctl, const struct aisb_policy *p)
{
	char *msg;
	size_t i, need = CRED_MSG_MAX;
	int r = 0;

	if (p->ncreds == 0)
		return 0;
	/* Everything the loop below takes, for the largest messages. */
	for (i = 0; i < p->ncreds; i++)
		need += PH_MAX + 1 + POLICY_CRED_MAX + 1 +
		    hdr_need(&p->creds[i], PH_MAX) +
		    hdr_need(&p->creds[i], POLICY_CRED_MAX);
	region_len = (need + 4095) & ~(size_t)4095;
	region = mmap(NULL, region_len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		region = NULL;
		return log_errno(-errno, "aisb-gate: credentials: mmap: %m");
	}
	(void)madvise(region, region_len, MADV_DONTDUMP);
	if (mlock(region, region_len) < 0)
		log_debug("credentials not locked in memory (RLIMIT_MEMLOCK), "
		          "ignoring: %m");
	creds = calloc(p->ncreds, sizeof(*creds));
	msg = vault_alloc(CRED_MSG_MAX);
	if (creds == NULL || msg == NULL)
		return log_errno(-ENOMEM, "aisb-gate: out of memory");
	for (i = 0; i < p->ncreds && r == 0; i++) {
		struct vault_cred *v = &creds[i];
		const struct aisb_credential *c = &p->creds[i];
		size_t len = 0, pl, vl;

		r = recv_one(ctl, msg, CRED_MSG_MAX, &len);
		if (r < 0)
			break;
		pl = len >= CRED_HEAD
		    ? (size_t)(unsigned char)msg[6] << 8 | (unsigned char)msg[7]
		    : 0;
		vl = len >= CRED_HEAD
		    ? (size_t)(unsigned char)msg[8] << 8 | (unsigned char)msg[9]
		    : 0;
		if (len < CRED_HEAD || memcmp(msg, "cred", 4) != 0 ||
		    (unsigned char)msg[4] != i ||
		    (unsigned char)msg[5] != p->ncreds || pl == 0 || vl == 0 ||
		    pl > PH_MAX || vl > POLICY_CRED_MAX ||
		    CRED_HEAD + pl + vl != len) {
			r = -EPROTO;
			break;
		}
		v->policy = c;
		v->ph = vault_alloc(pl + 1);
		v->value = vault_alloc(vl + 1);
		if (v->ph == NULL || v->value == NULL) {
			r = -ENOMEM;
			break;
		}
		memcpy(v->ph, msg + CRED_HEAD, pl);
		v->ph[pl] = '\0';
		v->ph_len = pl;
		memcpy(v->value, msg + CRED_HEAD + pl, vl);
		v->value[vl] = '\0';
		v->value_len = vl;
		v->ph_hdr = hdr_text(c, v->ph, pl, &v->ph_hdr_len);
		v->val_hdr = hdr_text(c, v->value, vl, &v->val_hdr_len);
		if (v->ph_hdr == NULL || v->val_hdr == NULL) {
			r = -ENOMEM;
			break;
		}
		/* The scheme word: "Bearer ", "Basic ", or nothing. */
		v->ci_len = c->basic
		    ? BASIC_LEN
		    : (size_t)(strstr(c->format, "%s") - c->format);
		explicit_bzero(msg, CRED_MSG_MAX);
		ncreds = i + 1;
	}
	explicit_bzero(msg, CRED_MSG_MAX);
	if (r < 0)
		return log_errno(r,
		    "aisb-gate: the session did not hand over its "
		    "credentials: %m");
	return 0;
}

size_t
vault_count(void)
{
	return ncreds;
}

const struct vault_cred *
vault_get(size_t i)
{
	return i < ncreds ? &creds[i] : NULL;
}

static bool
port_in(const struct aisb_hostrule *h, uint16_t port)
{
	if (h->nports == 0)
		return port == POLICY_CRED_PORT;
	for (size_t i = 0; i < h->nports; i++)
		if (h->ports[i] == port)
			return true;
	return false;
}

bool
vault_for(const struct vault_cred *v, const char *name, uint16_t port)
{
	for (size_t i = 0; i < v->policy->nhosts; i++)
		if (hostpat_match(v->policy->hosts[i].host, name) &&
		    port_in(&v->policy->hosts[i], port))
			return true;
	return false;
}

bool
vault_terminates(const char *name, uint16_t port)
{
	for (size_t i = 0; i < ncreds; i++)
		if (vault_for(&creds[i], name, port))
			return true;
	return false;
}

void
vault_target(const char *name, uint16_t port, struct inject_cred *out)
{
	for (size_t i = 0; i < ncreds; i++) {
		const struct vault_cred *v = &creds[i];

		out[i] = (struct inject_cred){
		    .name = v->policy->name,
		    .hname = v->policy->hname,
		    .ph = v->ph,
		    .ph_raw = v->ph_len,
		    .ph_hdr = v->ph_hdr,
		    .ph_len = v->ph_hdr_len,
		    .val_hdr = v->val_hdr,
		    .val_len = v->val_hdr_len,
		    .ci_len = v->ci_len,
		    .basic = v->policy->basic,
		    .here = name != NULL && vault_for(v, name, port),
		};
	}
}

size_t
vault_growth(void)
{
	size_t g = 0;

	for (size_t i = 0; i < ncreds; i++)
		if (creds[i].val_hdr_len > creds[i].ph_hdr_len)
			g += creds[i].val_hdr_len - creds[i].ph_hdr_len;
	return g;
}

void
vault_wipe(void)
{
	if (region != NULL) {
		explicit_bzero(region, region_len);
		munmap(region, region_len);
		region = NULL;
	}
	free(creds);
	creds = NULL;
	ncreds = 0;
	region_len = region_used = 0;
}
