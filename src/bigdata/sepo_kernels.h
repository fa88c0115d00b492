/* The map kernel over the SePo hash table (seeds/001 §6.5-6.6): each thread
 * takes records of the current input chunk in a grid-stride loop, skips
 * records already done in an earlier iteration, inserts the pairs the
 * record yields, and marks the record done only if every insert succeeded
 * (§6.3.3: "we use a bitmap array to record which computation units have
 * been successfully processed"). Under the basic organisation a thread
 * stops taking records once the 50 % rule has halted the iteration. One
 * kernel serves every application (sepo_map_args.app: SEPO_APP_*), each
 * application a function from a record to its pairs.
 * Compiled as C for the SIMT executor and as CUDA by cuda/sepo.cu. */
#ifndef GPUVM_SEPO_KERNELS_H
#define GPUVM_SEPO_KERNELS_H

#include "sepo_dev.h" /* same folder: found by nvcc -Iinclude too */


SIMT_DEVFN int sepo_pending(SIMT_CTX_ const unsigned int *done, unsigned long long gi)
{
	return !((LD(done, gi >> 5) >> (gi & 31)) & 1u);
}

SIMT_DEVFN void sepo_mark_done(SIMT_CTX_ unsigned int *done, unsigned long long gi)
{
	ATOMIC_OR(done, gi >> 5, 1u << (gi & 31));
}

/* Zeroes the key's bytes from `len` on (keys are compared as whole words). */
SIMT_DEVFN void sepo_key_trim(unsigned long long *key, unsigned int words, unsigned int len)
{
	for (unsigned int i = 0; i < words; i++) {
		unsigned int lo = i * 8;
		if (lo >= len)
			key[i] = 0;
		else if (len - lo < 8)
			key[i] &= (1ull << (8 * (len - lo))) - 1;
	}
}

/* Byte i of a record held in registers (little-endian words). */
SIMT_DEVFN unsigned int sepo_byte(const unsigned long long *w, unsigned int i)
{
	return (unsigned int)(w[i / 8] >> (8 * (i % 8)) & 0xff);
}

/* Bytes [at, at + len) of a record in registers as a key: 8 words,
 * zero-padded (len <= 64). */
SIMT_DEVFN void sepo_key_from(const unsigned long long *rec, unsigned int at, unsigned int len,
			      unsigned long long *key)
{
	for (unsigned int k = 0; k < 8; k++)
		key[k] = 0;
	for (unsigned int k = 0; k < len; k++)
		key[k / 8] |= (unsigned long long)sepo_byte(rec, at + k) << (8 * (k % 8));
}

/* Decimal digits of rec from byte `at`, at most n of them. */
SIMT_DEVFN unsigned long long sepo_atoi(const unsigned long long *rec, unsigned int at, unsigned int n)
{
	unsigned long long v = 0;
	for (unsigned int i = at; i < at + n && i < 64; i++) {
		unsigned int c = sepo_byte(rec, i);
		if (c < '0' || c > '9')
			break;
		v = v * 10 + (c - '0');
	}
	return v;
}

/* The applications (sepo_map_args.app). */
#define SEPO_APP_PVC 0
#define SEPO_APP_KV 1
#define SEPO_APP_WC 2
#define SEPO_APP_II 3
#define SEPO_APP_NETFLIX 4 /* these four: one pair per record, sepo_record_pair */
#define SEPO_APP_DNA 5
#define SEPO_APP_PATENT 6
#define SEPO_APP_GEO 7

/* The applications whose kernels read their records one byte per load
 * from BigKernel's assembled buffer, as the author's do (rezafmk/
 * BRB_HashTable @449bded PVC/main.cu, Netflix/main.cu, DNAAssembly/main.cu:
 * each copies its fixed-size record byte by byte into a local array before
 * parsing it); the host assembles their chunks (sepo_bk_offset). */
SIMT_DEVFN int sepo_bytewise_app(unsigned int app)
{
	return app == SEPO_APP_PVC || app == SEPO_APP_NETFLIX || app == SEPO_APP_DNA;
}

