/*
 * policy_key.c: every key aisb.conf(5) knows: its type (scalar, list,
 * section), the kind of value it takes (checked by policy_value.c) and
 * its default.  See policy_internal.h.
 *
 * The libconfuse schema in policy_parse.c declares the same keys for
 * the parser; policy_keys[] is the public list that the documentation
 * tests compare with aisb.conf(5).
 */
#include <stdio.h>
#include <string.h>

#include "policy_internal.h"
#include "util.h"

static const char *const def_agents[] = {"@ai-agents", NULL};
static const char *const def_roots[] = {"/srv/agents/%u", NULL};
static const char *const def_protect[] = {".git", NULL};
/*
 * Hidden by default: other users' data, host sockets and state, boot
 * and mount points, aisb's own config and the host's secrets.
 */
static const char *const def_hide[] = {
    "/home",
    "/root",
    "/run",
    "/var/run",
    "/var/lib",
    "/var/log",
    "/var/mail",
    "/var/spool",
    "/var/tmp",
    "/var/backups",
    "/srv",
    "/mnt",
    "/media",
    "/boot",
    "/etc/aisb",
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssh/ssh_host_*_key",
    "/etc/ssl/private",
    NULL,
};
static const char *const def_none[] = {NULL};
static const char *const def_pass[] = {"TERM", "LANG", "LC_*", NULL};
static const char *const def_ports[] = {"80", "443", NULL};
static const char *const def_services[] = {"sshd", "su", "su-l", "login", NULL};

const struct policy_keydef policy_key_table[] = {
    {"shell", PK_SCALAR, PV_PATH, "/bin/bash", NULL},
    {"hostname", PK_SCALAR, PV_HOSTNAME, "aisb", NULL},
    {"agents", PK_LIST, PV_AGENT, NULL, def_agents},
    {"project", PK_SECTION, PV_NONE, NULL, NULL},
    {"project.path", PK_SCALAR, PV_PATHX, "/srv/agents/%u/project", NULL},
    {"project.roots", PK_LIST, PV_PATHX, NULL, def_roots},
    {"project.target", PK_SCALAR, PV_PATH, "/project", NULL},
    {"project.readonly", PK_SCALAR, PV_BOOL, "false", NULL},
    {"project.protect", PK_LIST, PV_RELPATH, NULL, def_protect},
    {"home", PK_SECTION, PV_NONE, NULL, NULL},
    {"home.path", PK_SCALAR, PV_HOMEPATH, "/var/lib/aisb/home/%u", NULL},
    {"filesystem", PK_SECTION, PV_NONE, NULL, NULL},
    {"filesystem.root", PK_SCALAR, PV_PATH, "/", NULL},
    {"filesystem.view", PK_SCALAR, PV_VIEW, "system", NULL},
    {"filesystem.hide", PK_LIST, PV_GLOBX, NULL, def_hide},
    {"filesystem.readonly", PK_LIST, PV_GLOBX, NULL, def_none},
    {"filesystem.readwrite", PK_LIST, PV_GLOBX, NULL, def_none},
    {"filesystem.tmp_size", PK_SCALAR, PV_TMPSIZE, "1G", NULL},
    {"env", PK_SECTION, PV_NONE, NULL, NULL},
    {"env.pass", PK_LIST, PV_ENVGLOB, NULL, def_pass},
    {"env.set", PK_LIST, PV_ENVSET, NULL, def_none},
    {"env.secret", PK_TSECTION, PV_NONE, NULL, NULL},
    {"env.secret.file", PK_SCALAR, PV_PATHX, NULL, NULL},
    {"credential", PK_TSECTION, PV_NONE, NULL, NULL},
    {"credential.file", PK_SCALAR, PV_PATHX, NULL, NULL},
    {"credential.hosts", PK_LIST, PV_HOSTRULE, NULL, NULL},
    {"credential.header", PK_SCALAR, PV_CREDHEADER, NULL, NULL},
    {"credential.env", PK_SCALAR, PV_ENVNAME, NULL, NULL},
    {"network", PK_SECTION, PV_NONE, NULL, NULL},
    {"network.mode", PK_SCALAR, PV_NETMODE, "gated", NULL},
    {"network.allow", PK_LIST, PV_HOSTRULE, NULL, def_none},
    {"network.deny", PK_LIST, PV_HOSTRULE, NULL, def_none},
    {"network.allow_cidr", PK_LIST, PV_CIDR, NULL, def_none},
    {"network.ports", PK_LIST, PV_PORT, NULL, def_ports},
    {"network.transparent", PK_SCALAR, PV_BOOL, "true", NULL},
    {"network.resolver", PK_SCALAR, PV_RESOLVER, "", NULL},
    {"network.proxy_port", PK_SCALAR, PV_PORT, "3128", NULL},
    {"network.suffix_names", PK_SCALAR, PV_COUNT, "64", NULL},
    {"network.notices", PK_SCALAR, PV_BOOL, "true", NULL},
    {"network.ca_file", PK_SCALAR, PV_OPTPATH, "", NULL},
    {"limits", PK_SECTION, PV_NONE, NULL, NULL},
    {"limits.memory", PK_SCALAR, PV_SIZE, "4G", NULL},
    {"limits.pids", PK_SCALAR, PV_PIDS, "1024", NULL},
    {"limits.cpu", PK_SCALAR, PV_PCT, "200%", NULL},
    {"limits.nofile", PK_SCALAR, PV_NOFILE, "4096", NULL},
    {"limits.fsize", PK_SCALAR, PV_SIZE, "20G", NULL},
    {"limits.timeout", PK_SCALAR, PV_TIMEOUT, "0", NULL},
    {"limits.enforce", PK_SCALAR, PV_ENFORCE, "strict", NULL},
    {"limits.notices", PK_SCALAR, PV_NOTICES, "terminal", NULL},
    {"terminal", PK_SECTION, PV_NONE, NULL, NULL},
    {"terminal.filter", PK_SCALAR, PV_BOOL, "true", NULL},
    {"pam", PK_SECTION, PV_NONE, NULL, NULL},
    {"pam.services", PK_LIST, PV_SERVICE, NULL, def_services},
};

