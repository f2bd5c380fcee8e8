/*
 * aisb.h: names shared by every part of aisb.
 */
#ifndef AISB_H
#define AISB_H

#define AISB_VERSION "0.1.0"

/* Exit statuses (aisb-shell(8)). */
#define AISB_EX_HOST 77 /* the host cannot enforce the policy */
#define AISB_EX_CONFIG 78 /* the policy is invalid or unsafe */

/*
 * The session registry (docs/architecture.md, "The session registry"):
 * root, 1733; one directory per agent uid, written by its sessions and
 * hidden from every sandbox view.
 */
#define AISB_REGISTRY_DIR "/var/lib/aisb/sessions"

/*
 * Where pam_aisb keeps its lines when no syslog receiver listens on
 * /dev/log (root, 0700; pam.log in it, 0600, appended).  Sessions keep
 * theirs in AISB_REGISTRY_DIR/UID/ID.log (docs/admin-guide.md).
 */
#define AISB_LOG_DIR "/var/log/aisb"
#define AISB_PAM_LOG "pam.log"

/* Inside the sandbox netns (gated mode). */
#define AISB_CAPTURE_PORT 3129 /* nft redirect target, 127.0.0.1 */
#define AISB_SYNTH_NET "198.18.0.0" /* synthetic range for names */
#define AISB_SYNTH_PREFIX 15

/*
 * The system trust bundles, relative to /etc, as distributions place
 * them (Debian and Ubuntu; Fedora and RHEL; older RHEL; openSUSE;
 * Alpine): the gate trusts the first one that exists for the origins it
 * terminates TLS with, and the sandbox's /etc view shows each of them
 * that is a regular file with the session CA appended.
 */
#define AISB_CA_BUNDLES                                                        \
	"ssl/certs/ca-certificates.crt",                                       \
	    "pki/ca-trust/extracted/pem/tls-ca-bundle.pem",                    \
	    "pki/tls/certs/ca-bundle.crt", "ssl/ca-bundle.pem", "ssl/cert.pem"
/* The session CA alone, inside (NODE_EXTRA_CA_CERTS). */
#define AISB_SESSION_CA "/etc/ssl/certs/aisb-session-ca.pem"

#endif
