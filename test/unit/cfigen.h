/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tiny x86-64 (and i386: cg_cie32, cg_fde_abs, cg_elf32) ELF files with a
 * hand-made .eh_frame, for test_cfi and the seeds of fuzz_cfi: an ELF header, one executable PT_LOAD (file offset
 * 0 at CG_BASE, CG_SEG bytes, more than the file has), .eh_frame at
 * CG_EH and its section headers. Addresses in the code are CG_TEXT + n,
 * file offset CG_TEXT - CG_BASE + n.
 */
#ifndef STACKID_TEST_CFIGEN_H
#define STACKID_TEST_CFIGEN_H

#include <elf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CG_BASE		0x400000ULL
#define CG_EH		0x100ULL	/* .eh_frame's file offset */
#define CG_TEXT		0x401000ULL
#define CG_SEG		0x10000ULL

struct cfibuf {
	unsigned char b[8192];
	size_t n;
};

static inline void cb_u8(struct cfibuf *c, unsigned int v)
{
	if (c->n < sizeof(c->b))
		c->b[c->n++] = v;
}

static inline void cb_le(struct cfibuf *c, uint64_t v, unsigned int n)
{
	while (n--) {
		cb_u8(c, v & 0xff);
		v >>= 8;
	}
}

static inline void cb_uleb(struct cfibuf *c, uint64_t v)
{
	do {
		cb_u8(c, (v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static inline void cb_sleb(struct cfibuf *c, int64_t v)
{
	int more;

	do {
		unsigned char b = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)));
		cb_u8(c, b | (more ? 0x80 : 0));
	} while (more);
}

static inline void cb_bytes(struct cfibuf *c, const void *p, size_t n)
{
	const unsigned char *s = p;

	while (n--)
		cb_u8(c, *s++);
}

/* Patch a 4-byte length at @at: bytes after it to the end, padded to 8. */
static inline void cb_close(struct cfibuf *c, size_t at)
{
	uint32_t len;

	while ((c->n - at - 4) % 8)
		cb_u8(c, 0);		/* DW_CFA_nop */
	len = c->n - at - 4;
	memcpy(c->b + at, &len, 4);
}

/*
 * A CIE at the end of @eh: "zR" (or @aug, R last), code 1, data -8, ra
 * 16, pcrel sdata4 FDEs, initial instructions CFA = rsp + 8, ra at
 * cfa - 8. Returns its offset.
 */
static inline size_t cg_cie(struct cfibuf *eh, const char *aug)
{
	size_t at = eh->n;
	const char *a;

	cb_le(eh, 0, 4);
	cb_le(eh, 0, 4);		/* CIE id */
	cb_u8(eh, 1);			/* version */
	cb_bytes(eh, aug, strlen(aug) + 1);
	cb_uleb(eh, 1);
	cb_sleb(eh, -8);
	cb_u8(eh, 16);
	cb_uleb(eh, 1 + (strchr(aug, 'P') ? 5 : 0) + (strchr(aug, 'L') ? 1 : 0));
	for (a = aug + 1; *a; a++) {
		if (*a == 'P') {
			cb_u8(eh, 0x9b);	/* indirect pcrel sdata4 */
			cb_le(eh, 0x1234, 4);
		} else if (*a == 'L') {
			cb_u8(eh, 0x1b);
		} else if (*a == 'R') {
			cb_u8(eh, 0x1b);	/* pcrel sdata4 */
		}
	}
	cb_u8(eh, 0x0c);		/* def_cfa rsp 8 */
	cb_u8(eh, 7);
	cb_u8(eh, 8);
	cb_u8(eh, 0x90);		/* offset r16 cfa-8 */
	cb_u8(eh, 1);
	cb_close(eh, at);
	return at;
}

/*
 * An FDE of the CIE at @cie for [CG_TEXT + @lo, CG_TEXT + @hi), with
 * the instructions @ins (@n bytes); @laug: an empty augmentation data
 * of an 'L' CIE (one byte: the LSDA pointer, 4 bytes).
 */
static inline size_t cg_fde(struct cfibuf *eh, size_t cie, uint64_t lo,
			    uint64_t hi, const void *ins, size_t n, int laug)
{
	size_t at = eh->n;
	uint64_t field;

	cb_le(eh, 0, 4);
	cb_le(eh, eh->n - cie, 4);	/* CIE pointer */
	field = CG_BASE + CG_EH + eh->n;
	cb_le(eh, (uint64_t)(CG_TEXT + lo - field), 4);
	cb_le(eh, hi - lo, 4);
	cb_uleb(eh, laug ? 4 : 0);
	if (laug)
		cb_le(eh, 0, 4);
	cb_bytes(eh, ins, n);
	cb_close(eh, at);
	return at;
}

/* The ELF file around .eh_frame @eh, into @out (room for 16 KiB). */
static inline size_t cg_elf(const struct cfibuf *eh, unsigned char *out)
{
	static const char names[] = "\0.eh_frame\0.shstrtab";
	Elf64_Ehdr h = { 0 };
	Elf64_Phdr p = { 0 };
	Elf64_Shdr s[3] = { { 0 } };
	size_t names_at = CG_EH + eh->n, sh_at = (names_at + sizeof(names) + 7) & ~7UL;

	memcpy(h.e_ident, ELFMAG, SELFMAG);
	h.e_ident[EI_CLASS] = ELFCLASS64;
	h.e_ident[EI_DATA] = ELFDATA2LSB;
	h.e_ident[EI_VERSION] = EV_CURRENT;
	h.e_type = ET_DYN;
	h.e_machine = EM_X86_64;
	h.e_version = EV_CURRENT;
	h.e_phoff = sizeof(h);
	h.e_shoff = sh_at;
	h.e_ehsize = sizeof(h);
	h.e_phentsize = sizeof(p);
	h.e_phnum = 1;
	h.e_shentsize = sizeof(s[0]);
	h.e_shnum = 3;
	h.e_shstrndx = 2;
	p.p_type = PT_LOAD;
	p.p_flags = PF_R | PF_X;
	p.p_vaddr = p.p_paddr = CG_BASE;
	p.p_filesz = p.p_memsz = CG_SEG;
	p.p_align = 0x1000;
	s[1].sh_name = 1;
	s[1].sh_type = SHT_PROGBITS;
	s[1].sh_flags = SHF_ALLOC;
	s[1].sh_addr = CG_BASE + CG_EH;
	s[1].sh_offset = CG_EH;
	s[1].sh_size = eh->n;
	s[2].sh_name = 11;
	s[2].sh_type = SHT_STRTAB;
	s[2].sh_offset = names_at;
	s[2].sh_size = sizeof(names);
	memset(out, 0, sh_at + sizeof(s));
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), &p, sizeof(p));
	memcpy(out + CG_EH, eh->b, eh->n);
	memcpy(out + names_at, names, sizeof(names));
	memcpy(out + sh_at, s, sizeof(s));
	return sh_at + sizeof(s);
}

