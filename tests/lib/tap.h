/*
 * tap.h: a tiny TAP producer for C unit tests.
 *
 *	TEST(name) { ok(1 + 1 == 2, "addition"); }
 *	int main(void) { RUN(name); return tap_done(); }
 */
#ifndef AISB_TAP_H
#define AISB_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

static inline int
tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		printf("#   failed at %s:%d\n", file, line);
		tap_failed++;
	}
	fflush(stdout);
	return cond;
}

static inline void
tap_skip(const char *why, const char *what)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, what, why);
	fflush(stdout);
}

static inline int
tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(a, b, ...)                                                      \
	do {                                                                   \
		long long _a = (a), _b = (b);                                  \
		if (!ok(_a == _b, __VA_ARGS__))                                \
			printf("#   got %lld, want %lld\n", _a, _b);           \
	} while (0)
#define is_str(a, b, ...)                                                      \
	do {                                                                   \
		const char *_a = (a), *_b = (b);                               \
		if (!ok(_a && _b && strcmp(_a, _b) == 0, __VA_ARGS__))         \
			printf("#   got '%s', want '%s'\n",                    \
			    _a ? _a : "(null)", _b ? _b : "(null)");           \
	} while (0)
#define TEST(name) static void test_##name(void)
#define RUN(name) test_##name()

#endif
