/*
 * ca.c: the session's certificate authority, made by the gate when the
 * policy has credentials, and the certificates it presents for the
 * credentials' hosts (gate/tls.c).
 *
 * The CA's key is an EC P-256 key generated in the gate at the start of
 * the session; it exists only in the gate's memory (not dumpable, no
 * core files) and is freed, which OpenSSL wipes, at exit.  Its
 * certificate goes to the sandbox (shell/gatectl.c, the "ca" message),
 * which trusts it through its /etc view.  The certificate carries name
 * constraints (critical) that permit only the credentials' hosts: even
 * a client that trusts it can be shown a certificate of this CA only
 * for a name the gate may terminate TLS for.  Leaf certificates (one
 * key for all, P-256) are made on first use for each name, valid for
 * 30 days from a day back (clock skew), and kept for the session.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "gate.h"
#include "log.h"

#define CA_DAYS 3650 /* the CA dies with the session's key anyway */
#define LEAF_DAYS 30
#define LEAF_MAX 256 /* names with a certificate */
#define DAY_S 86400

static EVP_PKEY *ca_key, *leaf_key;
static X509 *ca_cert;

static struct leaf {
	char name[HOST_MAX + 1];
	X509 *cert;
	time_t until;
} leaves[LEAF_MAX];
static size_t nleaves;

static int
add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ex;
	int r;

	X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
	ex = X509V3_EXT_nconf_nid(NULL, &ctx, nid, value);
	if (ex == NULL)
		return -EINVAL;
	r = X509_add_ext(cert, ex, -1) ? 0 : -EINVAL;
	X509_EXTENSION_free(ex);
	return r;
}

static int
set_serial(X509 *cert)
{
	unsigned char b[16];
	BIGNUM *bn;
	int r = -EIO;

	if (RAND_bytes(b, sizeof(b)) != 1)
		return -EIO;
	b[0] &= 0x7f; /* positive */
	bn = BN_bin2bn(b, sizeof(b), NULL);
	if (bn != NULL && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert)))
		r = 0;
	BN_free(bn);
	return r;
}

/* A fresh certificate for subject CN=cn, valid [-1 day, +days]. */
static X509 *
new_cert(const char *cn, long days)
{
	X509 *c = X509_new();
	X509_NAME *n;

	if (c == NULL)
		return NULL;
	n = X509_get_subject_name(c);
	if (!X509_set_version(c, 2) || set_serial(c) < 0 ||
	    !X509_gmtime_adj(X509_getm_notBefore(c), -DAY_S) ||
	    !X509_gmtime_adj(X509_getm_notAfter(c), days * DAY_S) ||
	    !X509_NAME_add_entry_by_txt(
	        n, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0)) {
		X509_free(c);
		return NULL;
	}
	return c;
}

/*
 * "critical,permitted;DNS:a.test,permitted;DNS:example.org": the
 * credentials' hosts ("*.example.org" permits example.org and every name
 * below it, which is what a DNS name constraint can say).
 */
static char *
constraints(const struct aisb_policy *p)
{
	size_t cap = 16, o;
	char *s;

	for (size_t i = 0; i < p->ncreds; i++)
		for (size_t j = 0; j < p->creds[i].nhosts; j++)
			cap += strlen(p->creds[i].hosts[j].host) + 16;
	s = malloc(cap);
	if (s == NULL)
		return NULL;
	o = (size_t)snprintf(s, cap, "critical");
	for (size_t i = 0; i < p->ncreds; i++)
		for (size_t j = 0; j < p->creds[i].nhosts; j++) {
			const char *h = p->creds[i].hosts[j].host;

			if (strncmp(h, "*.", 2) == 0)
				h += 2;
			o += (size_t)snprintf(
			    s + o, cap - o, ",permitted;DNS:%s", h);
		}
	return s;
}