/* PTX instructions per record besides the byte loads, nvcc 13.0 -O3
 * -arch=sm_75 -ptx of the author's compute loops (commit 449bded), from
 * the first byte load to the insert's call, the states[] load left out
 * (the done bitmap is read apart):
 *  Netflix/main.cu: the 64-byte copy (unrolled; bytes packed into
 *   st.local.v4/v2 by prmt) and four myAtoi loops of 12 instructions a
 *   digit over 6 + 6 + 1 + 1 digits (userA, userB, rateA, rateB): 284
 *   static - 4 x 12 + 14 x 12 = 404 dynamic, 65 of them ld.global.u8;
 *  DNAAssembly/main.cu: the 48-byte read copy (unrolled, lextension,
 *   rextension, record[k - 1]): 158 straight-line, 49 ld.global.u8. */
#define SEPO_NETFLIX_RECORD_INSTRUCTIONS (404u - 65u)
#define SEPO_DNA_RECORD_INSTRUCTIONS (158u - 49u)
/* The author's DNA kernel reads READSIZE_ALIGNED = 48 bytes a record (the
 * read; BigKernel assembles only that field of the FASTQ record). */
#define SEPO_DNA_READ_BYTES 48u

/* The record's one pair into the table; marks the record done when it
 * went in. */
SIMT_DEVFN void sepo_put(SIMT_CTX_ const struct sepo_map_args *p, unsigned long long gi,
			 const unsigned long long *key, unsigned int kbytes,
			 const unsigned long long *val, unsigned int vbytes)
{
	unsigned int b = sepo_hash(SIMT_PASS_ key, kbytes) % p->t.nbuckets;
	if (sepo_insert(SIMT_PASS_ &p->t, b, key, kbytes, val, vbytes) == SEPO_SUCCESS)
		sepo_mark_done(SIMT_PASS_ p->done, gi);
}

/* Pair n (from 1) of a record that yields several: inserts it; when the
 * insert is declined, records in progress[] that n - 1 pairs went in, so
 * the next iteration resumes after them (a record postponed half-way
 * would otherwise store its first pairs twice). Returns 0 when declined. */
SIMT_DEVFN int sepo_put_nth(SIMT_CTX_ const struct sepo_map_args *p, unsigned long long gi,
			    unsigned int n, const unsigned long long *key, unsigned int kbytes,
			    const unsigned long long *val, unsigned int vbytes)
{
	unsigned int b = sepo_hash(SIMT_PASS_ key, kbytes) % p->t.nbuckets;
	if (sepo_insert(SIMT_PASS_ &p->t, b, key, kbytes, val, vbytes) == SEPO_SUCCESS)
		return 1;
	ST(p->progress, gi, n - 1);
	return 0;
}

/* BigKernel's assembled input (seeds/001 ch. 4, §4.3.3, the input path of
 * every chapter-6 application, §6.5): the CPU-side assembly stage writes the
 * records of a warp's 32 threads interleaved in 16-byte pieces (COPYSIZE 16,
 * COALESCEITEMSIZE 16 in rezafmk/BRB_HashTable PVC/global.h), piece q of
 * lane t at q * 32 * 16 + t * 16, so that the warp's one-byte loads of step
 * k fall in one 512-byte span (PVC/main.cu's compute loop: genericCounter +
 * step, genericCounter += (step / 16) * 32 * 16). Here a group is 32
 * consecutive records of the chunk (thread r of the grid-stride loop is lane
 * r % 32, blocks being multiples of 32); the chunk's last group may be
 * shorter, g records, and then interleaves at g * 16 so that it stays
 * g * rec_bytes long and a run of 1024-record epochs is still one byte
 * range. rec_bytes must be a multiple of 16. Returns byte k of chunk record
 * r's offset in the chunk. */
#define SEPO_BK_LANES 32u
#define SEPO_BK_PIECE_BYTES 16u
SIMT_DEVFN unsigned long long sepo_bk_offset(unsigned long long r, unsigned long long n,
					     unsigned int rec_bytes, unsigned int k)
{
	unsigned long long g0 = r - r % SEPO_BK_LANES;
	unsigned long long g = n - g0 < SEPO_BK_LANES ? n - g0 : SEPO_BK_LANES;
	return g0 * rec_bytes + (k / SEPO_BK_PIECE_BYTES) * (g * SEPO_BK_PIECE_BYTES) +
	       (r - g0) * SEPO_BK_PIECE_BYTES + k % SEPO_BK_PIECE_BYTES;
}

/* Instructions per record byte of the author's Page View Count parse
 * besides its load: nvcc 13.0 -O3 -arch=sm_75 -ptx of PVC/main.cu's compute
 * loop (commit 449bded; the loop unrolls fully, 64 x 8 PTX instructions)
 * gives per byte ld.global.u8, st.local.u8 (URL[k] = c), two setp (c != ' ',
 * c != '\n'), and.pred, selp, add (urlSize++) and the predicated branch on
 * states[i]: 7 besides the load. */
