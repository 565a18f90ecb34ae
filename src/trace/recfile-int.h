/*
 * recfile-int: what the writer (recfile.c) and the reader (recread.c) of
 * faultline recordings share: the format's constants and its
 * little-endian fields (docs/record-format.md).  Included by those two only.
 */
#ifndef FAULTLINE_RECFILE_INT_H
#define FAULTLINE_RECFILE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "trace/recfile.h"

#define REC_MAGIC		"FAULTREC"
#define REC_MAGIC_LEN		8
#define REC_BYTE_ORDER		0x01020304u
#define REC_HEADER_SIZE		20u	/* magic, major, minor, byte order, header size */
#define REC_HEADER_MAX		4096u	/* a newer minor may grow the header this far */
#define REC_RECORD_HEADER	8u	/* type, payload length */
#define RECREADER_BUFSIZE	(1u << 20)

static inline bool event_kind_valid(uint32_t kind)
{
	return kind >= REC_EVENT_TRACEPOINT && kind <= REC_EVENT_SOFTWARE;
}

static inline bool stack_kind_valid(uint32_t kind)
{
	return kind == REC_STACK_USER || kind == REC_STACK_KERNEL;
}

static inline void put_le16(unsigned char *p, uint16_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static inline void put_le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline void put_le64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint16_t get_le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t get_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get_le64(const unsigned char *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32(p + 4) << 32;
}

#endif
