/*
 * static-nodl: dlopen and its kin for the static binary, opening nothing.
 *
 * Linked only into the --enable-static-binary build, whose link wraps
 * dlopen, dlsym, dlclose and dlerror (-Wl,--wrap, configure.ac).  Two
 * archives call dlopen: libtraceevent's plugin loader, which faultline
 * never asks for (it decodes fields by name with tep_find_field and prints
 * no event through print formats, which is all plugins change), and
 * libdw's debuginfod client, which dlopens libdebuginfod.so from a
 * constructor when DEBUGINFOD_URLS is set.  A static program that
 * dlopens a shared library pulls in the host's libc beside its own; here
 * both find nothing, as on a host without plugins or debuginfod.
 */
#include <stddef.h>

void *__wrap_dlopen(const char *file, int mode);
void *__wrap_dlsym(void *handle, const char *name);
int __wrap_dlclose(void *handle);
char *__wrap_dlerror(void);

void *__wrap_dlopen(const char *file, int mode)
{
	return NULL;
}

void *__wrap_dlsym(void *handle, const char *name)
{
	return NULL;
}

int __wrap_dlclose(void *handle)
{
	return 0;
}

char *__wrap_dlerror(void)
{
	static char msg[] = "faultline's static binary loads no shared objects";

	return msg;
}
