/*
 * test_ttyfilter.c: the escape-sequence filter of the pty relay.
 *
 * Every case is run three ways, which must agree: in one call, one byte
 * per call, and split in two at every position (a sequence cut between
 * two reads of the pty).  Checked: what editors, pagers, tmux and shells
 * write passes unchanged (colours, movement, modes, UTF-8, the queries
 * with numeric answers that they wait for); clipboard writes, title and
 * status reports, DECRQSS, XTGETTCAP, XTVERSION, DCS/APC/PM/SOS, ENQ,
 * DECID, the 8-bit and charset switches never pass, in their 7-bit,
 * 8-bit and UTF-8 C1 forms; sequences too long are dropped whole and
 * the text after them survives; titles are cleaned and capped; what the
 * session left on is switched off by ttyfilter_finish.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "ttyfilter.h"

static uint8_t outbuf[TTYFILTER_OUT_MAX(65536)];

/* Filter in (len n) with the input cut at cut (n: no cut, 1: bytes). */
static size_t
run_cut(
    struct ttyfilter *f, const uint8_t *in, size_t n, size_t cut, uint8_t *out)
{
	size_t i, m = 0, step;

	for (i = 0; i < n; i += step) {
		step = cut == 1 ? 1 : (i == 0 && cut < n ? cut : n - i);
		m += ttyfilter_run(f, in + i, step, out + m);
	}
	return m;
}

/* The output of in, the same whichever way it is cut; NULL otherwise. */
static const char *
filt(const char *in, size_t n, bool utf8, size_t *ret_n)
{
	static uint8_t other[sizeof(outbuf)];
	struct ttyfilter f;
	size_t m, m2, cut;

	ttyfilter_init(&f, utf8);
	m = run_cut(&f, (const uint8_t *)in, n, n, outbuf);
	for (cut = 1; cut < n; cut++) {
		ttyfilter_init(&f, utf8);
		m2 = run_cut(&f, (const uint8_t *)in, n, cut, other);
		if (m2 != m || memcmp(other, outbuf, m) != 0) {
			printf("# cut at %zu gives a different output\n", cut);
			return NULL;
		}
	}
	outbuf[m] = '\0';
	if (ret_n)
		*ret_n = m;
	return (const char *)outbuf;
}

static void
printable(const char *s, size_t n, char *dst, size_t cap)
{
	size_t i, k = 0;

	for (i = 0; i < n && k + 5 < cap; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x20 && c < 0x7f && c != '\\')
			dst[k++] = (char)c;
		else
			k += (size_t)snprintf(dst + k, cap - k, "\\x%02x", c);
	}
	dst[k] = '\0';
}

/* in gives want (both may hold NUL: lengths given). */
static void
check_n(const char *in, size_t n, const char *want, size_t wn, bool utf8,
    const char *what)
{
	size_t m = 0;
	const char *got = filt(in, n, utf8, &m);
	char a[512], b[512];

	if (!ok(got && m == wn && memcmp(got, want, wn) == 0, "%s", what) &&
	    got) {
		printable(got, m, a, sizeof(a));
		printable(want, wn, b, sizeof(b));
		printf("#   got  '%s'\n#   want '%s'\n", a, b);
	}
}

#define same(s, what) check_n(s, sizeof(s) - 1, s, sizeof(s) - 1, true, what)
#define gives(s, w, what)                                                      \
	check_n(s, sizeof(s) - 1, w, sizeof(w) - 1, true, what)
#define gives8(s, w, what)                                                     \
	check_n(s, sizeof(s) - 1, w, sizeof(w) - 1, false, what)

/* The end of a session after in, as a string. */
static const char *
finish_after(const char *in)
{
	static uint8_t fin[TTYFILTER_FINISH_MAX + 1];
	struct ttyfilter f;
	size_t n;

	ttyfilter_init(&f, true);
	(void)ttyfilter_run(&f, (const uint8_t *)in, strlen(in), outbuf);
	n = ttyfilter_finish(&f, fin);
	fin[n] = '\0';
	return (const char *)fin;
}

static bool
asks(const char *in)
{
	struct ttyfilter f;

	ttyfilter_init(&f, true);
	(void)ttyfilter_run(&f, (const uint8_t *)in, strlen(in), outbuf);
	return f.asked;
}