/*
 * An i386 CIE at the end of @eh: "zR" (or @aug, R last) with FDE pointer
 * encoding @enc, code 1, data -4, ra 8 (eip), initial instructions
 * CFA = esp + 4, ra at cfa - 4. Returns its offset.
 */
static inline size_t cg_cie32(struct cfibuf *eh, const char *aug,
			      unsigned int enc)
{
	size_t at = eh->n;
	const char *a;

	cb_le(eh, 0, 4);
	cb_le(eh, 0, 4);		/* CIE id */
	cb_u8(eh, 1);			/* version */
	cb_bytes(eh, aug, strlen(aug) + 1);
	cb_uleb(eh, 1);
	cb_sleb(eh, -4);
	cb_u8(eh, 8);
	cb_uleb(eh, 1 + (strchr(aug, 'P') ? 5 : 0) + (strchr(aug, 'L') ? 1 : 0));
	for (a = aug + 1; *a; a++) {
		if (*a == 'P') {
			cb_u8(eh, 0x9b);	/* indirect pcrel sdata4 */
			cb_le(eh, 0x1234, 4);
		} else if (*a == 'L') {
			cb_u8(eh, 0x1b);
		} else if (*a == 'R') {
			cb_u8(eh, enc);
		}
	}
	cb_u8(eh, 0x0c);		/* def_cfa esp 4 */
	cb_u8(eh, 4);
	cb_u8(eh, 4);
	cb_u8(eh, 0x88);		/* offset r8 cfa-4 */
	cb_u8(eh, 1);
	cb_close(eh, at);
	return at;
}

