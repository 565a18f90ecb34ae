/* elf-fixture.h (being written) */
