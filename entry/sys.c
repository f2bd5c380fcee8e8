/*
 * sys.c: the entry point's start and system calls.  See sys.h.
 *
 * Freestanding (x86_64, aarch64): the kernel enters _start with the
 * stack holding argc, argv, NULL, envp, NULL; _start hands that to
 * entry_main() and exits with what it returns.  The binary is a static
 * PIE with no relocations (tests/pam/75-entry.t checks it): nothing of
 * the C library's start-up (GLIBC_TUNABLES, the loader's variables)
 * runs, because there is none.
 *
 * Hosted (ENTRY_HOSTED, any other architecture): a static binary over
 * the C library.  Its start-up parses GLIBC_TUNABLES and notes the
 * loader's variables, but loads no code: a static program has no
 * dynamic loader, and entry_main() calls nothing that would dlopen.
 */
#ifdef ENTRY_HOSTED
#define _GNU_SOURCE
#endif
#include <stddef.h>

#include "sys.h"

#if !defined(ENTRY_HOSTED) && !defined(__x86_64__) && !defined(__aarch64__)
#error "no freestanding start for this architecture: build with ENTRY_HOSTED=1"
#endif

#ifndef ENTRY_HOSTED

#define AT_FDCWD_ (-100)
#define PROT_RW_ 3 /* PROT_READ | PROT_WRITE */
#define MAP_PRIV_ANON_ 0x22 /* MAP_PRIVATE | MAP_ANONYMOUS */

#if defined(__x86_64__)
enum {
	NR_write = 1,
	NR_mmap = 9,
	NR_execve = 59,
	NR_getresuid = 118,
	NR_getresgid = 120,
	NR_exit_group = 231,
	NR_readlinkat = 267,
};

static long
sc6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;
	long ret;

	__asm__ volatile(
	    "syscall"
	    : "=a"(ret)
	    : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
	    : "rcx", "r11", "memory");
	return ret;
}

/* The stack pointer at entry points at argc; keep the ABI's 16-byte
 * alignment for the C code. */
__asm__(".text\n"
        ".global _start\n"
        ".type _start, @function\n"
        "_start:\n"
        "	endbr64\n"
        "	xor %ebp, %ebp\n"
        "	mov %rsp, %rdi\n"
        "	and $-16, %rsp\n"
        "	call start_c\n"
        "	hlt\n");

#elif defined(__aarch64__)
enum {
	NR_readlinkat = 78,
	NR_write = 64,
	NR_exit_group = 94,
	NR_getresuid = 148,
	NR_getresgid = 150,
	NR_execve = 221,
	NR_mmap = 222,
};

static long
sc6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;
	register long x2 __asm__("x2") = a3;
	register long x3 __asm__("x3") = a4;
	register long x4 __asm__("x4") = a5;
	register long x5 __asm__("x5") = a6;

	__asm__ volatile("svc #0"
	                 : "+r"(x0)
	                 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
	                 : "memory");
	return x0;
}

/* sp is 16-byte aligned at entry and points at argc. */
__asm__(".text\n"
        ".global _start\n"
        ".type _start, %function\n"
        "_start:\n"
        "	mov x29, #0\n"
        "	mov x30, #0\n"
        "	mov x0, sp\n"
        "	bl start_c\n"
        "	brk #0\n");
#endif

__attribute__((used, noreturn)) static void
start_c(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);

	sys_exit(entry_main(argc, argv, argv + argc + 1));
}

long
sys_write(int fd, const void *buf, unsigned long len)
{
	return sc6(NR_write, fd, (long)buf, (long)len, 0, 0, 0);
}

long
sys_readlink(const char *path, char *buf, unsigned long len)
{
	return sc6(
	    NR_readlinkat, AT_FDCWD_, (long)path, (long)buf, (long)len, 0, 0);
}

long
sys_mmap_anon(unsigned long len)
{
	return sc6(NR_mmap, 0, (long)len, PROT_RW_, MAP_PRIV_ANON_, -1, 0);
}

long
sys_execve(const char *path, char *const argv[], char *const envp[])
{
	return sc6(NR_execve, (long)path, (long)argv, (long)envp, 0, 0, 0);
}

long
sys_getresuid(unsigned int *r, unsigned int *e, unsigned int *s)
{
	return sc6(NR_getresuid, (long)r, (long)e, (long)s, 0, 0, 0);
}

long
sys_getresgid(unsigned int *r, unsigned int *e, unsigned int *s)
{
	return sc6(NR_getresgid, (long)r, (long)e, (long)s, 0, 0, 0);
}

void
sys_exit(int status)
{
	for (;;)
		sc6(NR_exit_group, status, 0, 0, 0, 0, 0);
}

/* The kernel's numbers on both architectures (asm-generic/errno). */
const char *
sys_strerror(int e)
{
	switch (e) {
	case 1:
		return "Operation not permitted";
	case 2:
		return "No such file or directory";
	case 7:
		return "Argument list too long";
	case 8:
		return "Exec format error";
	case 12:
		return "Cannot allocate memory";
	case 13:
		return "Permission denied";
	case 20:
		return "Not a directory";
	case 26:
		return "Text file busy";
	case 36:
		return "File name too long";
	case 40:
		return "Too many levels of symbolic links";
	default:
		return NULL; /* entry.c prints the number */
	}
}

/*
 * The compiler may call these for copies and zeroing (-ftrivial-auto-
 * var-init among others) even in freestanding code.  The Makefile builds
 * this directory with -fno-tree-loop-distribute-patterns, so the loops
 * are not turned back into calls of themselves.
 */
void *memcpy(void *dst, const void *src, unsigned long n);
void *memset(void *dst, int c, unsigned long n);
void *memmove(void *dst, const void *src, unsigned long n);
int memcmp(const void *a, const void *b, unsigned long n);

void *
memcpy(void *dst, const void *src, unsigned long n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	while (n--)
		*d++ = *s++;
	return dst;
}

void *
memmove(void *dst, const void *src, unsigned long n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (d < s)
		while (n--)
			*d++ = *s++;
	else
		while (n--)
			d[n] = s[n];
	return dst;
}

void *
memset(void *dst, int c, unsigned long n)
{
	unsigned char *d = dst;

	while (n--)
		*d++ = (unsigned char)c;
	return dst;
}

int
memcmp(const void *a, const void *b, unsigned long n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

#else /* ENTRY_HOSTED */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define RET(x) ((x) < 0 ? -(long)errno : (long)(x))

long
sys_write(int fd, const void *buf, unsigned long len)
{
	ssize_t r = write(fd, buf, len);

	return RET(r);
}

long
sys_readlink(const char *path, char *buf, unsigned long len)
{
	ssize_t r = readlink(path, buf, len);

	return RET(r);
}

long
sys_mmap_anon(unsigned long len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? -(long)errno : (long)p;
}

long
sys_execve(const char *path, char *const argv[], char *const envp[])
{
	execve(path, argv, envp);
	return -(long)errno;
}

long
sys_getresuid(unsigned int *r, unsigned int *e, unsigned int *s)
{
	int x = getresuid(r, e, s);

	return RET(x);
}

long
sys_getresgid(unsigned int *r, unsigned int *e, unsigned int *s)
{
	int x = getresgid(r, e, s);

	return RET(x);
}

void
sys_exit(int status)
{
	_exit(status);
}

const char *
sys_strerror(int e)
{
	return strerror(e);
}

int
main(int argc, char **argv, char **envp)
{
	return entry_main(argc, argv, envp);
}

#endif