#define SEPO_PVC_BYTE_INSTRUCTIONS 7u

/* Page View Count (§6.6.1): a 64-byte log record holds a URL padded with
 * spaces (rezafmk/BRB_HashTable PVC/dataset: "http://www.<letters>.com"
 * space-padded to 64 bytes); the pair is <URL, 1>, combined by addition.
 * Read as the author's kernel reads it (PVC/main.cu,
 * pageViewCountKernelMultipass, the !prediction branch): every one of the
 * record's 64 bytes is its own one-byte load from BigKernel's assembled
 * buffer (sepo_bk_offset) into the URL array, and the URL's length is
 * counted on the way (the author counts non-space bytes; here the URL ends
 * at the first space, newline or NUL, the same on his data, and the rule
 * the CPU reference and the log reader use). */
SIMT_DEVFN void sepo_pvc_record(SIMT_CTX_ const struct sepo_map_args *p, unsigned long long r,
				unsigned long long gi)
{
	const unsigned char *bytes = (const unsigned char *)p->recs;
	unsigned long long key[8] = {0, 0, 0, 0, 0, 0, 0, 0};
	unsigned int len = 64;
	for (unsigned int k = 0; k < 64; k++) {
		unsigned int c = LD(bytes, sepo_bk_offset(r, p->n, 64, k));
		key[k / 8] |= (unsigned long long)c << (8 * (k % 8));
		if (len == 64 && (c == ' ' || c == '\n' || c == 0))
			len = k;
	}
	COMPUTE(SEPO_PVC_BYTE_INSTRUCTIONS * 64);
	if (!len) {
		sepo_mark_done(SIMT_PASS_ p->done, gi); /* an empty line yields nothing */
		return;
	}
	sepo_key_trim(key, 8, len);
	unsigned long long one = 1;
	sepo_put(SIMT_PASS_ p, gi, key, len, &one, 8);
}

/* The insert-rate benchmark of Fig. 6.8 (rezafmk/BRB_HashTable
 * performanceTest): record = [key bytes | value bytes << 16] then the key
 * and value words; one pair per record. */
SIMT_DEVFN void sepo_kv_record(SIMT_CTX_ const struct sepo_map_args *p, unsigned long long r,
			       unsigned long long gi)
{
	const unsigned long long *rec = p->recs + r * p->rec_words;
	unsigned long long hdr = LD(rec, 0);
	unsigned int kb = (unsigned int)(hdr & 0xffff), vb = (unsigned int)(hdr >> 16 & 0xffff);
	unsigned int kw = (kb + 7) / 8, vw = (vb + 7) / 8;
	unsigned long long key[SEPO_MAX_KEY_WORDS], val[SEPO_MAX_VALUE_WORDS];
	for (unsigned int i = 0; i < kw; i++)
		key[i] = LD(rec, 1 + i);
	for (unsigned int i = 0; i < vw; i++)
		val[i] = LD(rec, 1 + kw + i);
	sepo_put(SIMT_PASS_ p, gi, key, kb, val, vb);
}

/* Word Count as a MapReduce map (§6.5, MAP_REDUCE mode: the combining
 * organisation with the reduce callback = addition): a record is a
 * 64-byte line of text; every lowercase word of 4 to key_bytes letters
 * (rezafmk/BRB_HashTable MapReduce_WC: words of 4-32 characters) yields
 * <word, 1>. A line is done when all its words are in (progress[]:
 * sepo_put_nth). */
SIMT_DEVFN void sepo_wc_record(SIMT_CTX_ const struct sepo_map_args *p, unsigned long long r,
			       unsigned long long gi)
{
	unsigned long long line[8];
	for (unsigned int i = 0; i < 8; i++)
		line[i] = LD(p->recs, r * p->rec_words + i);
	unsigned int skip = LD(p->progress, gi), nword = 0;
	for (unsigned int i = 0; i < 64;) {
		unsigned int c = sepo_byte(line, i);
		if (c < 'a' || c > 'z') {
			i++;
			continue;
		}
		unsigned int s = i;
		while (i < 64 && sepo_byte(line, i) >= 'a' && sepo_byte(line, i) <= 'z')
			i++;
		unsigned int len = i - s;
		COMPUTE(2 * len);
		if (len < 4 || len > p->key_bytes || nword++ < skip)
			continue;
		unsigned long long key[8], one = 1;
		sepo_key_from(line, s, len, key);
		if (!sepo_put_nth(SIMT_PASS_ p, gi, nword, key, len, &one, 8))
			return;
	}
	sepo_mark_done(SIMT_PASS_ p->done, gi);
}