TEST(kept)
{
	same("plain text\r\n", "text and newlines");
	same("\x1b[1;31mred\x1b[m \x1b[38;2;10;20;30mrgb\x1b[0m",
	    "colours (SGR, truecolour)");
	same("\x1b[38:2::10:20:30m\x1b[4:3m", "SGR with sub-parameters");
	same("\x1b[10;5H\x1b[2J\x1b[K\x1b[3A\x1b[2C\x1b[1;24r\x1b[s\x1b[u",
	    "cursor movement, erase, scroll region");
	same("\x1b"
	     "7\x1b"
	     "8\x1b"
	     "D\x1b"
	     "E\x1b"
	     "M\x1b(0lqk\x1b(B",
	    "save/restore, index, line drawing charset");
	same("\x1b[?1049h\x1b[?1h\x1b=\x1b[?2004h\x1b[?1004h\x1b[?25l",
	    "modes vim sets (alternate screen, keypad, paste, focus)");
	same("\x1b[?1006;1000h\x1b[?1002h\x1b[>4;2m\x1b[22;0;0t\x1b[23;0;0t",
	    "mouse modes, modifyOtherKeys, the title stack");
	same("\x1b[0%m", "an unknown CSI with an intermediate (vim's probe)");
	same("\x1b[2 q\x1b[?12h\x1b[?12l", "cursor shape and blink");
	same("\x1b[?2026h\x1b[?2026l\x1b[?69h\x1b[?7727h", "tmux's modes");
	same("caf\xc3\xa9 \xe2\x9c\x93 \xe6\x97\xa5\xe6\x9c\xac "
	     "\xf0\x9f\x98\x80 \xe2\x94\x80\xe2\x94\x82",
	    "UTF-8 text untouched (including box drawing)");
	same("\xe2\x80\x9b\xe2\x80\x9c", "UTF-8 whose last byte is 0x9b, 0x9c");
	same("a\bb\tc\a\x0e\x0f", "C0 controls other than ENQ");
	same("\x1b]8;;https://example.org/\x1b\\link\x1b]8;;\x1b\\",
	    "hyperlinks");
	same("\x1b]4;1;rgb:ff/00/00\a\x1b]104\a\x1b]11;#000000\x1b\\",
	    "palette and colour changes and resets");
	same("\x1b]133;A\a$ \x1b]133;B\a", "prompt marks");
	same("\x1b[5n\x1b[6n\x1b[?6n", "DSR and CPR (numeric answers)");
	same("\x1b[c\x1b[0c\x1b[>c\x1b[>0c", "DA1 and DA2 (numeric answers)");
	same("\x1b[?4m\x1b[?u\x1b[?2004$p\x1b[4$p\x1b[18t\x1b[14t",
	    "XTQMODKEYS, kitty flags, DECRQM, sizes (numeric answers)");
	same("\x1b]10;?\a\x1b]11;?\x1b\\\x1b]4;1;?\a",
	    "colour queries (the answer is a colour)");
	ok(asks("\x1b[6n") && asks("\x1b[>c") && asks("\x1b]11;?\a"),
	    "a numeric query passed is noted (its answer may be on the way)");
	ok(!asks("\x1b[1mno query\x1b[m\x1b]2;t\a"),
	    "nothing asked: not noted");
	gives("\x1b[1m\x1b[z\x1b[?1000;1006h", "\x1b[1m\x1b[z\x1b[?1000;1006h",
	    "unknown finals pass");
}

