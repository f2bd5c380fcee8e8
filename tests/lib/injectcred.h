/*
 * injectcred.h: struct inject_cred literals for the tests of
 * gate/inject.c, each length taken from its string (as gate/vault.c
 * fills them for a real credential).
 *
 *	INJECT_CRED_BARE("api", "x-api-key", PH, VAL, true)
 *	    header "x-api-key: PH" becomes "x-api-key: VAL"
 *	INJECT_CRED_SCHEME("gh", "authorization", "Bearer", PH, VAL, true)
 *	    header "authorization: Bearer PH" (the scheme in any case)
 *	    becomes "authorization: Bearer VAL"
 *
 * PH and VAL must be string literals.  HERE: the credential's hosts
 * include the target.
 */
#ifndef AISB_INJECTCRED_H
#define AISB_INJECTCRED_H

#include "gate.h"

#define INJECT_CRED_BARE(NAME, HNAME, PH, VAL, HERE)                           \
	{                                                                      \
		.name = (NAME), .hname = (HNAME), .ph = PH,                    \
		.ph_raw = sizeof(PH) - 1, .ph_hdr = PH,                        \
		.ph_len = sizeof(PH) - 1, .val_hdr = VAL,                      \
		.val_len = sizeof(VAL) - 1, .here = (HERE)                     \
	}

#define INJECT_CRED_SCHEME(NAME, HNAME, SCHEME, PH, VAL, HERE)                 \
	{                                                                      \
		.name = (NAME), .hname = (HNAME), .ph = PH,                    \
		.ph_raw = sizeof(PH) - 1, .ph_hdr = SCHEME " " PH,             \
		.ph_len = sizeof(SCHEME " " PH) - 1,                           \
		.val_hdr = SCHEME " " VAL,                                     \
		.val_len = sizeof(SCHEME " " VAL) - 1,                         \
		.ci_len = sizeof(SCHEME " ") - 1, .here = (HERE)               \
	}

#endif
