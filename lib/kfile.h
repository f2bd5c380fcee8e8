/*
 * kfile.h: the files through which the kernel is told and asked things
 * (/proc, /proc/sys, cgroupfs).  Every one of them takes its value in
 * one write(2) and answers each write as a whole, so a write here is
 * one call and a short one is an error; a read takes the whole file.
 * Names are opened below a directory fd without following a symlink in
 * the last component.
 *
 * Library code: no exit, no printing.
 */
#ifndef AISB_KFILE_H
#define AISB_KFILE_H

#include <sys/types.h>

/* Write data (a string; no newline needed) to file below dfd in one
 * write(2).  0, -errno, or -EIO for a short write (a count of 0
 * included). */
int kfile_write_at(int dfd, const char *file, const char *data);

/* Read file below dfd into buf, NUL-terminated, at most size - 1
 * bytes: the length (size - 1 when the file may be longer), or -errno;
 * -EINVAL for a size of 0. */
ssize_t kfile_read_at(int dfd, const char *file, char *buf, size_t size);

#endif