TEST(dropped)
{
	gives("a\x1b]52;c;aGVsbG8=\ab", "ab", "OSC 52 clipboard write (BEL)");
	gives("a\x1b]52;c;aGVsbG8=\x1b\\b", "ab", "OSC 52 (ST)");
	gives("a\x1b]52;c;?\ab", "ab", "OSC 52 clipboard read");
	gives("a\x9d"
	      "52;c;aGVsbG8=\x9c"
	      "b",
	    "a\xef\xbf\xbd"
	    "52;c;aGVsbG8="
	    "\xef\xbf\xbd"
	    "b",
	    "a stray 0x9d in UTF-8 is U+FFFD, not OSC");
	gives8("a\x9d"
	       "52;c;aGVsbG8=\x9c"
	       "b",
	    "ab", "OSC 52 in its 8-bit form (8-bit terminal)");
	gives("a\xc2\x9d"
	      "52;c;aGVsbG8=\xc2\x9c"
	      "b",
	    "ab", "OSC 52 with UTF-8-encoded C1 OSC and ST");
	gives("a\x1b[21tb\x1b[20t", "ab", "title and icon reports");
	gives8("a\x9b"
	       "21tb",
	    "ab", "title report, 8-bit CSI");
	gives("a\xc2\x9b"
	      "21tb",
	    "ab", "title report, UTF-8 C1 CSI");
	gives("a\x1bP$q m\x1b\\b", "ab", "DECRQSS");
	gives("a\x1bP+q436f\x1b\\b", "ab", "XTGETTCAP");
	gives("a\x1bPzz\x1b\\b", "ab", "any DCS (vim's probe)");
	gives("a\x1bP0;1|17/73\x1b\\b", "ab", "DECUDK (function keys)");
	gives("a\x1b_Gf=100;AAAA\x1b\\b\x1b^pm\x1b\\\x1bXsos\x1b\\", "ab",
	    "APC, PM, SOS");
	gives("a\x1bPtmux;\x1b\x1b]52;c;AA\a\x1b\\b", "ab",
	    "tmux passthrough (its inner OSC 52 too)");
	gives("a\x1b]1337;File=name=eA==:AAAA\ab\x1b]7;file:///x\a", "ab",
	    "iTerm2 file transfer, OSC 7");
	gives("a\x1b]9;hi\a\x1b]777;notify;t;b\a\x1b]50;?\ab", "ab",
	    "notifications, font query");
	gives("a\x1b]l\a\x1b];x\a\x1b]99999999;x\ab", "ab",
	    "OSC with no number or too long a number");
	gives("a\x05"
	      "b",
	    "ab", "ENQ (answerback)");
	gives("a\x1bZ"
	      "b\x1b[=c\x1b[>q\x1b[x\x1b[5;1*y",
	    "ab", "DECID, DA3, XTVERSION, DECREQTPARM, DECRQCRA");
	gives("a\x1b[5;1-*y\x1b[1;1;1;1;1;1 *y\x1b[1$ |b", "ab",
	    "DECRQCRA and the rest behind a second intermediate");
	gives("a\x1b[?1;2S\x1b[1$w\x1b[1$u\x1b[&u\x1b[\"v\x1b[#|b", "ab",
	    "other reports");
	gives("a\x1b[8;50;200t\x1b[3;0;0t\x1b[11t\x1b[13t\x1b[>2tb", "ab",
	    "window operations and their reports");
	gives("a\x1b[5i\x1b[4ib", "ab", "printer (media copy)");
	gives("a\x1b[2h\x1b[2;4hb\x1b[2l", "ab\x1b[2l",
	    "the keyboard lock (KAM), alone or with other modes");
	gives("a\x1b G\x1b F\x1b -G\x1b N\x1b[62;0\"p\x1b%@\x1b%Gb", "ab",
	    "8-bit controls, DECSCL, leaving or choosing UTF-8");
	gives("a\x1bkwindow name\x1b\\b", "ab", "screen's title string");
	gives("a\x1b[?1000r\x1b[1;2'z\x1b[1'|b", "ab",
	    "XTRESTORE, locator reports");
}