/* Inverted Index (§6.6.1): HTML pages in 128-byte records (word 0: the
 * page id, then 120 bytes of text); every link href="URL" yields
 * <URL, page id>, grouped by the multi-valued organisation (MAP_GROUP).
 * Like word count, a record postponed after some of its links went in
 * resumes after them. The thesis's version has a long switch over
 * characters (its divergence, §6.6.2); this one a byte scan. */
SIMT_DEVFN void sepo_ii_record(SIMT_CTX_ const struct sepo_map_args *p, unsigned long long r,
			       unsigned long long gi)
{
	unsigned long long doc = LD(p->recs, r * 16), txt[15];
	for (unsigned int i = 0; i < 15; i++)
		txt[i] = LD(p->recs, r * 16 + 1 + i);
	unsigned int skip = LD(p->progress, gi), nlink = 0;
	for (unsigned int i = 0; i + 6 < 120; i++) {
		const char *pat = "href=\"";
		unsigned int m = 0;
		while (m < 6 && sepo_byte(txt, i + m) == (unsigned int)(unsigned char)pat[m])
			m++;
		COMPUTE(2 + m);
		if (m < 6)
			continue;
		unsigned int s = i + 6, e = s;
		while (e < 120 && sepo_byte(txt, e) != '"')
			e++;
		COMPUTE(2 * (e - s));
		i = e;
		if (e >= 120 || e == s || e - s > 64 || nlink++ < skip)
			continue;
		unsigned long long key[8];
		sepo_key_from(txt, s, e - s, key);
		if (!sepo_put_nth(SIMT_PASS_ p, gi, nlink, key, e - s, &doc, 8))
			return;
	}
	sepo_mark_done(SIMT_PASS_ p->done, gi);
}

SIMT_DEVFN unsigned int sepo_base_bit(unsigned int c)
{
	return c == 'A' ? 1u : c == 'C' ? 2u : c == 'G' ? 4u : c == 'T' ? 8u : 0u;
}

/* The pair of a record held in registers: key (zero-padded words) and
 * value, *vbytes its size; returns the key bytes, 0 when the record
 * yields no pair.
 *  Netflix (§6.6.1; rezafmk/BRB_HashTable Netflix/main.cu): 64-byte
 *   "movie(5) userA(6) date rateA userB(6) date rateB" (users at bytes 6
 *   and 35, ratings at 33 and 62) -> <(lower user, higher user), score>,
 *   score 10 for equal ratings, 2 for ratings one apart, else -5; the
 *   combining organisation sums the scores.
 *  DNA Assembly, first stage (DNAAssembly/main.cu): a read of 48 bases ->
 *   <bases 1..46, {1, left base set | right base set << 4}>, combined by
 *   SEPO_COMB_COUNT_OR: a count of identical fragments and the bases seen
 *   at each edge. An edge is unique when its set has one base: the
 *   thesis's (extension, unique) pair, kept as a set so the result does
 *   not depend on the order of inserts.
 *  Patent Citation, MAP_GROUP (MapReduce_PatentCitation): 16-byte
 *   "CCCCCCC,GGGGGGG\n" -> <cited number as text, citing number>.
 *  Geo Location, MAP_GROUP (MapReduce_GeoLocation): 64-byte "article id
 *   TAB title TAB latitude longitude", space-padded -> <location text,
 *   article id>. */
