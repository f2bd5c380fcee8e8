/*
 * ttyfilter.h: what the sandbox may write to the caller's terminal.
 *
 * The outer runs what the sandbox writes to its pty through this filter
 * before it reaches the caller's terminal (docs/architecture.md, "The
 * caller's terminal"; the list of sequences and why: docs/threat-model.md).
 * It drops the escape sequences that make the terminal answer with
 * something the sandbox chose or that the caller owns (title reports,
 * DECRQSS, XTGETTCAP, the clipboard), that act outside the terminal's
 * screen (clipboard writes, notifications, window operations, printing,
 * file transfers) or that change how the terminal reads bytes later
 * (8-bit controls, character set modes); it keeps colours, cursor
 * movement, modes, titles (cleaned) and the few queries with a numeric
 * answer that editors and TUIs wait for.  It remembers what the session
 * left switched on (mouse and focus reports, bracketed paste, the
 * alternate screen, keyboard protocols) so that ttyfilter_finish can
 * switch it off.
 *
 * A bounded state machine over a byte stream: sequences may be split
 * anywhere between calls; a sequence too long is dropped whole; 8-bit
 * C1 controls (and, in UTF-8 mode, their UTF-8 forms) are read as their
 * 7-bit equivalents; valid UTF-8 text passes untouched.  What it writes
 * never holds a partial sequence: every escape sequence in the output
 * is complete and one that the filter decided to pass.
 */
#ifndef AISB_TTYFILTER_H
#define AISB_TTYFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A CSI or ESC sequence longer than this is dropped whole. */
#define TTYF_SEQ_MAX 256

/* Output room ttyfilter_run needs for n bytes of input. */
#define TTYFILTER_OUT_MAX(n) (3 * (size_t)(n) + TTYF_SEQ_MAX + 64)

/* Output room ttyfilter_finish needs. */
#define TTYFILTER_FINISH_MAX 512

struct ttyfilter {
	bool utf8; /* the terminal decodes UTF-8 (IUTF8) */
	uint8_t state;
	/* UTF-8 character being assembled */
	uint8_t u8[4];
	uint8_t u8len, u8need;
	/* CSI or ESC sequence being collected (7-bit form) */
	uint8_t seq[TTYF_SEQ_MAX];
	uint16_t seqlen;
	/* OSC: its number, and the body passed so far */
	uint32_t osc;
	uint8_t oscdigits;
	bool str_esc; /* ESC seen inside a string */
	bool osc_spec; /* the passed colour OSC sets a colour */
	uint16_t body;
	/* what the session switched on, to switch off at the end */
	uint32_t dec_dirty; /* one bit per tracked DEC private mode */
	uint8_t ansi_dirty; /* IRM, SRM, LNM */
	uint8_t kitty_depth; /* kitty keyboard flags pushed */
	bool kitty_base; /* kitty keyboard flags set unpushed */
	bool modkeys, keypad, cursor_style, margins, sgr, g0, shifted;
	bool title_pushed;
	uint16_t colours; /* bit n: OSC 10+n set; 10: palette; 11: special */
	bool asked; /* an allowed query passed: its answer may be on the way */
};

/* A filter for a terminal that decodes UTF-8 (utf8) or reads bytes
 * 0x80-0x9f as C1 controls. */
void ttyfilter_init(struct ttyfilter *f, bool utf8);

/*
 * Filter n bytes of in into out, which must have TTYFILTER_OUT_MAX(n)
 * bytes of room; returns the bytes written.  A sequence that is not
 * complete at the end of in is kept for the next call.
 */
size_t ttyfilter_run(
    struct ttyfilter *f, const uint8_t *in, size_t n, uint8_t *out);

/*
 * End of the session: close a passed string left open, then the
 * sequences that switch off what the session left on (reports, modes,
 * the alternate screen, keyboard protocols, colours, the title it set).
 * out has TTYFILTER_FINISH_MAX bytes of room; returns the bytes written
 * (0 when the session left nothing on).  The filter is then as new.
 */
size_t ttyfilter_finish(struct ttyfilter *f, uint8_t *out);

#endif
