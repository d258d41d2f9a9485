/*
 * lmbench's read sums as C, for the same-process check in src/main.rs.
 * Written from the method the C suite documents, not from its source:
 *   frd (Mem read):        per 512-byte block, one expression adding the
 *                          block's 128 ints, added into a long total;
 *   bread (File and Mmap   per 1 KB block, one expression adding the
 *   reread):               block's 128 longs, added into the total.
 * Whole blocks only, as the suite reads them. The macros expand to one
 * flat left-to-right sum (no parentheses), which gcc -O2 compiles to one
 * load and 127 adds with memory operands: the instruction form
 * support/src/bw/add_chain.rs writes out on x86-64.
 */
#define S4(p, i) p[i] + p[i + 1] + p[i + 2] + p[i + 3]
#define S16(p, i) S4(p, i) + S4(p, i + 4) + S4(p, i + 8) + S4(p, i + 12)
#define S64(p, i) S16(p, i) + S16(p, i + 16) + S16(p, i + 32) + S16(p, i + 48)
#define S128(p) S64(p, 0) + S64(p, 64)

long c_frd(const int *p, long bytes)
{
	long sum = 0;
	const int *end = p + bytes / sizeof(int);

	for (; p + 128 <= end; p += 128)
		sum += S128(p);
	return sum;
}

long c_bread(const long *p, long bytes)
{
	long sum = 0;
	const long *end = p + bytes / sizeof(long);

	for (; p + 128 <= end; p += 128)
		sum += S128(p);
	return sum;
}
