/*
 * args.c: aisb-shell's command line.  See args.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "args.h"

int
args_parse(int argc, char **argv, struct aisb_args *out)
{
	int i;

	memset(out, 0, sizeof(*out));
	out->argv0 = argc > 0 && argv[0] ? argv[0] : "aisb-shell";
	out->login = out->argv0[0] == '-';
	/* argc can be 0 (execve with an empty argv): no shell form then. */
	for (i = argc > 0 ? 1 : 0; i < argc; i++) {
		const char *o = argv[i];

		if (strncmp(o, "--", 2) != 0 || strcmp(o, "--") == 0)
			break;
		if (strcmp(o, "--config") == 0 || strcmp(o, "--user") == 0 ||
		    strcmp(o, "--end") == 0 || strcmp(o, "--egress") == 0 ||
		    strcmp(o, "--since") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr,
				    "aisb-shell: %s needs an "
				    "argument\n",
				    o);
				return -EINVAL;
			}
			if (strcmp(o, "--config") == 0)
				out->config = argv[++i];
			else if (strcmp(o, "--user") == 0)
				out->user = argv[++i];
			else if (strcmp(o, "--since") == 0)
				out->since = argv[++i];
			else {
				out->action =
				    o[3] == 'n' ? ACT_END : ACT_EGRESS;
				out->target = argv[++i];
			}
		} else if (strcmp(o, "--sessions") == 0)
			out->action = ACT_SESSIONS;
		else if (strcmp(o, "--print-policy") == 0)
			out->action = ACT_PRINT_POLICY;
		else if (strcmp(o, "--json") == 0)
			out->json = true;
		else if (strcmp(o, "--check-config") == 0)
			out->action = ACT_CHECK_CONFIG;
		else if (strcmp(o, "--doctor") == 0)
			out->action = ACT_DOCTOR;
		else if (strcmp(o, "--jailcheck") == 0)
			out->jailcheck = true;
		else if (strcmp(o, "--version") == 0)
			out->action = ACT_VERSION;
		else if (strcmp(o, "--help") == 0)
			out->action = ACT_HELP;
		else {
			fprintf(stderr,
			    "aisb-shell: unknown option '%s' "
			    "(see aisb-shell --help)\n",
			    o);
			return -EINVAL;
		}
	}
	if (i < argc && strcmp(argv[i], "--") == 0)
		i++;
	/* Alone it is the in-session check; with --doctor, the doctor runs
	 * it in a session of each agent. */
	if (out->jailcheck && out->action == ACT_SESSION)
		out->action = ACT_JAILCHECK;
	if (out->jailcheck && out->action != ACT_JAILCHECK &&
	    out->action != ACT_DOCTOR) {
		fprintf(stderr,
		    "aisb-shell: --jailcheck goes alone or with "
		    "--doctor\n");
		return -EINVAL;
	}
	if (out->json && out->action != ACT_PRINT_POLICY &&
	    out->action != ACT_SESSIONS && out->action != ACT_EGRESS) {
		fprintf(stderr,
		    "aisb-shell: --json goes with --print-policy, --sessions "
		    "or --egress\n");
		return -EINVAL;
	}
	if (out->since && out->action != ACT_EGRESS) {
		fprintf(stderr, "aisb-shell: --since goes with --egress\n");
		return -EINVAL;
	}
	if (out->action != ACT_SESSION && i < argc) {
		fprintf(
		    stderr, "aisb-shell: unexpected argument '%s'\n", argv[i]);
		return -EINVAL;
	}
	out->argc = argc - i;
	out->argv = argv + i;
	return 0;
}