/*
 * An FDE of an i386 CIE whose encoding is absptr (4 bytes in ELF32):
 * [CG_TEXT + @lo, CG_TEXT + @hi), instructions @ins (@n bytes).
 */
static inline size_t cg_fde_abs(struct cfibuf *eh, size_t cie, uint64_t lo,
				uint64_t hi, const void *ins, size_t n)
{
	size_t at = eh->n;

	cb_le(eh, 0, 4);
	cb_le(eh, eh->n - cie, 4);	/* CIE pointer */
	cb_le(eh, CG_TEXT + lo, 4);
	cb_le(eh, hi - lo, 4);
	cb_uleb(eh, 0);
	cb_bytes(eh, ins, n);
	cb_close(eh, at);
	return at;
}

/* The i386 ELF32 file around .eh_frame @eh, as cg_elf(). */
static inline size_t cg_elf32(const struct cfibuf *eh, unsigned char *out)
{
	static const char names[] = "\0.eh_frame\0.shstrtab";
	Elf32_Ehdr h = { 0 };
	Elf32_Phdr p = { 0 };
	Elf32_Shdr s[3] = { { 0 } };
	size_t names_at = CG_EH + eh->n, sh_at = (names_at + sizeof(names) + 7) & ~7UL;

	memcpy(h.e_ident, ELFMAG, SELFMAG);
	h.e_ident[EI_CLASS] = ELFCLASS32;
	h.e_ident[EI_DATA] = ELFDATA2LSB;
	h.e_ident[EI_VERSION] = EV_CURRENT;
	h.e_type = ET_DYN;
	h.e_machine = EM_386;
	h.e_version = EV_CURRENT;
	h.e_phoff = sizeof(h);
	h.e_shoff = sh_at;
	h.e_ehsize = sizeof(h);
	h.e_phentsize = sizeof(p);
	h.e_phnum = 1;
	h.e_shentsize = sizeof(s[0]);
	h.e_shnum = 3;
	h.e_shstrndx = 2;
	p.p_type = PT_LOAD;
	p.p_flags = PF_R | PF_X;
	p.p_vaddr = p.p_paddr = CG_BASE;
	p.p_filesz = p.p_memsz = CG_SEG;
	p.p_align = 0x1000;
	s[1].sh_name = 1;
	s[1].sh_type = SHT_PROGBITS;
	s[1].sh_flags = SHF_ALLOC;
	s[1].sh_addr = CG_BASE + CG_EH;
	s[1].sh_offset = CG_EH;
	s[1].sh_size = eh->n;
	s[2].sh_name = 11;
	s[2].sh_type = SHT_STRTAB;
	s[2].sh_offset = names_at;
	s[2].sh_size = sizeof(names);
	memset(out, 0, sh_at + sizeof(s));
	memcpy(out, &h, sizeof(h));
	memcpy(out + sizeof(h), &p, sizeof(p));
	memcpy(out + CG_EH, eh->b, eh->n);
	memcpy(out + names_at, names, sizeof(names));
	memcpy(out + sh_at, s, sizeof(s));
	return sh_at + sizeof(s);
}

#endif /* STACKID_TEST_CFIGEN_H */
