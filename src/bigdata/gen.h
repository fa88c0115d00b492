/* Deterministic, streamed generators of the chapter-6 inputs (no public
 * data set can be downloaded here). Every record is a pure function of
 * (seed, record index), so a chunk is generated when it is needed and
 * generated again when a later SePo iteration re-reads it: memory is one
 * chunk, whatever the input size. Statistics are documented per
 * generator in docs/sepo.md. */
#ifndef GPUVM_BIGDATA_GEN_H
#define GPUVM_BIGDATA_GEN_H

#include <stdint.h>

#include "core/splitmix.h"

struct gen_rng {
	uint64_t s;
};
static inline uint64_t gen_next(struct gen_rng *r)
{
	r->s += SPLITMIX64_GAMMA;
	return splitmix64(r->s);
}
static inline double gen_unit(struct gen_rng *r) /* [0, 1) */
{
	return (double)(gen_next(r) >> 11) * (1.0 / 9007199254740992.0);
}
static inline struct gen_rng gen_rng_at(uint64_t seed, uint64_t stream, uint64_t index)
{
	struct gen_rng r = {splitmix64(seed ^ splitmix64(stream)) ^
			    splitmix64(index * 0xd1342543de82ef95ull + 1)};
	return r;
}

/* Zipf over ranks 1..n with exponent s > 0 (P(k) ~ k^-s), sampled by
 * rejection-inversion (Hörmann and Derflinger, ACM TOMACS 6(3) 1996; the
 * form of Apache Commons RNG's RejectionInversionZipfSampler): O(1)
 * memory, whatever n. */
struct gen_zipf {
	double s, n, h_x1, h_n, s_val;
};
void gen_zipf_init(struct gen_zipf *z, uint64_t n, double s);
uint64_t gen_zipf_sample(const struct gen_zipf *z, struct gen_rng *r);

/* Page View Count: 64-byte web-log records, "http://www.<L letters>.com"
 * padded with spaces, ending in '\n' (rezafmk/BRB_HashTable PVC/dataset:
 * 12-46 letters). The URL of a record is the Zipf(s)-ranked page among
 * `urls` distinct pages; a page's letters and length are a hash of its
 * rank. */
struct gen_pvc {
	uint64_t seed, urls;
	struct gen_zipf z;
};
void gen_pvc_init(struct gen_pvc *g, uint64_t seed, uint64_t urls, double s);
/* Writes records [first, first + n) (8 words each). */
void gen_pvc_fill(const struct gen_pvc *g, uint64_t first, uint64_t n, unsigned long long *out);
/* The URL of page `rank` (NUL-terminated, at most 61 bytes + NUL). */
unsigned int gen_pvc_url(uint64_t seed, uint64_t rank, char *url);

/* Insert-rate benchmark records (Fig. 6.8; performanceTest: random keys of
 * a fixed size, duplicates): record = header word, key words, value
 * words; keys drawn uniformly from `keys` distinct ones, so records/keys
 * is the mean number of duplicates. */
struct gen_kv {
	uint64_t seed, keys;
	unsigned int key_bytes, value_bytes, rec_words;
};
void gen_kv_init(struct gen_kv *g, uint64_t seed, uint64_t keys, unsigned int key_bytes,
		 unsigned int value_bytes);
void gen_kv_fill(const struct gen_kv *g, uint64_t first, uint64_t n, unsigned long long *out);

/* Word Count text: 64-byte lines of lowercase words separated by spaces
 * (newline last), words drawn Zipf(s) from a vocabulary of `vocab` words
 * whose lengths follow English's (mean ~5 letters; 2-12). */
struct gen_text {
	uint64_t seed, vocab;
	struct gen_zipf z;
};
void gen_text_init(struct gen_text *g, uint64_t seed, uint64_t vocab, double s);
void gen_text_fill(const struct gen_text *g, uint64_t first, uint64_t n, unsigned long long *out);
/* Word `rank` of the vocabulary (NUL-terminated, at most 12 letters). */
unsigned int gen_text_word(uint64_t seed, uint64_t rank, char *w);