TEST(malformed)
{
	char in[1024], want[16];
	size_t n;

	gives("a\x1b[1;2\x1b[31mb", "a\x1b[31mb",
	    "an ESC inside a CSI: the CSI is dropped");
	gives("a\x1b[1\x18"
	      "b\x1b[2\x1a"
	      "c",
	    "abc", "CAN and SUB cut a CSI");
	gives("a\x1b[1\nB", "a\n\x1b[1B",
	    "a C0 control inside a CSI runs where it is");
	gives("a\x1b[1;2 3mb", "ab",
	    "a parameter after an intermediate: dropped");
	gives("a\x1b[1?mb", "ab", "a private marker not first: dropped");
	gives("a\x1b[23;0;;;;;;;;;;;;;;;;;;;2hb", "ab",
	    "more parameters than read: dropped (KAM as the 20th)");
	same("\x1b[1;2;3;4;5;6;7;8;9;1;2;3;4;5;6;7;8;9;31m",
	    "but SGR keeps its many parameters");
	gives("a\x1b[:2hb\x1b[1:2Hc", "abc",
	    "sub-parameters outside SGR: dropped (one terminal's KAM)");
	gives("a\x1b[1\xc3\xa9m", "a\xc3\xa9m",
	    "text inside a CSI ends it (dropped), the text stays");
	gives8("a\x9b"
	       "1\x9b"
	       "21t",
	    "a", "an 8-bit CSI inside a CSI restarts it");
	gives("a\x1b[31\x7fmb", "a\x1b[31mb", "DEL inside a CSI is ignored");

	/* Too long: the whole sequence goes, what follows stays. */
	n = (size_t)snprintf(in, sizeof(in), "a\x1b[");
	memset(in + n, '1', 600);
	n += 600;
	n += (size_t)snprintf(in + n, sizeof(in) - n, "tb\x1b[1mc");
	memcpy(want, "ab\x1b[1mc", 8);
	check_n(in, n, want, 7, true, "a CSI of 600 bytes is dropped whole");
	n = (size_t)snprintf(in, sizeof(in), "a\x1b");
	memset(in + n, ' ', 300);
	n += 300;
	n += (size_t)snprintf(in + n, sizeof(in) - n, "Gb");
	check_n(in, n, "ab", 2, true, "an ESC sequence of 300 bytes too");

	/* Strings: ESC other than ST ends them and starts a sequence. */
	gives("a\x1b]2;t\x1b]52;c;AA\ab", "a\x1b[22;0t\x1b]2;t\x1b\\b",
	    "OSC 52 inside a title: the title ends, OSC 52 is dropped");
	gives("a\x1b]2;t\x1b[1mb", "a\x1b[22;0t\x1b]2;t\x1b\\\x1b[1mb",
	    "a CSI inside a title ends it");
	gives("a\x1b]2;t\x18"
	      "b",
	    "a\x1b[22;0t\x1b]2;t\x1b\\b", "CAN ends a title, closed with ST");
	gives("a\x1bP$q\x1b[1mb", "a\x1b[1mb",
	    "a dropped DCS ends at an ESC that is not ST");
	gives("a\x1b]2;\x01t\x7fi\tt\nle\ab", "a\x1b[22;0t\x1b]2;title\ab",
	    "controls inside a title are left out");
	gives("a\x1b]2;caf\xc3\xa9\xc2\x9b"
	      "21t\ab",
	    "a\x1b[22;0t\x1b]2;caf\xc3\xa9\x1b\\\ab",
	    "a UTF-8 C1 CSI inside a title ends it (and is dropped)");
	gives("a\x1b]2;x\xc2\x9c"
	      "b",
	    "a\x1b[22;0t\x1b]2;x\x1b\\b", "UTF-8 ST ends a title");
	gives8("a\x1b]2;x\xe9\x9c"
	       "b",
	    "a\x1b[22;0t\x1b]2;x\xe9\x1b\\b",
	    "8-bit ST ends a title; Latin-1 text inside stays");

	/* Titles are capped. */
	n = (size_t)snprintf(in, sizeof(in), "\x1b]2;");
	memset(in + n, 'x', 700);
	n += 700;
	in[n++] = '\a';
	{
		size_t m = 0;
		const char *got = filt(in, n, true, &m);

		ok(got && m == 7 + 4 + 256 + 1 && got[m - 1] == '\a',
		    "a title of 700 bytes is cut to 256 (%zu)", m);
	}

	/* UTF-8 that is not. */
	gives("a\xe2\x28\xa1"
	      "b",
	    "a\xe2(\xa1"
	    "b",
	    "invalid UTF-8: bytes 0xa0 and up stay");
	gives("a\x9b"
	      "21t",
	    "a\xef\xbf\xbd"
	    "21t",
	    "a stray 0x9b is U+FFFD for a UTF-8 terminal (and no CSI)");
	gives("a\xe0\x82\x9b"
	      "21t",
	    "a\xe0\xef\xbf\xbd\xef\xbf\xbd"
	    "21t",
	    "an overlong U+009B is no CSI");
	gives("a\xed\xa0\x80"
	      "b",
	    "a\xed\xa0\xef\xbf\xbd"
	    "b",
	    "a surrogate is not passed as one");
	gives("a\xc2", "a", "a character cut at the end waits");
	gives8("caf\xe9 \xc3\xa9", "caf\xe9 \xc3\xa9",
	    "an 8-bit terminal: Latin-1 text stays");
	gives8("a\xe2\x80\x9b"
	       "21tb",
	    "a\xe2\x1b@b",
	    "an 8-bit terminal reads 0x9b as CSI, whatever came before");
}

