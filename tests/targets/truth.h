/* truth.h: shared helpers of the test targets (being written). */
