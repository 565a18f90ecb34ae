/*
 * json: see json.h.
 */
#include "lib/json.h"

void json__str(FILE *out, const char *str)
{
	fputc('"', out);
	for (const unsigned char *p = (const unsigned char *)str; *p; p++) {
		switch (*p) {
		case '"':
		case '\\':
			fputc('\\', out);
			fputc(*p, out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\b':
			fputs("\\b", out);
			break;
		case '\f':
			fputs("\\f", out);
			break;
		default:
			if (*p < 0x20)
				fprintf(out, "\\u%04x", *p);
			else
				fputc(*p, out);
		}
	}
	fputc('"', out);
}

void json__key(FILE *out, const char *name)
{
	char buf[128];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(buf); i++)
		buf[i] = name[i] == '-' || name[i] == ' ' ? '_' : name[i];
	buf[i] = '\0';
	json__str(out, buf);
}
