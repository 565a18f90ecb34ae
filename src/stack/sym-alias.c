/*
 * sym-alias: the choice among a function's names at one address (see
 * sym-alias.h), shared by the ELF symbol index and the kernel's table.
 */
#include <string.h>

#include "stack/sym-alias.h"

bool sym_alias__better(bool global_a, const char *a, bool global_b, const char *b)
{
	size_t ua = strspn(a, "_"), ub = strspn(b, "_");

	if (ua != ub)
		return ua < ub;
	if (global_a != global_b)
		return global_a;
	return strlen(a) < strlen(b);
}
