/*
 * test-major-pair: a major-faults event marks its thread's last fault
 * when it is on that fault's page, once; another thread's, another
 * page's, a consumed one's or an exited thread's mark nothing.
 */
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "agg/major-pair.h"

int main(void)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE), owner = 0;
	struct major_pair *mp = NULL;

	CHECK(major_pair__new(&mp) == 0);
	CHECK(!major_pair__major(mp, 1, 0x1000, &owner));		/* no fault yet */
	CHECK(major_pair__fault(mp, 1, 10 * ps + 5, 111) == 0);
	CHECK(!major_pair__major(mp, 2, 10 * ps, &owner));		/* another thread */
	CHECK(!major_pair__major(mp, 1, 11 * ps, &owner));		/* another page */
	CHECK(major_pair__major(mp, 1, 10 * ps + ps - 1, &owner));	/* same page */
	CHECK(owner == 111);
	CHECK(!major_pair__major(mp, 1, 10 * ps, &owner));		/* consumed */
	/* Page 0 is a page like any other. */
	CHECK(major_pair__fault(mp, 3, 7, 5) == 0);
	CHECK(major_pair__major(mp, 3, 0, &owner) && owner == 5);
	/* A later fault replaces the last. */
	CHECK(major_pair__fault(mp, 1, 20 * ps, 1) == 0);
	CHECK(major_pair__fault(mp, 1, 30 * ps, 2) == 0);
	CHECK(!major_pair__major(mp, 1, 20 * ps, &owner));
	CHECK(major_pair__major(mp, 1, 30 * ps, &owner) && owner == 2);
	/* Re-owning only from the owner named. */
	CHECK(major_pair__fault(mp, 4, 40 * ps, 9) == 0);
	CHECK(major_pair__reown(mp, 4, 8, 10) == 0);
	CHECK(major_pair__reown(mp, 4, 9, 12) == 0);
	CHECK(major_pair__major(mp, 4, 40 * ps, &owner) && owner == 12);
	/* An exited thread's last fault is gone. */
	CHECK(major_pair__fault(mp, 5, 50 * ps, 1) == 0);
	major_pair__forget(mp, 5);
	CHECK(!major_pair__major(mp, 5, 50 * ps, &owner));
	major_pair__free(mp);
	major_pair__free(NULL);
	return check_done("test-major-pair");
}
