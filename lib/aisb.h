/*
 * aisb.h: names shared by every part of aisb.
 */
#ifndef AISB_H
#define AISB_H

#define AISB_VERSION	"0.1.0"

/* Exit statuses (aisb-shell(8), DESIGN.md). */
#define AISB_EX_HOST	77	/* the host cannot enforce the policy */
#define AISB_EX_CONFIG	78	/* the policy is invalid or unsafe */

#endif
