/*
 * elf-fixture.h: the small ELF file that test-elf-sym and test-symbolize
 * both write, so the two check symbol offsets against one known layout.
 * A static function in a header: each test gets its own copy, and the
 * library under test carries no test code.
 */
#ifndef FAULTLINE_ELF_FIXTURE_H
#define FAULTLINE_ELF_FIXTURE_H

#include <elf.h>
#include <stdio.h>
#include <string.h>

/* A minimal ET_DYN whose code segment's vaddr is not its file offset
 * (offset 0x1000, vaddr 0x11000), as lld and non-PIE executables lay them
 * out; the system's own binaries all have vaddr == offset for code, which
 * would hide a missing conversion.  Symbols: fixture_func at vaddr 0x11020
 * (size 0x20), fixture_other at 0x11080 (size 0x10).  Returns 0 or -1. */
static int write_fixture_elf(const char *path)
{
	static const char strtab[] = "\0fixture_func\0fixture_other";
	static const char shstrtab[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	enum { TEXT_OFF = 0x1000, TEXT_SIZE = 0x100, TEXT_VADDR = 0x11000 };
	unsigned char image[0x2000];
	Elf64_Ehdr *eh = (Elf64_Ehdr *)image;
	Elf64_Phdr *ph = (Elf64_Phdr *)(image + sizeof(*eh));
	Elf64_Sym *sym = (Elf64_Sym *)(image + TEXT_OFF + TEXT_SIZE);
	char *str = (char *)(sym + 3);
	char *shstr = str + sizeof(strtab);
	Elf64_Shdr *sh = (Elf64_Shdr *)(image + 0x1400);
	size_t total = 0x1400 + 5 * sizeof(*sh);
	FILE *fp;
	int ok;

	memset(image, 0, sizeof(image));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(*eh);
	eh->e_shoff = 0x1400;
	eh->e_ehsize = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 1;
	eh->e_shentsize = sizeof(*sh);
	eh->e_shnum = 5;
	eh->e_shstrndx = 4;
	*ph = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = TEXT_OFF,
			    .p_vaddr = TEXT_VADDR, .p_paddr = TEXT_VADDR, .p_filesz = TEXT_SIZE,
			    .p_memsz = TEXT_SIZE, .p_align = 0x1000 };
	memset(image + TEXT_OFF, 0xcc, TEXT_SIZE);
	sym[1] = (Elf64_Sym){ .st_name = 1, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = 1,
			      .st_value = TEXT_VADDR + 0x20, .st_size = 0x20 };
	sym[2] = (Elf64_Sym){ .st_name = 14, .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC), .st_shndx = 1,
			      .st_value = TEXT_VADDR + 0x80, .st_size = 0x10 };
	memcpy(str, strtab, sizeof(strtab));
	memcpy(shstr, shstrtab, sizeof(shstrtab));
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_flags = SHF_ALLOC | SHF_EXECINSTR,
			      .sh_addr = TEXT_VADDR, .sh_offset = TEXT_OFF, .sh_size = TEXT_SIZE, .sh_addralign = 16 };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_SYMTAB, .sh_offset = (unsigned char *)sym - image,
			      .sh_size = 3 * sizeof(*sym), .sh_link = 3, .sh_info = 1, .sh_addralign = 8,
			      .sh_entsize = sizeof(*sym) };
	sh[3] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = (unsigned char *)str - image,
			      .sh_size = sizeof(strtab), .sh_addralign = 1 };
	sh[4] = (Elf64_Shdr){ .sh_name = 23, .sh_type = SHT_STRTAB, .sh_offset = (unsigned char *)shstr - image,
			      .sh_size = sizeof(shstrtab), .sh_addralign = 1 };
	fp = fopen(path, "w");
	if (!fp)
		return -1;
	ok = fwrite(image, 1, total, fp) == total;
	return fclose(fp) == 0 && ok ? 0 : -1;
}

#endif
