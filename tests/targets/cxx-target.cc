/*
 * cxx-target: C++ operator new and delete in every form, leaks known
 * exactly, for tests/system/leak-cxx.sh (`faultline leak` under glibc +
 * libstdc++, and under jemalloc, tcmalloc and mimalloc preloaded, whose
 * operators do not go through their malloc).
 *
 * Usage: cxx-target.  Each site is its own noinline extern "C" function
 * calling one form of operator new from one call instruction (a loop
 * around one call), so each site has one stack: main -> SITE -> operator.
 *
 * Kept (the truth, printed as "site fn=NAME bytes=N count=N"):
 *   leak_new                        100 x new Obj (200 B)        _Znwm
 *   leak_new_array                   10 x new char[300]          _Znam
 *   leak_new_nothrow                 10 x new (nothrow) Small    _ZnwmRKSt9nothrow_t
 *   leak_new_array_nothrow            5 x new (nothrow) char[48] _ZnamRKSt9nothrow_t
 *   leak_new_aligned                  4 x new Al (alignas 64, 256 B)  _ZnwmSt11align_val_t
 *   leak_new_array_aligned            3 x new Al[2]              _ZnamSt11align_val_t
 *   leak_new_aligned_nothrow          2 x new (nothrow) Al       _ZnwmSt11align_val_tRKSt9nothrow_t
 *   leak_new_array_aligned_nothrow    2 x new (nothrow) Al[3]    _ZnamSt11align_val_tRKSt9nothrow_t
 * Freed (no temp_* site may be reported): 50 blocks each from the matching
 * new, released through each of the 12 forms of delete: plain, [], sized,
 * [] sized, nothrow, [] nothrow, aligned, [] aligned, sized aligned, []
 * sized aligned, aligned nothrow, [] aligned nothrow.
 * Then "frees=600" (the temp blocks freed) and "pid=N"; exits 0.
 * Al and the char arrays are trivially destructible: no array cookie, the
 * size asked is the size of the objects.
 */
#include <cstdio>
#include <cstring>
#include <new>
#include <unistd.h>

struct Obj {
	char b[200];
};
struct Small {
	char b[64];
};
struct alignas(64) Al {
	char b[256];
};

#define KEEP_MAX 256
static void *volatile keep[KEEP_MAX];
static unsigned int nkeep;
static char text[4096];
static size_t tlen;

static void put(const char *fn, unsigned long bytes, unsigned long count)
{
	tlen += (size_t)snprintf(text + tlen, sizeof(text) - tlen, "site fn=%s bytes=%lu count=%lu\n",
				 fn, bytes, count);
}

static void hold(void *p)
{
	if (nkeep < KEEP_MAX)
		keep[nkeep++] = p;
}

#define SITE extern "C" __attribute__((noinline, noipa))

SITE void leak_new(void)
{
	for (int i = 0; i < 100; i++)
		hold(new Obj);
}

SITE void leak_new_array(void)
{
	for (int i = 0; i < 10; i++)
		hold(new char[300]);
}

SITE void leak_new_nothrow(void)
{
	for (int i = 0; i < 10; i++)
		hold(new (std::nothrow) Small);
}

SITE void leak_new_array_nothrow(void)
{
	for (int i = 0; i < 5; i++)
		hold(new (std::nothrow) char[48]);
}

SITE void leak_new_aligned(void)
{
	for (int i = 0; i < 4; i++)
		hold(new Al);
}

SITE void leak_new_array_aligned(void)
{
	for (int i = 0; i < 3; i++)
		hold(new Al[2]);
}

SITE void leak_new_aligned_nothrow(void)
{
	for (int i = 0; i < 2; i++)
		hold(new (std::nothrow) Al);
}

SITE void leak_new_array_aligned_nothrow(void)
{
	for (int i = 0; i < 2; i++)
		hold(new (std::nothrow) Al[3]);
}

/* The temporaries: the operators called by name, so each delete form is
 * the one named, whatever the compiler would pick for a delete-expression. */
#define N_TEMP 50
static void *volatile tmp;
static const std::align_val_t A64 = std::align_val_t(64);

SITE void temp_delete(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new(100);
		::operator delete(tmp);
	}
}

SITE void temp_delete_array(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new[](100);
		::operator delete[](tmp);
	}
}

SITE void temp_delete_sized(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new(120);
		::operator delete(tmp, (size_t)120);
	}
}

SITE void temp_delete_array_sized(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new[](120);
		::operator delete[](tmp, (size_t)120);
	}
}

SITE void temp_delete_nothrow(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new(140, std::nothrow);
		::operator delete(tmp, std::nothrow);
	}
}

SITE void temp_delete_array_nothrow(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new[](140, std::nothrow);
		::operator delete[](tmp, std::nothrow);
	}
}

SITE void temp_delete_aligned(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new(128, A64);
		::operator delete(tmp, A64);
	}
}

SITE void temp_delete_array_aligned(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new[](128, A64);
		::operator delete[](tmp, A64);
	}
}

SITE void temp_delete_sized_aligned(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new(192, A64);
		::operator delete(tmp, (size_t)192, A64);
	}
}

SITE void temp_delete_array_sized_aligned(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new[](192, A64);
		::operator delete[](tmp, (size_t)192, A64);
	}
}

SITE void temp_delete_aligned_nothrow(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new(256, A64, std::nothrow);
		::operator delete(tmp, A64, std::nothrow);
	}
}

SITE void temp_delete_array_aligned_nothrow(void)
{
	for (int i = 0; i < N_TEMP; i++) {
		tmp = ::operator new[](256, A64, std::nothrow);
		::operator delete[](tmp, A64, std::nothrow);
	}
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		static const char usage[] = "usage: cxx-target\n";

		if (write(2, usage, sizeof(usage) - 1) < 0)
			return 2;
		return 2;
	}
	leak_new();
	leak_new_array();
	leak_new_nothrow();
	leak_new_array_nothrow();
	leak_new_aligned();
	leak_new_array_aligned();
	leak_new_aligned_nothrow();
	leak_new_array_aligned_nothrow();
	temp_delete();
	temp_delete_array();
	temp_delete_sized();
	temp_delete_array_sized();
	temp_delete_nothrow();
	temp_delete_array_nothrow();
	temp_delete_aligned();
	temp_delete_array_aligned();
	temp_delete_sized_aligned();
	temp_delete_array_sized_aligned();
	temp_delete_aligned_nothrow();
	temp_delete_array_aligned_nothrow();

	put("leak_new", 100 * sizeof(Obj), 100);
	put("leak_new_array", 10 * 300, 10);
	put("leak_new_nothrow", 10 * sizeof(Small), 10);
	put("leak_new_array_nothrow", 5 * 48, 5);
	put("leak_new_aligned", 4 * sizeof(Al), 4);
	put("leak_new_array_aligned", 3 * 2 * sizeof(Al), 3);
	put("leak_new_aligned_nothrow", 2 * sizeof(Al), 2);
	put("leak_new_array_aligned_nothrow", 2 * 3 * sizeof(Al), 2);
	tlen += (size_t)snprintf(text + tlen, sizeof(text) - tlen, "frees=%d\npid=%d\n", 12 * N_TEMP,
				 (int)getpid());
	if (nkeep != 136 || write(1, text, tlen) != (ssize_t)tlen)
		return 1;
	return 0;
}
