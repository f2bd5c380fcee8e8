/*
 * synth.c: the session's table of synthetic addresses.  The DNS stub
 * gives each allowed name the next address of 198.18.0.0/15 and keeps
 * it for the whole session, so a name always maps to one address and
 * the capture port can map the address back to exactly that name.
 * Bounded: GATE_SYNTH_MAX names, then the stub answers REFUSED.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gate.h"

#define SYNTH_BASE 0xc6120000u /* 198.18.0.0 */
#define SYNTH_SLOTS (GATE_SYNTH_MAX * 2) /* open addressing */

static char **names; /* index -> name */
static int32_t *slots; /* hash slot -> index + 1, 0 = empty */
static size_t nnames;

static uint32_t
hash(const char *s)
{
	uint32_t h = 2166136261u; /* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static int32_t *
find_slot(const char *canon)
{
	uint32_t i = hash(canon) % SYNTH_SLOTS;

	for (;;) {
		if (slots[i] == 0 || strcmp(names[slots[i] - 1], canon) == 0)
			return &slots[i];
		i = (i + 1) % SYNTH_SLOTS;
	}
}

static int
init(void)
{
	if (names)
		return 0;
	names = calloc(GATE_SYNTH_MAX, sizeof(*names));
	slots = calloc(SYNTH_SLOTS, sizeof(*slots));
	if (names == NULL || slots == NULL) {
		synth_reset();
		return -ENOMEM;
	}
	return 0;
}

int
synth_lookup_name(const char *canon, uint32_t *addr)
{
	int32_t *s;

	if (init() < 0)
		return -ENOMEM;
	s = find_slot(canon);
	if (*s == 0)
		return -ENOENT;
	*addr = SYNTH_BASE + (uint32_t)*s;
	return 0;
}

int
synth_assign(const char *canon, uint32_t *addr)
{
	int32_t *s;

	if (init() < 0)
		return -ENOMEM;
	s = find_slot(canon);
	if (*s == 0) {
		if (nnames >= GATE_SYNTH_MAX)
			return -ENOSPC;
		names[nnames] = strdup(canon);
		if (names[nnames] == NULL)
			return -ENOMEM;
		*s = (int32_t)++nnames;
	}
	/* Index i gets 198.18.0.0 + i + 1: never the network address. */
	*addr = SYNTH_BASE + (uint32_t)*s;
	return 0;
}

const char *
synth_name(uint32_t addr)
{
	uint32_t i;

	if (names == NULL || addr <= SYNTH_BASE)
		return NULL;
	i = addr - SYNTH_BASE;
	if (i > nnames)
		return NULL;
	return names[i - 1];
}

void
synth_reset(void)
{
	if (names)
		for (size_t i = 0; i < nnames; i++)
			free(names[i]);
	free(names);
	free(slots);
	names = NULL;
	slots = NULL;
	nnames = 0;
}