SIMT_DEVFN unsigned int sepo_record_pair(unsigned int app, const unsigned long long *rec,
					 unsigned long long *key, unsigned long long *val,
					 unsigned int *vbytes)
{
	*vbytes = 8;
	if (app == SEPO_APP_NETFLIX) {
		for (unsigned int i = 0; i < 8; i++)
			key[i] = 0;
		unsigned long long ua = sepo_atoi(rec, 6, 6), ub = sepo_atoi(rec, 35, 6);
		int ra = (int)sepo_byte(rec, 33), rb = (int)sepo_byte(rec, 62);
		int d = ra > rb ? ra - rb : rb - ra;
		key[0] = ua < ub ? ua << 32 | ub : ub << 32 | ua;
		val[0] = d == 0 ? 10ull : d == 1 ? 2ull : (unsigned long long)-5ll;
		return 8;
	}
	if (app == SEPO_APP_DNA) {
		sepo_key_from(rec, 1, 46, key);
		val[0] = 1;
		val[1] = sepo_base_bit(sepo_byte(rec, 0)) | sepo_base_bit(sepo_byte(rec, 47)) << 4;
		*vbytes = 16;
		return 46;
	}
	if (app == SEPO_APP_PATENT) {
		unsigned int len = 0;
		while (len < 8 && sepo_byte(rec, len) >= '0' && sepo_byte(rec, len) <= '9')
			len++;
		sepo_key_from(rec, 0, len, key);
		val[0] = sepo_atoi(rec, len + 1, 8);
		return len;
	}
	unsigned int at = 0, tabs = 0;
	while (at < 64 && tabs < 2)
		tabs += sepo_byte(rec, at++) == '\t';
	unsigned int end = at;
	/* the location ends at a control character or at two spaces */
	while (end < 64 && sepo_byte(rec, end) >= ' ' &&
	       !(sepo_byte(rec, end) == ' ' && (end + 1 >= 64 || sepo_byte(rec, end + 1) == ' ')))
		end++;
	if (tabs < 2)
		return 0;
	sepo_key_from(rec, at, end - at, key);
	val[0] = sepo_atoi(rec, 0, 19);
	return end - at;
}

/* Netflix, DNA Assembly, Patent Citation and Geo Location: one pair per
 * record of at most 8 words. */
SIMT_DEVFN void sepo_pair_record(SIMT_CTX_ const struct sepo_map_args *p, unsigned long long r,
				 unsigned long long gi)
{
	unsigned long long rec[8], key[8], val[2];
	if (sepo_bytewise_app(p->app)) {
		/* the author's copy loop: the bytes it uses, one load each, from
		 * BigKernel's assembled buffer (SEPO_NETFLIX/DNA_RECORD_INSTRUCTIONS) */
		const unsigned char *bytes = (const unsigned char *)p->recs;
		unsigned int nb = p->app == SEPO_APP_DNA ? SEPO_DNA_READ_BYTES : 64;
		for (unsigned int i = 0; i < 8; i++)
			rec[i] = 0;
		for (unsigned int k = 0; k < nb; k++)
			rec[k / 8] |= (unsigned long long)LD(bytes, sepo_bk_offset(r, p->n, 64, k))
				      << (8 * (k % 8));
		COMPUTE(p->app == SEPO_APP_DNA ? SEPO_DNA_RECORD_INSTRUCTIONS
					       : SEPO_NETFLIX_RECORD_INSTRUCTIONS);
	} else {
		for (unsigned int i = 0; i < 8; i++)
			rec[i] = i < p->rec_words ? LD(p->recs, r * p->rec_words + i) : 0;
	}
	unsigned int vb, kb = sepo_record_pair(p->app, rec, key, val, &vb);
	if (!sepo_bytewise_app(p->app))
		COMPUTE(8 * p->rec_words + 2 * kb);
	if (kb)
		sepo_put(SIMT_PASS_ p, gi, key, kb, val, vb);
	else
		sepo_mark_done(SIMT_PASS_ p->done, gi); /* a record without a pair */
}

/* The map kernel: the records of this thread not done yet, each through
 * its application's function. */
SIMT_KERNEL(sepo_map_kernel, struct sepo_map_args, p)
{
	unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
	for (unsigned long long r = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
	     r < p.n; r += stride) {
		unsigned long long gi = p.first + r;
		if (p.t.halt_groups && LD(p.t.ctr, SEPO_CTR_HALT))
			return; /* basic: the 50 % rule halted the iteration */
		if (!sepo_pending(SIMT_PASS_ p.done, gi))
			continue;
		switch (p.app) {
		case SEPO_APP_PVC: sepo_pvc_record(SIMT_PASS_ &p, r, gi); break;
		case SEPO_APP_KV: sepo_kv_record(SIMT_PASS_ &p, r, gi); break;
		case SEPO_APP_WC: sepo_wc_record(SIMT_PASS_ &p, r, gi); break;
		case SEPO_APP_II: sepo_ii_record(SIMT_PASS_ &p, r, gi); break;
		default: sepo_pair_record(SIMT_PASS_ &p, r, gi); break;
		}
	}
}

#endif
