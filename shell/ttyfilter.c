/*
 * ttyfilter.c: the escape-sequence filter of the pty relay (see
 * ttyfilter.h; the list of sequences and why: docs/threat-model.md).
 *
 * Two layers.  The decoder turns bytes into units: an ASCII byte, a C1
 * control (a byte 0x80-0x9f for a terminal that reads bytes, U+0080 to
 * U+009F for one that decodes UTF-8), or text (a valid UTF-8 character,
 * or a byte that no terminal reads as a control).  The parser follows a
 * VT500-style terminal's states (ground, escape, CSI, control strings)
 * over those units and decides each sequence as a whole at its end:
 * passed as collected, in 7-bit form, or dropped.  Sequences are kept
 * (at most TTYF_SEQ_MAX bytes) until decided; control strings are
 * decided on their first bytes (the OSC number) and then streamed, so
 * a long string costs no memory.
 *
 * What the terminal sees is therefore only what the filter wrote: a
 * dropped sequence leaves no prefix behind, and what follows it is read
 * again from the ground state, as text or as the start of a new
 * sequence, and filtered the same way.
 */
#include <stdlib.h>
#include <string.h>

#include "ttyfilter.h"
#include "util.h"

enum {
	S_GROUND,
	S_ESC, /* after ESC: intermediates, then a final */
	S_ESC_DROP, /* an ESC sequence too long: swallowed to its final */
	S_CSI, /* parameters, intermediates, then a final */
	S_CSI_DROP, /* a malformed or long CSI: swallowed to its final */
	S_OSC_NUM, /* OSC: its number, up to ';' or the end */
	S_OSC_PASS, /* an allowed OSC: its body goes through */
	S_STR_DROP, /* DCS, SOS, PM, APC, a refused OSC: swallowed */
};

enum {
	ESC = 0x1b,
	BEL = 0x07,
	ENQ = 0x05,
	CAN = 0x18,
	SUB = 0x1a,
	SO = 0x0e,
	SI = 0x0f,
	DEL = 0x7f,
	C1_ST = 0x9c,
};

/* The longest OSC number read (xterm's go to 5 digits). */
#define OSC_DIGITS 5

/*
 * DEC private modes that the session may leave set and that matter
 * after it: the terminal then sends reports or keys the caller's shell
 * does not expect (mouse, focus, bracketed paste, cursor keys, in-band
 * resize, colour scheme), or shows the screen wrongly.  Listed in the
 * order ttyfilter_finish resets them; the alternate screens last.
 */
static const struct {
	uint16_t mode;
	bool on; /* its state when the session started (the default) */
} dec_modes[] = {
    {1, false}, /* DECCKM: application cursor keys */
    {6, false}, /* DECOM: origin mode */
    {7, true}, /* DECAWM: autowrap */
    {9, false}, /* X10 mouse */
    {25, true}, /* DECTCEM: cursor shown */
    {66, false}, /* DECNKM: application keypad */
    {69, false}, /* DECLRMM: left and right margins */
    {1000, false}, /* mouse reports */
    {1001, false},
    {1002, false},
    {1003, false},
    {1004, false}, /* focus in/out reports */
    {1005, false},
    {1006, false},
    {1015, false},
    {1016, false},
    {2004, false}, /* bracketed paste */
    {2026, false}, /* synchronized output: a held screen */
    {2031, false}, /* colour scheme reports */
    {2048, false}, /* in-band resize reports */
    {7727, false}, /* mintty: application escape key */
    {47, false}, /* the alternate screens */
    {1047, false},
    {1049, false},
};

/* ANSI modes, same purpose (bits of ansi_dirty). */
enum {
	A_IRM = 1 << 0, /* 4: insert mode */
	A_SRM = 1 << 1, /* 12 reset: local echo */
	A_LNM = 1 << 2, /* 20: newline mode (Return sends CR LF) */
};

/* Colours the session set (bits of colours). */
enum {
	C_DYNAMIC = 0x3ff, /* OSC 10..19, one bit each */
	C_PALETTE = 1 << 10, /* OSC 4 */
	C_SPECIAL = 1 << 11, /* OSC 5 */
};

struct ob {
	uint8_t *p;
	size_t n, cap;
};

