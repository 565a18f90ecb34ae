/*
 * test-stackdb: interning gives one id per distinct stack, including the
 * empty one and stacks whose hashes collide, and stored stacks survive
 * later growth unchanged.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "lib/hashmap.h"
#include "stack/stackdb.h"

/* hash_bytes()'s mixer, copied so the test can build two 2-word stacks with
 * the same hash: h = mix(mix(h0 ^ a) ^ b), so b' = b ^ mix(h0^a) ^ mix(h0^a')
 * collides for any a'.  The test checks the collision really happens, so a
 * change of hash_bytes shows up here rather than silently weakening it. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void test_basic(void)
{
	uint64_t a[] = { 0x401000, 0x401100, 0x401200 };
	uint64_t b[] = { 0x401000, 0x401100, 0x401201 };
	uint64_t a_prefix[] = { 0x401000, 0x401100 };
	const uint64_t *got;
	uint32_t ida, ida2, idb, idp, ide, ide2, nr = 99;
	struct stackdb *db = NULL;

	CHECK_EQ_U64(stackdb__new(&db), 0);
	CHECK_EQ_U64(stackdb__count(db), 0);
	CHECK_EQ_U64(stackdb__intern(db, 0, a, 3, &ida), 0);
	CHECK_EQ_U64(ida, 1);
	CHECK_EQ_U64(stackdb__intern(db, 0, a, 3, &ida2), 0);
	CHECK_EQ_U64(ida2, ida);
	CHECK_EQ_U64(stackdb__intern(db, 0, b, 3, &idb), 0);
	CHECK_EQ_U64(idb, 2);
	CHECK_EQ_U64(stackdb__intern(db, 0, a_prefix, 2, &idp), 0);
	CHECK_EQ_U64(idp, 3);
	CHECK_EQ_U64(stackdb__intern(db, 0, NULL, 0, &ide), 0);
	CHECK_EQ_U64(ide, 4);
	CHECK_EQ_U64(stackdb__intern(db, 0, a, 0, &ide2), 0);	/* ips ignored when nr is 0 */
	CHECK_EQ_U64(ide2, ide);
	CHECK_EQ_U64(stackdb__count(db), 4);

	got = stackdb__get(db, ida, &nr);
	CHECK(got != NULL);
	CHECK_EQ_U64(nr, 3);
	CHECK(got && got[0] == 0x401000 && got[1] == 0x401100 && got[2] == 0x401200);
	got = stackdb__get(db, idp, &nr);
	CHECK_EQ_U64(nr, 2);
	CHECK(got && got[1] == 0x401100);
	got = stackdb__get(db, ide, &nr);
	CHECK(got != NULL);
	CHECK_EQ_U64(nr, 0);
	CHECK(stackdb__get(db, 0, &nr) == NULL);
	CHECK(stackdb__get(db, 5, &nr) == NULL);
	stackdb__free(db);
	stackdb__free(NULL);
}

/* The same ips unwound in two images (setarch -R: two programs at one
 * address) are two stacks; stackdb__add never merges; an image set later
 * is what the lookup compares. */
static void test_images(void)
{
	uint64_t a[] = { 0x555555555100, 0x555555555200 };
	uint32_t i1, i2, i1b, i3, i4;
	struct stackdb *db = NULL;

	CHECK_EQ_U64(stackdb__new(&db), 0);
	CHECK_EQ_U64(stackdb__intern(db, 1, a, 2, &i1), 0);
	CHECK_EQ_U64(stackdb__intern(db, 2, a, 2, &i2), 0);
	CHECK(i1 != i2);
	CHECK_EQ_U64(stackdb__intern(db, 1, a, 2, &i1b), 0);
	CHECK_EQ_U64(i1b, i1);
	CHECK_EQ_U64(stackdb__image(db, i1), 1);
	CHECK_EQ_U64(stackdb__image(db, i2), 2);
	CHECK_EQ_U64(stackdb__image(db, 0), 0);
	CHECK_EQ_U64(stackdb__image(db, 99), 0);
	CHECK_EQ_U64(stackdb__add(db, 0, a, 2, &i3), 0);
	CHECK(i3 != i1 && i3 != i2);
	stackdb__set_image(db, i3, 3);
	CHECK_EQ_U64(stackdb__image(db, i3), 3);
	CHECK_EQ_U64(stackdb__intern(db, 3, a, 2, &i4), 0);
	CHECK_EQ_U64(i4, i3);
	CHECK_EQ_U64(stackdb__count(db), 3);
	stackdb__free(db);
}

