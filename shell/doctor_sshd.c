/*
 * doctor_sshd.c: sshd's effective settings for an agent, from
 * "sshd -T -C user=AGENT,...": forwarding, tunnels and ~/.ssh/rc off,
 * no internal-sftp, no user environment, root-owned keys, UsePAM.
 * See doctor.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "doctor.h"
#include "util.h"

/* Run argv, collect stdout (and stderr into err).  Exit status or -errno. */
static int
run_capture(char *const argv[], char **out, char *err, size_t errlen)
{
	int po[2], pe[2], st;
	size_t len = 0, cap = 65536;
	ssize_t n;
	pid_t pid;

	*out = NULL;
	err[0] = '\0';
	if (pipe2(po, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		close(po[0]), close(po[1]);
		return -errno;
	}
	fflush(stdout);
	if ((pid = fork()) < 0)
		return -errno;
	if (pid == 0) {
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (nul >= 0)
			dup2(nul, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execv(argv[0], argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	*out = malloc(cap);
	while (*out && (n = read(po[0], *out + len, cap - len - 1)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		len += (size_t)n;
		if (len + 1 >= cap) {
			char *nb = cap < DOCTOR_MAX_OUT ? realloc(*out, cap * 2)
			                                : NULL;

			if (!nb)
				break;
			*out = nb;
			cap *= 2;
		}
	}
	if (*out)
		(*out)[len] = '\0';
	close(po[0]);
	n = read(pe[0], err, errlen - 1);
	err[n > 0 ? n : 0] = '\0';
	err[strcspn(err, "\n")] = '\0';
	close(pe[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Value of "key value" in sshd -T output, the n-th occurrence; NULL. */
static const char *
sshd_val(const char *out, const char *key, unsigned nth, char *buf, size_t len)
{
	size_t kl = strlen(key);
	const char *p = out;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);

		if (ll > kl && strncmp(p, key, kl) == 0 && p[kl] == ' ' &&
		    nth-- == 0) {
			snprintf(
			    buf, len, "%.*s", (int)(ll - kl - 1), p + kl + 1);
			return buf;
		}
		p = eol ? eol + 1 : NULL;
	}
	return NULL;
}

void
doctor_sshd(struct doctor *d, const struct passwd *pw)
{
	static const struct {
		const char *key, *want;
	} must[] = {
	    {"disableforwarding", "yes"},
	    {"allowtcpforwarding", "no"},
	    {"allowstreamlocalforwarding", "no"},
	    {"allowagentforwarding", "no"},
	    {"x11forwarding", "no"},
	    {"permittunnel", "no"},
	    {"permituserrc", "no"},
	    {"permitlisten", "none"},
	    {"permitopen", "none"},
	};
	char sshd[] = "/usr/sbin/sshd", opt_t[] = "-T", opt_f[] = "-f";
	char opt_c[] = "-C", conf[PATH_MAX];
	_cleanup_free_ char *out = NULL;
	char spec[512], err[512], check[300], v[1024], bad[8192] = "";
	char *argv[] = {sshd, opt_t, opt_f, conf, opt_c, spec, NULL};
	const char *fix =
	    "copy the shipped drop-in (packages: "
	    "/usr/share/aisb/sshd_config.d/aisb.conf; source tree: "
	    "etc/ssh/sshd_config.d/aisb.conf) to "
	    "/etc/ssh/sshd_config.d/aisb.conf and add the agent "
	    "to group ai-agents (usermod -aG ai-agents AGENT)";
	int r;

	if (access(sshd, X_OK) < 0) {
		snprintf(check, sizeof(check), "sshd[%s]", pw->pw_name);
		doctor_report(d, WARN, check,
		    "re-run --doctor after installing sshd",
		    "%s not installed: not checked", sshd);
		return;
	}
	snprintf(spec, sizeof(spec), "user=%s,host=localhost,addr=127.0.0.1",
	    pw->pw_name);
	snprintf(conf, sizeof(conf), "%s", d->sshd_config);
	r = run_capture(argv, &out, err, sizeof(err));
	if (r != 0 || !out || !*out) {
		snprintf(check, sizeof(check), "sshd[%s]", pw->pw_name);
		doctor_report(d, FAIL, check,
		    strstr(err, "privilege separation")
		        ? "mkdir -p -m 0755 /run/sshd"
		        : "sshd -t -f CONFIG shows the error",
		    "sshd -T -f %s failed (%d): %s", d->sshd_config, r,
		    err[0] ? err : "no output");
		return;
	}

	/* Forwarding, tunnels, rc: the shell-less ways out of the sandbox. */
	snprintf(check, sizeof(check), "sshd forwarding[%s]", pw->pw_name);
	for (size_t i = 0; i < ELEMENTSOF(must); i++) {
		if (sshd_val(out, must[i].key, 0, v, sizeof(v)) &&
		    strcmp(v, must[i].want) == 0)
			continue;
		snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
		    "%s%s %s", bad[0] ? ", " : "", must[i].key,
		    sshd_val(out, must[i].key, 0, v, sizeof(v)) ? v
		                                                : "(unset)");
	}
	if (bad[0])
		doctor_report(d, FAIL, check, fix, "%s", bad);
	else
		doctor_report(d, OK, check, NULL,
		    "forwarding, tunnels and ~/.ssh/rc disabled");

	/* Subsystems: an in-process internal-sftp skips the login shell. */
	snprintf(check, sizeof(check), "sshd sftp[%s]", pw->pw_name);
	bad[0] = '\0';
	for (unsigned i = 0; sshd_val(out, "subsystem", i, v, sizeof(v)); i++)
		if (strstr(v, "internal-sftp"))
			snprintf(bad, sizeof(bad), "subsystem %s", v);
	if (sshd_val(out, "forcecommand", 0, v, sizeof(v)) &&
	    strstr(v, "internal-sftp"))
		snprintf(bad, sizeof(bad), "forcecommand %s", v);
	if (bad[0])
		doctor_report(d, FAIL, check,
		    "use \"Subsystem sftp /usr/lib/openssh/sftp-server\" (runs "
		    "as aisb-shell -c, inside the sandbox) and no ForceCommand "
		    "internal-sftp",
		    "%s runs inside sshd, outside the sandbox", bad);
	else
		doctor_report(d, OK, check, NULL,
		    "no internal-sftp: sftp and scp run through the login "
		    "shell");

	/* The environment reaches aisb-shell before its main(). */
	snprintf(check, sizeof(check), "sshd environment[%s]", pw->pw_name);
	bad[0] = '\0';
	if (!sshd_val(out, "permituserenvironment", 0, v, sizeof(v)) ||
	    strcmp(v, "no") != 0)
		snprintf(bad, sizeof(bad), "permituserenvironment %s", v);
	for (unsigned i = 0; sshd_val(out, "acceptenv", i, v, sizeof(v)); i++)
		if (strcmp(v, "LANG") != 0 && strcmp(v, "LC_*") != 0 &&
		    strncmp(v, "LC_", 3) != 0)
			snprintf(bad + strlen(bad), sizeof(bad) - strlen(bad),
			    "%sacceptenv %s", bad[0] ? ", " : "", v);
	if (bad[0])
		doctor_report(d, FAIL, check,
		    "in /etc/ssh/sshd_config: PermitUserEnvironment no, "
		    "AcceptEnv LANG LC_* only",
		    "%s", bad);
	else
		doctor_report(d, OK, check, NULL,
		    "no user environment, AcceptEnv LANG LC_* only");

	/* Keys the agent cannot write. */
	snprintf(check, sizeof(check), "sshd keys[%s]", pw->pw_name);
	bad[0] = '\0';
	if (sshd_val(out, "authorizedkeysfile", 0, v, sizeof(v))) {
		char *s = v, *tok, *save = NULL;

		while ((tok = strtok_r(s, " ", &save))) {
			char path[PATH_MAX];
			struct stat st;

			s = NULL;
			if (tok[0] != '/' || strstr(tok, "%h") ||
			    strstr(tok, "%U")) {
				snprintf(bad, sizeof(bad),
				    "'%s' is in the agent's home", tok);
				break;
			}
			/* %u and %% are the only other tokens we expect. */
			{
				size_t o = 0;

				for (const char *c = tok;
				     *c && o + 1 < sizeof(path); c++) {
					if (c[0] == '%' && c[1] == 'u') {
						o += (size_t)snprintf(path + o,
						    sizeof(path) - o, "%s",
						    pw->pw_name);
						c++;
					} else if (c[0] == '%' && c[1] == '%') {
						path[o++] = '%';
						c++;
					} else
						path[o++] = *c;
				}
				path[o < sizeof(path) ? o : sizeof(path) - 1] =
				    '\0';
			}
			if (stat(path, &st) == 0 &&
			    (st.st_uid != 0 || (st.st_mode & 022))) {
				snprintf(bad, sizeof(bad),
				    "'%s' is not root-owned or is writable by "
				    "others",
				    path);
				break;
			}
		}
	}
	if (bad[0])
		doctor_report(d, FAIL, check, fix, "%s", bad);
	else
		doctor_report(
		    d, OK, check, NULL, "authorized keys root-owned (%s)", v);

	snprintf(check, sizeof(check), "sshd pam[%s]", pw->pw_name);
	if (sshd_val(out, "usepam", 0, v, sizeof(v)) && strcmp(v, "yes") == 0)
		doctor_report(d, OK, check, NULL, "UsePAM yes");
	else
		doctor_report(d, WARN, check,
		    "UsePAM yes in /etc/ssh/sshd_config",
		    "UsePAM is not yes: pam_aisb never runs for sshd logins");
}