/* Inverted Index input: HTML pages cut into 128-byte records (word 0: the
 * page's id, `per_doc` consecutive records per page; then 120 bytes of
 * text); a record holds zero, one or two links <a href="URL">, 80 % of
 * records at least one, URLs the Zipf(s)-ranked pages of gen_pvc_url. */
struct gen_html {
	uint64_t seed, urls, per_doc;
	struct gen_zipf z;
};
void gen_html_init(struct gen_html *g, uint64_t seed, uint64_t urls, double s, uint64_t per_doc);
void gen_html_fill(const struct gen_html *g, uint64_t first, uint64_t n, unsigned long long *out);

/* Netflix input: 64-byte rating-pair records in rezafmk/BRB_HashTable's
 * Netflix format, "MMMMM UUUUUU hh:mm:ss dd/mm/yyyy R UUUUUU hh:mm:ss
 * dd/mm/yyyy R\n" (a movie, two users who rated it, their dates and
 * ratings 1-5). Users are Zipf(s)-ranked by activity among `users`
 * (at most 999,999); a rating is the movie's quality plus the user's bias
 * plus noise, clamped to 1-5, so users' ratings correlate. */
struct gen_netflix {
	uint64_t seed, users, movies;
	struct gen_zipf z;
};
void gen_netflix_init(struct gen_netflix *g, uint64_t seed, uint64_t users, uint64_t movies, double s);
void gen_netflix_fill(const struct gen_netflix *g, uint64_t first, uint64_t n, unsigned long long *out);

/* DNA Assembly input: 64-byte records, a read of 48 bases then spaces and
 * '\n'. Reads start uniformly in a genome of `genome` bases (a pure
 * function of the seed and the position); one 1024-base block in 16 is a
 * copy of block 0 (a repeat: its fragments get ambiguous edges), and each
 * base is misread with probability `error_per_mille` / 1000 (noisy
 * fragments). records / genome is the coverage. */
struct gen_dna {
	uint64_t seed, genome;
	unsigned int error_per_mille;
};
void gen_dna_init(struct gen_dna *g, uint64_t seed, uint64_t genome, unsigned int error_per_mille);
void gen_dna_fill(const struct gen_dna *g, uint64_t first, uint64_t n, unsigned long long *out);

/* Patent Citation input: 16-byte records "CCCCCCC,GGGGGGG\n", the cited
 * and the citing patent among `patents` 7-digit numbers from 3,000,000
 * (US utility patents of 1976-2000 are 3,930,271-6,009,554: the NBER
 * citation data's range). The citing patent is uniform; the cited one is
 * Zipf(s)-ranked (citations are heavy-tailed), never the citing one. */
struct gen_patent {
	uint64_t seed, patents;
	struct gen_zipf z;
};
void gen_patent_init(struct gen_patent *g, uint64_t seed, uint64_t patents, double s);
void gen_patent_fill(const struct gen_patent *g, uint64_t first, uint64_t n, unsigned long long *out);

/* Geo Location input: 64-byte records "<8-digit article id>\t<title>\t
 * <lat> <lon>", space-padded, '\n' last: one Wikipedia article each, its
 * location the Zipf(s)-ranked place among `places` (a place's coordinates,
 * "+DD.DD +DDD.DD", are a hash of its rank); rezafmk/BRB_HashTable
 * MapReduce_GeoLocation appends such a location to Wikipedia's TSV. */
struct gen_geo {
	uint64_t seed, places;
	struct gen_zipf z;
};
void gen_geo_init(struct gen_geo *g, uint64_t seed, uint64_t places, double s);
void gen_geo_fill(const struct gen_geo *g, uint64_t first, uint64_t n, unsigned long long *out);

#endif
