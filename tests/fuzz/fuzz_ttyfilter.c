/*
 * fuzz_ttyfilter.c: libFuzzer target for shell/ttyfilter.c, the filter
 * between the sandbox's pty and the caller's terminal.  The sandbox
 * chooses every byte.
 *
 * Input: the first byte picks the mode (bit 0: UTF-8) and how the rest
 * is cut into reads (the other bits seed the cuts).  Properties beyond
 * "no crash": the output never needs more room than TTYFILTER_OUT_MAX
 * (put() aborts under AISB_FUZZ); it does not depend on where the input
 * was cut; and a second, independent reading of the output (followed by
 * ttyfilter_finish) finds only complete sequences of the kinds the
 * filter passes: no DCS, SOS, PM, APC, no OSC but the allowed numbers,
 * no control byte in an OSC body, no ENQ, no DECID, no title or other
 * refused report, no byte 0x80-0x9f outside a valid UTF-8 character
 * (none at all for an 8-bit terminal).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../shell/ttyfilter.c"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Length of the valid UTF-8 character at p (>= U+00A0), or 0. */
static size_t
utf8_char(const uint8_t *p, size_t n)
{
	uint32_t cp;
	size_t len, i;

	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 2 && cp < 0xa0) || (len == 3 && cp < 0x800) ||
	    (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static int
param0(const uint8_t *s, size_t n)
{
	size_t i = 0;
	int v = -1;

	if (i < n && s[i] >= '<' && s[i] <= '?')
		i++;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		v = v > 99999 ? v : (v < 0 ? 0 : v) * 10 + (s[i] - '0');
	return v;
}

/* A CSI the filter never passes: abort. s..n: after "ESC [". */
static void
check_csi(const uint8_t *s, size_t n)
{
	uint8_t fin = s[n - 1], priv = 0, in = 0;
	int p0 = param0(s, n - 1);
	size_t i;

	if (n >= 2 && s[0] >= '<' && s[0] <= '?')
		priv = s[0];
	for (i = 0; i + 1 < n; i++)
		if (s[i] >= 0x20 && s[i] <= 0x2f)
			in = s[i];
		else if (s[i] < 0x30 || s[i] > 0x3f)
			abort(); /* not a CSI byte */
	if (fin == 'i' || (fin == 'q' && priv == '>') ||
	    (fin == 'c' && priv == '=') || (fin == 'x' && !in) ||
	    (fin == 'y' && in == '*') || (fin == 'p' && in == '"') ||
	    (fin == 'u' && (in == '$' || in == '&')) ||
	    (fin == 'w' && in == '$') || (fin == 'S' && priv == '?') ||
	    (fin == 'r' && priv == '?'))
		abort();
	if (fin == 't' && !in && !priv && p0 != 14 && p0 != 16 && p0 != 18 &&
	    p0 != 19 && p0 != 22 && p0 != 23)
		abort(); /* title reports, window operations */
	if (fin == 'n' &&
	    ((!priv && p0 != 5 && p0 != 6) || (priv == '?' && p0 != 6) || in))
		abort();
	if (fin == 'c' && (in || (priv != 0 && priv != '>') || p0 > 0))
		abort(); /* DA1 and DA2 only */
	if ((fin == 'h') && !priv && !in) {
		/* no KAM among the modes */
		int v = -1;

		for (i = 0; i + 1 < n; i++) {
			if (s[i] >= '0' && s[i] <= '9')
				v = v > 99999
				    ? v
				    : (v < 0 ? 0 : v) * 10 + (s[i] - '0');
			else {
				if (v == 2)
					abort();
				v = -1;
			}
		}
		if (v == 2)
			abort();
	}
}

static int
osc_ok(uint32_t num, bool body)
{
	if (!body)
		return num == 104 || num == 105 || (num >= 110 && num <= 119);
	return num <= 2 || num == 4 || num == 5 || (num >= 10 && num <= 19) ||
	    num == 8 || num == 133 || num == 104 || num == 105;
}

/* The independent reading of the whole output. */
static void
check_output(const uint8_t *p, size_t n, bool utf8)
{
	size_t i = 0, k, len;

	while (i < n) {
		uint8_t c = p[i];

		if (c == ENQ)
			abort();
		if (c >= 0x80) {
			if (c <= 0x9f && !utf8)
				abort();
			len = utf8 ? utf8_char(p + i, n - i) : 0;
			if (len == 0) {
				if (c <= 0x9f)
					abort(); /* outside a character */
				i++;
			} else
				i += len;
			continue;
		}
		if (c != ESC) {
			i++;
			continue;
		}
		if (++i >= n)
			abort(); /* a lone ESC at the end */
		c = p[i];
		if (c == '[') {
			for (k = i + 1; k < n && (p[k] < 0x40 || p[k] > 0x7e);
			     k++)
				if (p[k] < 0x20 || p[k] > 0x3f)
					abort();
			if (k >= n)
				abort(); /* unfinished */
			check_csi(p + i + 1, k - i);
			i = k + 1;
		} else if (c == ']') {
			uint32_t num = 0;
			int digits = 0;

			for (k = i + 1; k < n && p[k] >= '0' && p[k] <= '9';
			     k++, digits++)
				num = num * 10 + (uint32_t)(p[k] - '0');
			if (digits == 0 || digits > 5 || k >= n)
				abort();
			if (p[k] == ';') {
				if (!osc_ok(num, true))
					abort();
				for (k++;
				     k < n && p[k] != BEL && p[k] != ESC;) {
					if (p[k] < 0x20 || p[k] == DEL)
						abort();
					if (p[k] < 0x80) {
						k++;
						continue;
					}
					len =
					    utf8 ? utf8_char(p + k, n - k) : 0;
					if (len == 0 && p[k] <= 0x9f)
						abort();
					k += len ? len : 1;
				}
			} else if (!osc_ok(num, false)) {
				abort();
			}
			if (k >= n)
				abort();
			if (p[k] == ESC && (k + 1 >= n || p[k + 1] != '\\'))
				abort();
			i = k + (p[k] == ESC ? 2 : 1);
		} else {
			/* ESC I* F */
			for (k = i; k < n && p[k] >= 0x20 && p[k] <= 0x2f; k++)
				;
			if (k >= n || p[k] < 0x30 || p[k] > 0x7e)
				abort();
			if (k == i && strchr("PX^_kZ\\", p[k]))
				abort();
			if (p[i] == '%' || p[i] == ' ')
				abort();
			i = k + 1;
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ttyfilter f;
	uint8_t *whole, *cut;
	size_t nw, nc = 0, i, step, m;
	unsigned seed;
	bool utf8;

	if (size < 1 || size > 65536)
		return 0;
	utf8 = data[0] & 1;
	seed = data[0] >> 1;
	data++;
	size--;
	whole = malloc(TTYFILTER_OUT_MAX(size) + TTYFILTER_FINISH_MAX);
	/* Each read gets TTYFILTER_OUT_MAX of its own length. */
	cut = malloc(2 * TTYFILTER_OUT_MAX(size) + TTYFILTER_FINISH_MAX);
	if (!whole || !cut)
		abort();

	ttyfilter_init(&f, utf8);
	nw = ttyfilter_run(&f, data, size, whole);
	if (nw > TTYFILTER_OUT_MAX(size))
		abort();
	m = ttyfilter_finish(&f, whole + nw);
	if (m > TTYFILTER_FINISH_MAX)
		abort();
	nw += m;

	ttyfilter_init(&f, utf8);
	for (i = 0; i < size; i += step) {
		seed = seed * 1103515245u + 12345u;
		step = 1 + (seed >> 16) % 17;
		if (step > size - i)
			step = size - i;
		m = ttyfilter_run(&f, data + i, step, cut + nc);
		if (m > TTYFILTER_OUT_MAX(step))
			abort();
		nc += m;
	}
	nc += ttyfilter_finish(&f, cut + nc);
	if (nc != nw || memcmp(cut, whole, nw) != 0)
		abort(); /* the cut changed the output */

	check_output(whole, nw, utf8);
	free(whole);
	free(cut);
	return 0;
}