int
ca_init(const struct aisb_policy *p, const char *session)
{
	char cn[96], *nc = NULL;
	int r = -EIO;

	snprintf(cn, sizeof(cn), "aisb session %.32s", session);
	ca_key = EVP_EC_gen("P-256");
	leaf_key = EVP_EC_gen("P-256");
	ca_cert = new_cert(cn, CA_DAYS);
	nc = constraints(p);
	if (ca_key == NULL || leaf_key == NULL || ca_cert == NULL || nc == NULL)
		goto out;
	if (!X509_set_issuer_name(ca_cert, X509_get_subject_name(ca_cert)) ||
	    !X509_set_pubkey(ca_cert, ca_key) ||
	    add_ext(ca_cert, ca_cert, NID_basic_constraints,
	        "critical,CA:TRUE,pathlen:0") < 0 ||
	    add_ext(ca_cert, ca_cert, NID_key_usage,
	        "critical,keyCertSign,cRLSign") < 0 ||
	    add_ext(ca_cert, ca_cert, NID_subject_key_identifier, "hash") < 0 ||
	    add_ext(ca_cert, ca_cert, NID_name_constraints, nc) < 0 ||
	    !X509_sign(ca_cert, ca_key, EVP_sha256()))
		goto out;
	r = 0;
out:
	free(nc);
	if (r < 0)
		log_err("aisb-gate: cannot make the session's certificate "
		        "authority (OpenSSL)");
	return r;
}

int
ca_pem(char *buf, size_t len, char hash[9])
{
	BIO *b = BIO_new(BIO_s_mem());
	char *data;
	long n;
	int ok = 0;
	unsigned long h;

	if (b == NULL || ca_cert == NULL || !PEM_write_bio_X509(b, ca_cert)) {
		BIO_free(b);
		return -EIO;
	}
	n = BIO_get_mem_data(b, &data);
	if (n <= 0 || (size_t)n >= len) {
		BIO_free(b);
		return -ENOSPC;
	}
	memcpy(buf, data, (size_t)n);
	buf[n] = '\0';
	BIO_free(b);
	h = X509_NAME_hash_ex(X509_get_subject_name(ca_cert), NULL, NULL, &ok);
	if (!ok)
		return -EIO;
	snprintf(hash, 9, "%08lx", h & 0xffffffffUL);
	return (int)n;
}

/* A new leaf for name (canonical), signed by the CA. */
static X509 *
make_leaf(const char *name)
{
	char san[HOST_MAX + 8];
	X509 *c = new_cert(name, LEAF_DAYS);

	if (c == NULL)
		return NULL;
	snprintf(san, sizeof(san), "DNS:%s", name);
	if (!X509_set_issuer_name(c, X509_get_subject_name(ca_cert)) ||
	    !X509_set_pubkey(c, leaf_key) ||
	    add_ext(c, ca_cert, NID_basic_constraints, "critical,CA:FALSE") <
	        0 ||
	    add_ext(c, ca_cert, NID_key_usage, "critical,digitalSignature") <
	        0 ||
	    add_ext(c, ca_cert, NID_ext_key_usage, "serverAuth") < 0 ||
	    add_ext(c, ca_cert, NID_subject_alt_name, san) < 0 ||
	    add_ext(c, ca_cert, NID_subject_key_identifier, "hash") < 0 ||
	    add_ext(c, ca_cert, NID_authority_key_identifier, "keyid:always") <
	        0 ||
	    !X509_sign(c, ca_key, EVP_sha256())) {
		X509_free(c);
		return NULL;
	}
	return c;
}

int
ca_leaf(const char *name, X509 **ret_cert, EVP_PKEY **ret_key)
{
	time_t now = time(NULL);
	struct leaf *l = NULL;

	if (ca_cert == NULL)
		return -ENOENT;
	for (size_t i = 0; i < nleaves; i++)
		if (strcmp(leaves[i].name, name) == 0) {
			l = &leaves[i];
			break;
		}
	/* A day before it ends (a session of a month), a new one. */
	if (l != NULL && now + DAY_S < l->until) {
		*ret_cert = l->cert;
		*ret_key = leaf_key;
		return 0;
	}
	if (l == NULL) {
		if (nleaves == LEAF_MAX) {
			/* Many names under a *. entry: start over. */
			for (size_t i = 0; i < nleaves; i++)
				X509_free(leaves[i].cert);
			nleaves = 0;
		}
		l = &leaves[nleaves++];
		snprintf(l->name, sizeof(l->name), "%s", name);
	} else
		X509_free(l->cert);
	l->cert = make_leaf(name);
	l->until = now + (time_t)LEAF_DAYS * DAY_S;
	if (l->cert == NULL) {
		*l = leaves[--nleaves];
		return -EIO;
	}
	*ret_cert = l->cert;
	*ret_key = leaf_key;
	return 0;
}

void
ca_reset(void)
{
	for (size_t i = 0; i < nleaves; i++)
		X509_free(leaves[i].cert);
	nleaves = 0;
	X509_free(ca_cert);
	EVP_PKEY_free(ca_key);
	EVP_PKEY_free(leaf_key);
	ca_cert = NULL;
	ca_key = leaf_key = NULL;
}
