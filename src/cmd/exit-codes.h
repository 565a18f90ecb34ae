/*
 * exit-codes: faultline's exit statuses, every command's and tool's
 * (cmd/tool.h includes it).  Nothing to call.
 */
#ifndef FAULTLINE_EXIT_CODES_H
#define FAULTLINE_EXIT_CODES_H

/* Exit statuses, as eu-stack documents its own: */
#define EXIT_OK		0	/* done */
#define EXIT_FAIL	1	/* could not do it (the reason is on stderr) */
#define EXIT_USAGE	2	/* bad command line */
/* With a command (-c CMD, -- CMD) faultline exits with the command's own
 * status (128+N when signal N killed it), as valgrind does with its
 * client's, so `faultline leak -- make` fails when make does.  Its own
 * failure then needs a status no command is likely to return: 125, as
 * env(1), timeout(1) and git bisect run use for "the wrapper failed". */
#define EXIT_CMD_FAIL	125	/* faultline failed, a command given */

#endif