TEST(finish)
{
	const char *s;

	is_str(finish_after("text \x1b[1mbold\x1b[m \x1b[?1049h\x1b[?1049l"),
	    "", "a session that cleaned up: nothing to undo");
	is_str(finish_after("\x1b[?1000h\x1b[?1006h\x1b[?1049h\x1b[?2004h"
	                    "\x1b[?1004h\x1b="),
	    "\x1b[?1000l\x1b[?1004l\x1b[?1006l\x1b[?2004l\x1b>\x1b[?1049l",
	    "killed inside vim: reports, paste, keypad, then the screen");
	is_str(finish_after("\x1b[?25l\x1b[?7l"), "\x1b[?7h\x1b[?25h",
	    "a hidden cursor is shown, autowrap back on");
	is_str(finish_after("\x1b[>4;2m\x1b[>1u\x1b[>1u\x1b[<u\x1b[3 q"),
	    "\x1b[>4m\x1b[<1u\x1b[0 q",
	    "modifyOtherKeys, kitty keyboard (depth kept), cursor shape");
	is_str(finish_after("\x1b[>4;2m\x1b[>4;m\x1b[>1u\x1b[<u"), "",
	    "the same, undone by the session: nothing");
	is_str(finish_after("\x1b[4h\x1b[12l\x1b[20h\x1b[2;20r\x1b[31m"
	                    "\x1b(0\x0e"),
	    "\x1b[4l\x1b[12h\x1b[20l\0337\033[r\0338\x1b[m\x1b(B\x0f",
	    "insert mode, local echo, newline mode, margins, colour, charset");
	is_str(finish_after("\x1b]2;hi\a\x1b]4;1;red\a\x1b]11;#000\a"),
	    "\x1b[23;0t\x1b]104\x1b\\\x1b]110\x1b\\\x1b]111\x1b\\"
	    "\x1b]112\x1b\\\x1b]113\x1b\\\x1b]114\x1b\\\x1b]115\x1b\\"
	    "\x1b]116\x1b\\\x1b]117\x1b\\\x1b]118\x1b\\\x1b]119\x1b\\",
	    "the title restored, the colours reset");
	is_str(finish_after("\x1b]2;unterminated"), "\x1b\\\x1b[23;0t",
	    "a title left open is closed first");
	is_str(finish_after("\x1b[?1000h\x1b"
	                    "c"),
	    "", "RIS resets the terminal: nothing left");
	s = finish_after("\x1b]11;?\a\x1b]104\a");
	is_str(s, "", "colour queries and resets change nothing");
}

TEST(bounds)
{
	static uint8_t in[4096], out[TTYFILTER_OUT_MAX(4096)];
	struct ttyfilter f;
	size_t i, m;

	/* The worst growth: stray C1 bytes, each U+FFFD in UTF-8. */
	memset(in, 0x85, sizeof(in));
	ttyfilter_init(&f, true);
	m = ttyfilter_run(&f, in, sizeof(in), out);
	is_int(m, 3 * sizeof(in), "4096 stray bytes give 4096 U+FFFD");
	for (i = 0; i < sizeof(in); i++)
		in[i] = i % 2 ? 'x' : 0x9d;
	ttyfilter_init(&f, false);
	m = ttyfilter_run(&f, in, sizeof(in), out);
	ok(m <= TTYFILTER_OUT_MAX(sizeof(in)), "8-bit OSCs cut short: %zu", m);
}

int
main(void)
{
	RUN(kept);
	RUN(dropped);
	RUN(malformed);
	RUN(finish);
	RUN(bounds);
	return tap_done();
}
