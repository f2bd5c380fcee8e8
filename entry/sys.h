/*
 * sys.h: the few system calls of aisb-shell's entry point (entry/sys.c).
 *
 * On x86_64 and aarch64 the entry point is freestanding: its own _start
 * and raw system calls, no C library, so no code of anybody else runs in
 * it and nothing reads the environment before entry_main().  Elsewhere
 * (built with ENTRY_HOSTED) these wrap the C library of a static binary.
 * Every call returns the result or -errno, never sets errno.
 */
#ifndef AISB_ENTRY_SYS_H
#define AISB_ENTRY_SYS_H

long sys_write(int fd, const void *buf, unsigned long len);
/* readlink(2) of an absolute path (no NUL added). */
long sys_readlink(const char *path, char *buf, unsigned long len);
/* Anonymous read-write private memory, or -errno. */
long sys_mmap_anon(unsigned long len);
long sys_execve(const char *path, char *const argv[], char *const envp[]);
/* Real, effective and saved ids. */
long sys_getresuid(unsigned int *r, unsigned int *e, unsigned int *s);
long sys_getresgid(unsigned int *r, unsigned int *e, unsigned int *s);
__attribute__((noreturn)) void sys_exit(int status);
/* A short text for errno value e, or NULL when unknown. */
const char *sys_strerror(int e);

/*
 * The errno values entry.c tells apart (asm-generic/errno-base.h, the
 * same on every Linux architecture), and the largest of all: a result
 * in [-SYS_ERRNO_MAX, -1] is an error (no address mmap returns is).
 */
enum { SYS_ENOENT = 2, SYS_E2BIG = 7, SYS_ERRNO_MAX = 4095 };

/* The program: entry/entry.c.  Returns the exit status on failure. */
int entry_main(int argc, char **argv, char **envp);

#endif