static void
put(struct ob *o, const void *s, size_t n)
{
	/* The room is the caller's promise (TTYFILTER_OUT_MAX); past it,
	 * drop rather than overrun. */
	if (n > o->cap - o->n) {
#ifdef AISB_FUZZ
		abort();
#endif
		return;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
}

static void
put1(struct ob *o, uint8_t c)
{
	put(o, &c, 1);
}

static void
puts_(struct ob *o, const char *s)
{
	put(o, s, strlen(s));
}

static void
putnum(struct ob *o, unsigned v)
{
	char b[12];
	int i = (int)sizeof(b);

	do {
		b[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v && i > 0);
	put(o, b + i, sizeof(b) - (size_t)i);
}

void
ttyfilter_init(struct ttyfilter *f, bool utf8)
{
	memset(f, 0, sizeof(*f));
	f->utf8 = utf8;
	f->state = S_GROUND;
}

/* ---- the session's state, for ttyfilter_finish ---------------------- */

static void
track_dec(struct ttyfilter *f, int mode, bool set)
{
	size_t i;

	for (i = 0; i < ELEMENTSOF(dec_modes); i++)
		if (dec_modes[i].mode == mode) {
			if (set != dec_modes[i].on)
				f->dec_dirty |= 1U << i;
			else
				f->dec_dirty &= ~(1U << i);
		}
}

/* RIS: the terminal is back to its defaults. */
static void
track_reset(struct ttyfilter *f)
{
	f->dec_dirty = 0;
	f->ansi_dirty = 0;
	f->kitty_depth = 0;
	f->kitty_base = false;
	f->modkeys = f->keypad = f->cursor_style = f->margins = false;
	f->sgr = f->g0 = f->shifted = false;
}

/* ---- ESC sequences -------------------------------------------------- */

static void
seq_start(struct ttyfilter *f)
{
	f->seq[0] = ESC;
	f->seqlen = 1;
	f->state = S_ESC;
}

/* A C0 control inside a sequence: executed there, as a terminal does. */
static void
exec_c0(struct ttyfilter *f, struct ob *o, uint8_t c)
{
	if (c == ENQ) /* answerback */
		return;
	if (c == SO)
		f->shifted = true;
	else if (c == SI)
		f->shifted = false;
	put1(o, c);
}

static void
esc_dispatch(struct ttyfilter *f, struct ob *o, uint8_t c)
{
	size_t ni = f->seqlen - 1; /* intermediates */

	f->state = S_GROUND;
	if (ni == 0) {
		switch (c) {
		case '[':
			f->seq[f->seqlen++] = c;
			f->state = S_CSI;
			return;
		case ']':
			f->osc = 0;
			f->oscdigits = 0;
			f->state = S_OSC_NUM;
			return;
		case 'P': /* DCS: DECRQSS, XTGETTCAP, DECUDK, sixel, tmux */
		case 'X': /* SOS */
		case '^': /* PM */
		case '_': /* APC: kitty graphics and others */
		case 'k': /* screen and tmux: set the title */
			f->state = S_STR_DROP;
			return;
		case 'Z': /* DECID: answers like DA */
		case '\\': /* ST with no string: nothing to end */
			return;
		case '=':
			f->keypad = true;
			break;
		case '>':
			f->keypad = false;
			break;
		case 'c':
			track_reset(f);
			break;
		default:
			break;
		}
	} else {
		uint8_t i0 = f->seq[1];

		/* ESC SP: 7- or 8-bit controls (S7C1T, S8C1T) and the
		 * conformance levels, which imply them; ESC %: leave UTF-8
		 * (the terminal would then read bytes unlike the filter). */
		if (i0 == ' ' || i0 == '%' || ni > 2)
			return;
		if (i0 == '(' && ni == 1)
			f->g0 = c != 'B';
	}
	put(o, f->seq, f->seqlen);
	put1(o, c);
}

/* ---- CSI -------------------------------------------------------------- */

#define CSI_PARAMS 16

struct csi {
	uint8_t priv; /* '<', '=', '>', '?' or 0 */
	uint8_t final;
	uint16_t inter; /* the one intermediate, or 0 */
	int n; /* parameters read (at most CSI_PARAMS) */
	int p[CSI_PARAMS]; /* -1: empty */
};

/*
 * One more parameter.  Past CSI_PARAMS the rest would go unread: fine
 * for SGR (colours), refused elsewhere (a mode that is not read could be
 * any mode).
 */
static bool
csi_param(struct csi *c, int v)
{
	if (c->n < CSI_PARAMS) {
		c->p[c->n++] = v;
		return true;
	}
	return c->final == 'm' && !c->priv;
}

/* Parse seq ("ESC [" ...) into c; false when malformed or refused. */
static bool
csi_parse(const struct ttyfilter *f, uint8_t final, struct csi *c)
{
	const uint8_t *s = f->seq + 2, *end = f->seq + f->seqlen;
	int ni = 0, cur = -1;
	bool sub = false;

	memset(c, 0, sizeof(*c));
	c->final = final;
	if (s < end && *s >= '<' && *s <= '?')
		c->priv = *s++;
	for (; s < end && *s >= 0x30 && *s <= 0x3f; s++) {
		if (*s >= '0' && *s <= '9') {
			if (!sub)
				cur = (cur < 0 ? 0 : cur) * 10 + (*s - '0');
			if (cur > 99999)
				cur = 99999;
		} else if (*s == ';') {
			if (!csi_param(c, cur))
				return false;
			cur = -1;
			sub = false;
		} else if (*s == ':') {
			/* Sub-parameters belong to SGR; elsewhere a terminal
			 * may read them as parameters: refused. */
			if (final != 'm' || c->priv)
				return false;
			sub = true;
		} else {
			return false; /* a marker after the first byte */
		}
	}
	if ((s > f->seq + 2 + (c->priv != 0) || cur >= 0) && !csi_param(c, cur))
		return false;
	/*
	 * One intermediate at most: no sequence a shell or an editor sends
	 * has two, and terminals differ in which of two they act on (one
	 * that keys on the last reads "- * y" as DECRQCRA), so a second is
	 * refused rather than judged by either.
	 */
	for (; s < end; s++, ni++) {
		if (*s < 0x20 || *s > 0x2f || ni >= 1)
			return false;
		c->inter = *s;
	}
	return true;
}

static bool
asked(struct ttyfilter *f)
{
	f->asked = true;
	return true;
}

/* DECSET/DECRST, SM/RM. */
static bool
csi_modes(struct ttyfilter *f, const struct csi *c)
{
	bool set = c->final == 'h';
	int i;

	if (c->inter)
		return false;
	if (c->priv == '?') {
		for (i = 0; i < c->n; i++)
			track_dec(f, c->p[i], set);
		return true;
	}
	if (c->priv)
		return false;
	for (i = 0; i < c->n; i++)
		if (set && c->p[i] == 2) /* KAM: locks the keyboard */
			return false;
	for (i = 0; i < c->n; i++) {
		uint8_t bit = c->p[i] == 4 ? A_IRM
		    : c->p[i] == 12        ? A_SRM
		    : c->p[i] == 20        ? A_LNM
		                           : 0;

		/* SRM's default is set (no local echo). */
		if (bit && set == (bit != A_SRM))
			f->ansi_dirty |= bit;
		else if (bit)
			f->ansi_dirty &= (uint8_t)~bit;
	}
	return true;
}

static bool
csi_kitty(struct ttyfilter *f, const struct csi *c)
{
	int n = c->n > 0 && c->p[0] > 0 ? c->p[0] : 1;

	switch (c->priv) {
	case '?': /* the flags in force: a numeric answer */
		return asked(f);
	case '>':
		if (f->kitty_depth < UINT8_MAX)
			f->kitty_depth++;
		return true;
	case '<':
		f->kitty_depth =
		    (uint8_t)(f->kitty_depth > n ? f->kitty_depth - n : 0);
		return true;
	case '=':
		if (f->kitty_depth == 0)
			f->kitty_base = true;
		return true;
	case 0: /* SCORC */
		return true;
	default:
		return false;
	}
}

/*
 * Whether a complete CSI sequence goes to the terminal.  Passed unless
 * listed: the queries whose answer carries text (title reports,
 * XTVERSION) or the screen's content (DECRQCRA), the other reports
 * nothing here needs, window operations, printing, the keyboard lock
 * and the switch to 8-bit controls.  The queries kept have a numeric
 * answer: DA1, DA2, DSR and CPR, DECRQM, XTQMODKEYS, the kitty keyboard
 * flags, the text area's size.
 */
static bool
csi_pass(struct ttyfilter *f, const struct csi *c)
{
	int p0 = c->n > 0 ? c->p[0] : -1;

	switch (c->final) {
	case 'c': /* DA1, DA2 (DA3 answers with an id) */
		if (!c->inter && (c->priv == 0 || c->priv == '>') &&
		    c->n <= 1 && p0 <= 0)
			return asked(f);
		return false;
	case 'n': /* DSR: status, cursor position */
		if (c->inter)
			return false;
		if (c->n == 1 &&
		    ((c->priv == 0 && (p0 == 5 || p0 == 6)) ||
		        (c->priv == '?' && p0 == 6)))
			return asked(f);
		return c->priv == '>'; /* XTMODKEYS reset */
	case 't': /* XTWINOPS */
		if (c->inter == ' ') /* DECSWBV */
			return true;
		if (c->inter || c->priv)
			return false;
		if (p0 == 14 || p0 == 16 || p0 == 18 || p0 == 19)
			return asked(f); /* sizes */
		return p0 == 22 || p0 == 23; /* the title stack */
	case 'x': /* DECREQTPARM; DECSACE, DECFRA have intermediates */
		return c->inter != 0;
	case 'p':
		if (c->inter == '$') /* DECRQM */
			return asked(f);
		return c->inter != '"'; /* DECSCL: can set 8-bit controls */
	case 'y':
		return c->inter != '*'; /* DECRQCRA: the screen's checksum */
	case 'w':
		/* DECRQPSR, DECEFR */
		return c->inter != '$' && c->inter != '\'';
	case 'u':
		if (c->inter) /* DECRQTSR, DECRQUPSS */
			return false;
		return csi_kitty(f, c);
	case 'q':
		if (c->priv == '>') /* XTVERSION: free text */
			return false;
		if (c->inter == ' ') /* DECSCUSR */
			f->cursor_style = p0 > 0;
		return true;
	case 'm':
		if (c->inter)
			return true;
		if (c->priv == '?') /* XTQMODKEYS */
			return asked(f);
		if (c->priv == '>') { /* XTMODKEYS */
			if (p0 == 4 || p0 < 0)
				f->modkeys = p0 == 4 && c->n > 1 && c->p[1] > 0;
			return true;
		}
		if (c->priv)
			return false;
		f->sgr = !(c->n == 0 || (c->n == 1 && p0 <= 0));
		return true;
	case 'S':
		return c->priv != '?'; /* XTSMGRAPHICS */
	case '|':
		/* XTREPORTSGR, DECRQLP */
		return c->inter != '#' && c->inter != '\'';
	case 'z':
	case '{':
		return c->inter != '\''; /* locator reports */
	case 'v':
		return c->inter != '"'; /* DECRQDE */
	case 'i': /* media copy: the printer */
		return false;
	case 'h':
	case 'l':
		return csi_modes(f, c);
	case 'r':
		if (c->priv == '?') /* XTRESTORE: modes set unseen */
			return false;
		if (!c->priv && !c->inter)
			f->margins =
			    c->n > 0 && (p0 > 0 || (c->n > 1 && c->p[1] > 0));
		return true;
	default:
		return true;
	}
}

static void
csi_dispatch(struct ttyfilter *f, struct ob *o, uint8_t final)
{
	struct csi c;

	f->state = S_GROUND;
	if (!csi_parse(f, final, &c) || !csi_pass(f, &c))
		return;
	put(o, f->seq, f->seqlen);
	put1(o, final);
}

/* ---- OSC and the other control strings ------------------------------- */

static bool
osc_is_colour(uint32_t n)
{
	return n == 4 || n == 5 || (n >= 10 && n <= 19);
}

/* Allowed with a body: titles, colours (set or asked: the answer is a
 * colour), hyperlinks, prompt marks; colour resets. */
static bool
osc_allowed(uint32_t n)
{
	return n <= 2 || osc_is_colour(n) || n == 8 || n == 133 || n == 104 ||
	    n == 105;
}

/* Allowed with no body: colour resets. */
static bool
osc_allowed_bare(uint32_t n)
{
	return n == 104 || n == 105 || (n >= 110 && n <= 119);
}

/* The most of a body passed; the rest is cut. */
static uint16_t
osc_cap(uint32_t n)
{
	if (n == 8)
		return 4096; /* a URI */
	if (n <= 2 || n == 133)
		return 256;
	return 512;
}

static void
osc_head(struct ttyfilter *f, struct ob *o)
{
	put1(o, ESC);
	put1(o, ']');
	putnum(o, f->osc);
}

/* After "OSC n;": the body follows. */
static void
osc_open(struct ttyfilter *f, struct ob *o)
{
	/* The first title the session sets: save the caller's, restored
	 * by ttyfilter_finish (xterm's title stack; others ignore it). */
	if (f->osc <= 2 && !f->title_pushed) {
		puts_(o, "\x1b[22;0t");
		f->title_pushed = true;
	}
	osc_head(f, o);
	put1(o, ';');
	f->body = 0;
	f->osc_spec = false;
	f->state = S_OSC_PASS;
}

/* One piece of a passed body: printable ASCII or a whole character. */
static void
osc_body(struct ttyfilter *f, struct ob *o, const uint8_t *t, size_t n)
{
	if (osc_is_colour(f->osc) && n == 1) {
		if (t[0] == '?')
			f->asked = true;
		else if (t[0] != ';' && (t[0] < '0' || t[0] > '9'))
			f->osc_spec = true;
	}
	if (f->body + n > osc_cap(f->osc))
		return;
	put(o, t, n);
	f->body = (uint16_t)(f->body + n);
}

static void
osc_track_end(struct ttyfilter *f)
{
	uint32_t n = f->osc;

	if (f->state == S_OSC_PASS && f->osc_spec) {
		if (n == 4)
			f->colours |= C_PALETTE;
		else if (n == 5)
			f->colours |= C_SPECIAL;
		else if (n >= 10 && n <= 19)
			f->colours |= C_DYNAMIC; /* "10;a;b" sets 11 too */
	}
	if (n == 104)
		f->colours &= (uint16_t)~C_PALETTE;
	else if (n == 105)
		f->colours &= (uint16_t)~C_SPECIAL;
	else if (n >= 110 && n <= 119)
		f->colours &= (uint16_t) ~(1U << (n - 110));
}

/* The string ends with term (BEL or ST, as the sandbox wrote it). */
static void
str_end(struct ttyfilter *f, struct ob *o, const char *term)
{
	if (f->state == S_OSC_NUM && f->oscdigits > 0 &&
	    osc_allowed_bare(f->osc)) {
		osc_head(f, o);
		puts_(o, term);
		osc_track_end(f);
	} else if (f->state == S_OSC_PASS) {
		puts_(o, term);
		osc_track_end(f);
	}
	f->str_esc = false;
	f->state = S_GROUND;
}

/* The string is cut short (CAN, SUB, ESC, a C1 control): a passed one
 * is closed, so the terminal sees it end where the filter does. */
static void
str_abort(struct ttyfilter *f, struct ob *o)
{
	if (f->state == S_OSC_PASS) {
		puts_(o, "\x1b\\");
		osc_track_end(f);
	}
	f->str_esc = false;
	f->state = S_GROUND;
}

static bool
in_string(const struct ttyfilter *f)
{
	return f->state == S_OSC_NUM || f->state == S_OSC_PASS ||
	    f->state == S_STR_DROP;
}

/* ---- units ---------------------------------------------------------- */

static void unit_ascii(struct ttyfilter *f, struct ob *o, uint8_t c);

/* A C1 control in the ground state: its 7-bit form, ESC Fe. */
static void
ground_c1(struct ttyfilter *f, struct ob *o, uint8_t c)
{
	seq_start(f);
	unit_ascii(f, o, (uint8_t)(c - 0x40));
}

static void
unit_c1(struct ttyfilter *f, struct ob *o, uint8_t c)
{
	if (in_string(f)) {
		if (c == C1_ST && !f->str_esc) {
			str_end(f, o, "\x1b\\");
			return;
		}
		str_abort(f, o);
	}
	/* Any sequence being collected is cut short: dropped. */
	f->state = S_GROUND;
	ground_c1(f, o, c);
}

static void
unit_text(struct ttyfilter *f, struct ob *o, const uint8_t *t, size_t n)
{
	if (f->state == S_OSC_PASS && !f->str_esc) {
		osc_body(f, o, t, n);
		return;
	}
	if (f->state == S_STR_DROP && !f->str_esc)
		return;
	if (f->state == S_OSC_NUM && !f->str_esc) {
		f->state = S_STR_DROP;
		return;
	}
	if (in_string(f))
		str_abort(f, o);
	/* Text ends whatever sequence was being collected (dropped). */
	f->state = S_GROUND;
	put(o, t, n);
}

static void
string_ascii(struct ttyfilter *f, struct ob *o, uint8_t c)
{
	if (f->str_esc) {
		f->str_esc = false;
		if (c == '\\') {
			str_end(f, o, "\x1b\\");
			return;
		}
		/* ESC and something else: the string is over and a new
		 * sequence begins. */
		str_abort(f, o);
		seq_start(f);
		unit_ascii(f, o, c);
		return;
	}
	if (c == ESC) {
		f->str_esc = true;
		return;
	}
	if (c == BEL) {
		str_end(f, o, "\a");
		return;
	}
	if (c == CAN || c == SUB) {
		str_abort(f, o);
		return;
	}
	switch (f->state) {
	case S_OSC_NUM:
		if (c >= '0' && c <= '9' && f->oscdigits < OSC_DIGITS) {
			f->osc = f->osc * 10 + (uint32_t)(c - '0');
			f->oscdigits++;
		} else if (c == ';' && f->oscdigits > 0 &&
		    osc_allowed(f->osc)) {
			osc_open(f, o);
		} else {
			f->state = S_STR_DROP;
		}
		return;
	case S_OSC_PASS:
		if (c >= 0x20 && c < DEL)
			osc_body(f, o, &c, 1);
		return; /* other controls inside: left out */
	default:
		return;
	}
}

static void
unit_ascii(struct ttyfilter *f, struct ob *o, uint8_t c)
{
	if (in_string(f)) {
		string_ascii(f, o, c);
		return;
	}
	if (f->state == S_GROUND) {
		if (c == ESC)
			seq_start(f);
		else
			exec_c0(f, o, c); /* and text: the same here */
		return;
	}
	/* Inside an ESC or CSI sequence. */
	if (c == ESC) {
		seq_start(f);
		return;
	}
	if (c == CAN || c == SUB) {
		f->state = S_GROUND;
		return;
	}
	if (c < 0x20) {
		exec_c0(f, o, c);
		return;
	}
	if (c == DEL)
		return;
	switch (f->state) {
	case S_ESC:
		if (c >= 0x30) {
			esc_dispatch(f, o, c);
		} else if (f->seqlen < TTYF_SEQ_MAX) {
			f->seq[f->seqlen++] = c;
		} else {
			f->state = S_ESC_DROP;
		}
		return;
	case S_ESC_DROP:
		if (c >= 0x30)
			f->state = S_GROUND;
		return;
	case S_CSI:
		if (c >= 0x40) {
			csi_dispatch(f, o, c);
			return;
		}
		/* A parameter after an intermediate: terminals ignore the
		 * sequence, and so does the filter. */
		if (f->seqlen >= TTYF_SEQ_MAX ||
		    (c >= 0x30 && f->seq[f->seqlen - 1] < 0x30)) {
			f->state = S_CSI_DROP;
			return;
		}
		f->seq[f->seqlen++] = c;
		return;
	case S_CSI_DROP:
		if (c >= 0x40)
			f->state = S_GROUND;
		return;
	default:
		return;
	}
}

/* ---- the decoder ---------------------------------------------------- */

/* What the lead byte needs to follow it, for the second byte. */
static bool
u8_second_ok(uint8_t lead, uint8_t c)
{
	switch (lead) {
	case 0xe0:
		return c >= 0xa0 && c <= 0xbf; /* no overlong forms */
	case 0xed:
		return c >= 0x80 && c <= 0x9f; /* no surrogates */
	case 0xf0:
		return c >= 0x90 && c <= 0xbf;
	case 0xf4:
		return c >= 0x80 && c <= 0x8f; /* up to U+10FFFF */
	default:
		return c >= 0x80 && c <= 0xbf;
	}
}

/*
 * A byte that is not part of a valid character.  A byte 0xa0 and up is
 * text for every terminal (a Latin-1 one shows it, a UTF-8 one shows
 * U+FFFD); 0x80-0x9f would be a C1 control for a terminal reading bytes,
 * so a UTF-8 terminal gets what it would show, U+FFFD.
 */
static void
u8_invalid(struct ttyfilter *f, struct ob *o, uint8_t c)
{
	static const uint8_t repl[] = {0xef, 0xbf, 0xbd};

	if (c >= 0xa0)
		unit_text(f, o, &c, 1);
	else
		unit_text(f, o, repl, sizeof(repl));
}

static void
decode(struct ttyfilter *f, struct ob *o, uint8_t c)
{
	size_t i;

	if (c < 0x80 && f->u8need == 0) {
		unit_ascii(f, o, c);
		return;
	}
	if (!f->utf8) {
		if (c <= 0x9f)
			unit_c1(f, o, c);
		else
			unit_text(f, o, &c, 1);
		return;
	}
	if (f->u8need > 0) {
		if (f->u8len == 1 ? u8_second_ok(f->u8[0], c)
		                  : (c >= 0x80 && c <= 0xbf)) {
			f->u8[f->u8len++] = c;
			if (--f->u8need > 0)
				return;
			if (f->u8[0] == 0xc2 && f->u8[1] <= 0x9f)
				unit_c1(f, o, f->u8[1]); /* U+0080..U+009F */
			else
				unit_text(f, o, f->u8, f->u8len);
			f->u8len = 0;
			return;
		}
		/* Cut short: what was kept is invalid; c starts afresh. */
		for (i = 0; i < f->u8len; i++)
			u8_invalid(f, o, f->u8[i]);
		f->u8len = 0;
		f->u8need = 0;
		decode(f, o, c);
		return;
	}
	if (c >= 0xc2 && c <= 0xdf)
		f->u8need = 1;
	else if (c >= 0xe0 && c <= 0xef)
		f->u8need = 2;
	else if (c >= 0xf0 && c <= 0xf4)
		f->u8need = 3;
	else {
		u8_invalid(f, o, c);
		return;
	}
	f->u8[0] = c;
	f->u8len = 1;
}

size_t
ttyfilter_run(struct ttyfilter *f, const uint8_t *in, size_t n, uint8_t *out)
{
	struct ob o = {.p = out, .cap = TTYFILTER_OUT_MAX(n)};
	size_t i;

	for (i = 0; i < n; i++)
		decode(f, &o, in[i]);
	return o.n;
}

size_t
ttyfilter_finish(struct ttyfilter *f, uint8_t *out)
{
	struct ob o = {.p = out, .cap = TTYFILTER_FINISH_MAX};
	size_t i;
	int m;

	if (f->state == S_OSC_PASS)
		puts_(&o, "\x1b\\");
	for (i = 0; i < ELEMENTSOF(dec_modes); i++) {
		if (!(f->dec_dirty & (1U << i)))
			continue;
		m = dec_modes[i].mode;
		if (m == 47 || m == 1047 || m == 1049)
			continue; /* after the rest */
		puts_(&o, "\x1b[?");
		putnum(&o, (unsigned)m);
		put1(&o, dec_modes[i].on ? 'h' : 'l');
	}
	if (f->ansi_dirty & A_IRM)
		puts_(&o, "\x1b[4l");
	if (f->ansi_dirty & A_SRM)
		puts_(&o, "\x1b[12h");
	if (f->ansi_dirty & A_LNM)
		puts_(&o, "\x1b[20l");
	if (f->keypad)
		puts_(&o, "\x1b>");
	if (f->modkeys)
		puts_(&o, "\x1b[>4m");
	if (f->kitty_depth) {
		puts_(&o, "\x1b[<");
		putnum(&o, f->kitty_depth);
		put1(&o, 'u');
	}
	if (f->kitty_base)
		puts_(&o, "\x1b[=0;1u");
	if (f->cursor_style)
		puts_(&o, "\x1b[0 q");
	for (i = 0; i < ELEMENTSOF(dec_modes); i++) {
		m = dec_modes[i].mode;
		if ((f->dec_dirty & (1U << i)) &&
		    (m == 47 || m == 1047 || m == 1049)) {
			puts_(&o, "\x1b[?");
			putnum(&o, (unsigned)m);
			put1(&o, 'l');
		}
	}
	if (f->margins)
		puts_(&o, "\0337\033[r\0338");
	if (f->sgr)
		puts_(&o, "\x1b[m");
	if (f->g0)
		puts_(&o, "\x1b(B");
	if (f->shifted)
		put1(&o, SI);
	if (f->title_pushed)
		puts_(&o, "\x1b[23;0t");
	if (f->colours & C_PALETTE)
		puts_(&o, "\x1b]104\x1b\\");
	if (f->colours & C_SPECIAL)
		puts_(&o, "\x1b]105\x1b\\");
	for (i = 0; i < 10; i++)
		if (f->colours & (1U << i)) {
			puts_(&o, "\x1b]");
			putnum(&o, (unsigned)(110 + i));
			puts_(&o, "\x1b\\");
		}
	ttyfilter_init(f, f->utf8);
	return o.n;
}