const char *const policy_keys[] = {
    "shell",
    "hostname",
    "agents",
    "project.path",
    "project.roots",
    "project.target",
    "project.readonly",
    "project.protect",
    "home.path",
    "filesystem.root",
    "filesystem.view",
    "filesystem.hide",
    "filesystem.readonly",
    "filesystem.readwrite",
    "filesystem.tmp_size",
    "env.pass",
    "env.set",
    "env.secret",
    "env.secret.file",
    "credential",
    "credential.file",
    "credential.hosts",
    "credential.header",
    "credential.env",
    "network.mode",
    "network.allow",
    "network.deny",
    "network.allow_cidr",
    "network.ports",
    "network.transparent",
    "network.resolver",
    "network.proxy_port",
    "network.suffix_names",
    "network.notices",
    "network.ca_file",
    "limits.memory",
    "limits.pids",
    "limits.cpu",
    "limits.nofile",
    "limits.fsize",
    "limits.timeout",
    "limits.enforce",
    "limits.notices",
    "terminal.filter",
    "pam.services",
    NULL,
};

const size_t policy_key_count = ELEMENTSOF(policy_key_table);

/* The titled sections, whose keys carry a title: "env.secret.NAME.file". */
static const char *const titled[] = {"env.secret.", "credential."};

/* "env.secret.NAME.file" -> "env.secret.file" */
const struct policy_keydef *
policy_key_find(const char *dotted)
{
	char buf[128];
	const char *k = dotted;
	size_t i;

	for (i = 0; i < ELEMENTSOF(titled); i++) {
		size_t n = strlen(titled[i]);
		const char *last;

		if (strncmp(dotted, titled[i], n) != 0)
			continue;
		last = strrchr(dotted + n, '.');
		if (last == NULL)
			return NULL;
		snprintf(
		    buf, sizeof(buf), "%.*s%s", (int)(n - 1), dotted, last);
		k = buf;
		break;
	}
	for (i = 0; i < policy_key_count; i++)
		if (strcmp(policy_key_table[i].key, k) == 0)
			return &policy_key_table[i];
	return NULL;
}

int
policy_key_kind(const char *dotted)
{
	const struct policy_keydef *kd = policy_key_find(dotted);

	return kd ? kd->type : -1;
}