static void test_collision(void)
{
	uint64_t h0 = 0xcbf29ce484222325ULL ^ 16;
	uint64_t s1[2] = { 0x7f0000001000ULL, 0x7f0000002000ULL };
	uint64_t s2[2] = { 0x7f0000003000ULL, 0 };
	uint32_t id1, id2, id1b, id2b, nr;
	struct stackdb *db = NULL;
	const uint64_t *got;

	s2[1] = s1[1] ^ mix64(h0 ^ s1[0]) ^ mix64(h0 ^ s2[0]);
	CHECK_EQ_U64(hash_bytes(s1, sizeof(s1)), hash_bytes(s2, sizeof(s2)));

	CHECK_EQ_U64(stackdb__new(&db), 0);
	CHECK_EQ_U64(stackdb__intern(db, 0, s1, 2, &id1), 0);
	CHECK_EQ_U64(stackdb__intern(db, 0, s2, 2, &id2), 0);
	CHECK(id1 != id2);
	CHECK_EQ_U64(stackdb__intern(db, 0, s1, 2, &id1b), 0);
	CHECK_EQ_U64(stackdb__intern(db, 0, s2, 2, &id2b), 0);
	CHECK_EQ_U64(id1b, id1);
	CHECK_EQ_U64(id2b, id2);
	CHECK_EQ_U64(stackdb__count(db), 2);
	got = stackdb__get(db, id2, &nr);
	CHECK(got && nr == 2 && got[0] == s2[0] && got[1] == s2[1]);
	stackdb__free(db);
}

/* Fills IPS with test_many's stack number I and returns its depth, I % 64:
 * the same stack each time it is asked for, distinct from every other I. */
static uint32_t nth_stack(uint32_t i, uint64_t *ips)
{
	uint32_t depth = i % 64;

	for (uint32_t j = 0; j < depth; j++)
		ips[j] = 0x400000 + (uint64_t)i * 64 + j;
	return depth;
}

/* 100k distinct stacks of varying depth (up to one bigger than a chunk),
 * each interned twice; then every id still returns its exact stack. */
static void test_many(void)
{
	enum { N = 100000 };
	uint32_t *ids = calloc(N, sizeof(*ids));
	uint64_t *big = calloc(70000, sizeof(*big));
	uint64_t ips[64];
	struct stackdb *db = NULL;
	uint32_t id, big_id = 0, nr;
	int bad_get = 0, bad_again = 0;
	const uint64_t *got;

	CHECK_EQ_U64(stackdb__new(&db), 0);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t depth = nth_stack(i, ips);

		if (stackdb__intern(db, 0, ips, depth, &ids[i]))
			bad_get++;
		if (i == N / 2) {
			for (uint32_t j = 0; j < 70000; j++)
				big[j] = 0xffff000000000000ULL + j;
			CHECK_EQ_U64(stackdb__intern(db, 0, big, 70000, &big_id), 0);
		}
	}
	/* Depth-0 stacks all share the empty stack's id. */
	CHECK_EQ_U64(stackdb__count(db), N - (N + 63) / 64 + 1 + 1);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t depth = nth_stack(i, ips);

		if (stackdb__intern(db, 0, ips, depth, &id) || id != ids[i])
			bad_again++;
		got = stackdb__get(db, ids[i], &nr);
		if (!got || nr != depth || (depth && memcmp(got, ips, depth * sizeof(uint64_t))))
			bad_get++;
	}
	CHECK_EQ_U64(bad_again, 0);
	CHECK_EQ_U64(bad_get, 0);
	got = stackdb__get(db, big_id, &nr);
	CHECK_EQ_U64(nr, 70000);
	CHECK(got && got[0] == 0xffff000000000000ULL && got[69999] == 0xffff000000000000ULL + 69999);
	stackdb__free(db);
	free(big);
	free(ids);
}

int main(void)
{
	test_basic();
	test_images();
	test_collision();
	test_many();
	return check_done("test-stackdb");
}
