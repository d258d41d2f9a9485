/*
 * lmbench's read sums and its full-width write and copy as C, for the
 * same-process check in src/main.rs.
 * Written from the method the C suite documents, not from its source:
 *   frd (Mem read):        per 512-byte block, one expression adding the
 *                          block's 128 ints, added into a long total;
 *   bread (File and Mmap   per 1 KB block, one expression adding the
 *   reread):               block's 128 longs, added into the total;
 *   fwr (Mem write):       per 512-byte block, one chained assignment of 1
 *                          to the block's 128 ints;
 *   fcp (Bcopy (hand)):    per 512-byte block, 128 int assignments from
 *                          source to destination, lowest first.
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

/*
 * The chained assignment stores its innermost target first: at lmbench's
 * usual -O (asked for here: gcc 12 at -O2 stores the block in 16-byte
 * pieces) it compiles to 128 four-byte stores of 1 from the block's top
 * down, and the copy to a 4-byte load and store per int, upward: the
 * instruction forms support/src/bw/block_store.rs writes out on x86-64.
 * Only their bytes are checked (src/main.rs tests), not their times.
 */
#define SET4(p, i) p[i] = p[i + 1] = p[i + 2] = p[i + 3] =
#define SET16(p, i) SET4(p, i) SET4(p, i + 4) SET4(p, i + 8) SET4(p, i + 12)
#define SET64(p, i) SET16(p, i) SET16(p, i + 16) SET16(p, i + 32) SET16(p, i + 48)
#define SET128(p) SET64(p, 0) SET64(p, 64)

__attribute__((optimize("O1")))
void c_fwr(int *p, long bytes)
{
	int *end = p + bytes / sizeof(int);

	for (; p + 128 <= end; p += 128)
		SET128(p) 1;
}

#define CP4(d, s, i) d[i] = s[i]; d[i + 1] = s[i + 1]; d[i + 2] = s[i + 2]; d[i + 3] = s[i + 3];
#define CP16(d, s, i) CP4(d, s, i) CP4(d, s, i + 4) CP4(d, s, i + 8) CP4(d, s, i + 12)
#define CP64(d, s, i) CP16(d, s, i) CP16(d, s, i + 16) CP16(d, s, i + 32) CP16(d, s, i + 48)

__attribute__((optimize("O1")))
void c_fcp(const int *s, int *d, long bytes)
{
	const int *end = s + bytes / sizeof(int);

	for (; s + 128 <= end; s += 128, d += 128) {
		CP64(d, s, 0) CP64(d, s, 64)
	}
}
