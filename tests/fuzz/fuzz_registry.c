/*
 * fuzz_registry.c: the session registry's file reader
 * (shell/registry.c registry_parse), which the admin forms run as root
 * on files the agent's uid owns, and the record lines under it
 * (lib/kvline.c), which aisb-shell also runs on what the gate sends.
 *
 * What a parse that succeeds hands back must hold what the readers
 * rely on: a 32-hex session id, at most REGISTRY_EGRESS_MAX entries,
 * every name of [a-z0-9._:?-] and every shown text printable ASCII; and
 * formatting it again must give a file that parses to the same entries.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../shell/registry.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct registry_rec r, again;
	char *buf = NULL;
	size_t len = 0;

	if (registry_parse((const char *)data, size, &r) < 0)
		return 0;
	if (strlen(r.s.id) != REGISTRY_ID_LEN || r.neg > REGISTRY_EGRESS_MAX)
		abort();
	printable(r.s.project);
	printable(r.s.peer);
	printable(r.s.tty);
	for (size_t i = 0; i < r.neg; i++) {
		const struct registry_egress *e = &r.eg[i];

		if (e->name[0] == '\0' ||
		    strspn(
		        e->name, "abcdefghijklmnopqrstuvwxyz0123456789._:?-") !=
		        strlen(e->name))
			abort();
		printable(e->why);
	}
	if (registry_format(&r, &buf, &len) == 0) {
		if (registry_parse(buf, len, &again) < 0 || again.neg != r.neg)
			abort();
		for (size_t i = 0; i < r.neg; i++)
			if (strcmp(again.eg[i].name, r.eg[i].name) != 0 ||
			    again.eg[i].port != r.eg[i].port ||
			    again.eg[i].down != r.eg[i].down ||
			    strcmp(again.eg[i].why, r.eg[i].why) != 0)
				abort();
		registry_rec_free(&again);
		free(buf);
	}
	registry_rec_free(&r);
	return 0;
}
