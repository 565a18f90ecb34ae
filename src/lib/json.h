/*
 * json: the one JSON string writer every --json output uses, so a comm
 * or a path with a quote, a backslash or a control character comes out
 * the same from every tool, and the one rule for keys made of names.
 */
#ifndef FAULTLINE_JSON_H
#define FAULTLINE_JSON_H

#include <stdio.h>

/* Write @str to @out as a quoted JSON string: " and \ escaped, \n \t \r
 * \b \f in their short forms, other control characters as \u00XX; bytes
 * of 0x80 and up pass as they are (UTF-8 stays UTF-8). */
void json__str(FILE *out, const char *str);
/* Write @name as an object key in snake_case: "-" and " " become "_"
 * ("stack-copy-end" -> "stack_copy_end"), so the keys of every --json
 * output follow one rule whatever the text names look like.  The quotes
 * are written, the ':' not. */
void json__key(FILE *out, const char *name);

#endif
