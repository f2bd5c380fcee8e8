/*
 * doctor_disk.c: what bounds the disk an agent can fill.  See doctor.h.
 *
 * limits.fsize (RLIMIT_FSIZE) bounds one file, not the total: the home
 * and the project are host directories, so a session can write file
 * after file until their filesystem is full.  /tmp, /dev/shm and a
 * tmpfs home are bounded by filesystem.tmp_size.  For the home and the
 * project this reports what bounds them: a user or group quota of the
 * agent on their filesystem (quotactl_fd), or a filesystem of their own
 * (not the one of /, /var, /tmp or /home); otherwise, and on btrfs,
 * whose qgroup limits it cannot read, it warns, with the recipe of
 * docs/admin-guide.md as the fix.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/quota.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "doctor.h"
#include "policy.h"
#include "util.h"

#define BTRFS_MAGIC 0x9123683e

#ifndef SYS_quotactl_fd
#define SYS_quotactl_fd 443 /* Linux 5.14, the generic number */
#endif

/* The hard block limit in bytes of id's quota of type on fd's
 * filesystem, or 0 when there is none (or no quota support). */
static uint64_t
quota_limit(int fd, int type, unsigned id)
{
	struct if_dqblk dq = {0};

	if (syscall(SYS_quotactl_fd, fd, QCMD(Q_GETQUOTA, type), id, &dq) < 0)
		return 0;
	if (!(dq.dqb_valid & QIF_BLIMITS) || dq.dqb_bhardlimit == 0)
		return 0;
	return dq.dqb_bhardlimit * 1024; /* QIF_DQBLKSIZE */
}

static void
human(uint64_t b, char *buf, size_t len)
{
	const char *u = "KMGTP";
	double v = (double)b / 1024;

	while (v >= 1024 && u[1]) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f%ciB", v, *u);
}

/* Is st on the filesystem of one of the places the system writes to? */
static const char *
shared_with_system(const struct stat *st)
{
	static const char *const sys[] = {"/", "/var", "/tmp", "/home"};
	struct stat s;

	for (size_t i = 0; i < ELEMENTSOF(sys); i++)
		if (stat(sys[i], &s) == 0 && s.st_dev == st->st_dev)
			return sys[i];
	return NULL;
}

static void
check_path(struct doctor *d, const struct passwd *pw, const char *what,
    const char *path)
{
	_cleanup_close_ int fd = -1;
	char check[300], sz[32];
	struct statvfs sv;
	struct statfs sf;
	struct stat st;
	const char *shared;
	uint64_t q;

	snprintf(check, sizeof(check), "disk[%s]", pw->pw_name);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		return; /* the home/project check says what is wrong */
	if ((q = quota_limit(fd, USRQUOTA, (unsigned)pw->pw_uid)) != 0) {
		human(q, sz, sizeof(sz));
		doctor_report(d, OK, check, NULL,
		    "%s %s: a user quota of %s for uid %u on its filesystem",
		    what, path, sz, (unsigned)pw->pw_uid);
		return;
	}
	if ((q = quota_limit(fd, GRPQUOTA, (unsigned)pw->pw_gid)) != 0) {
		human(q, sz, sizeof(sz));
		doctor_report(d, OK, check, NULL,
		    "%s %s: a group quota of %s for gid %u on its filesystem",
		    what, path, sz, (unsigned)pw->pw_gid);
		return;
	}
	if (fstatvfs(fd, &sv) < 0)
		sv.f_blocks = 0;
	human((uint64_t)sv.f_blocks * sv.f_frsize, sz, sizeof(sz));
	shared = shared_with_system(&st);
	if (fstatfs(fd, &sf) == 0 && sf.f_type == BTRFS_MAGIC)
		/* A subvolume has its own st_dev but not its own space. */
		doctor_report(d, WARN, check,
		    "cap the subvolume (btrfs qgroup limit SIZE PATH), or "
		    "give it a filesystem of its own",
		    "%s %s is on btrfs (%s) with no quota for uid %u: a "
		    "subvolume shares its filesystem's space unless a qgroup "
		    "limit caps it, which the doctor cannot read",
		    what, path, sz, (unsigned)pw->pw_uid);
	else if (shared == NULL)
		doctor_report(d, OK, check, NULL,
		    "%s %s: no quota, but a filesystem of its own (%s): the "
		    "agent can fill that one, not the system's",
		    what, path, sz);
	else
		doctor_report(d, WARN, check,
		    "a quota for the agent (setquota -u) or a size-capped "
		    "filesystem for it (docs/admin-guide.md, \"Bound the "
		    "disk\")",
		    "%s %s is on the filesystem of %s (%s) with no quota for "
		    "uid %u: limits.fsize bounds one file, so the agent can "
		    "fill it",
		    what, path, shared, sz, (unsigned)pw->pw_uid);
}

void
doctor_disk(
    struct doctor *d, const struct passwd *pw, const struct aisb_policy *p)
{
	char check[300], sz[32];

	if (p->home.tmpfs || !p->home.path) {
		snprintf(check, sizeof(check), "disk[%s]", pw->pw_name);
		human(p->fs.tmp_size, sz, sizeof(sz));
		doctor_report(d, OK, check, NULL,
		    "home: a tmpfs of filesystem.tmp_size (%s)", sz);
	} else
		check_path(d, pw, "home", p->home.path);
	if (p->project.path)
		check_path(d, pw, "project", p->project.path);
}
