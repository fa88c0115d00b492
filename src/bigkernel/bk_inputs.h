/* Deterministic inputs of the BigKernel applications (Table 4.1; no
 * public data set can be downloaded here) and the CPU references that
 * need more than a loop: record layouts are in bk_kernels.h. Word Count
 * reads the SePo text generator (bigdata/gen.h) as it is. */
#ifndef GPUVM_BK_INPUTS_H
#define GPUVM_BK_INPUTS_H

#include <stdint.h>

/* K-means: n particles around BK_KM_K centres; cent gets the initial
 * centroids (the centres, moved a little); cluster ids all ones. */
void bk_gen_particles(unsigned char *out, uint64_t n, double *cent, uint64_t seed);
/* Netflix: n rating records of two users for a movie. */
void bk_gen_ratings(unsigned char *out, uint64_t n, unsigned users, unsigned movies, uint64_t seed);
/* DNA Assembly: n fragments read from a random genome, about four reads
 * per position, 5 % of them with one substituted base (noise). */
void bk_gen_dna(unsigned char *out, uint64_t n, uint64_t seed);

/* Opinion Finder: n tweets of vocabulary words (Zipf s = 1, spelled by
 * gen_text_word); the dictionary is BK_OF_DICT_WORDS of them. */
#define BK_OF_DICT_WORDS 98u
void bk_gen_tweets(unsigned char *out, uint64_t n, uint64_t seed);
unsigned bk_of_word(uint64_t seed, unsigned id, char *w);
/* BK_OF_SUBJECT, BK_OF_POS, BK_OF_NEG or BK_OF_ADVERB (bk_device.h) */
int bk_of_word_class(unsigned id);
/* The kernel's rules on one record with the word sets (BK_OF_DICTS key
 * tables of mask + 1 slots each, side by side); returns 1 if the tweet
 * mentions the subject, its score in *sc. */
int bk_of_reference(const unsigned char *rec, const unsigned long long *keys, uint64_t mask,
		    long long *sc);

/* MasterCard Affinity: BK_MCA_BLOCK-byte blocks of transactions (no
 * record spans a block); writes each record's offset to index (if not
 * NULL); returns the number of transactions. */
uint64_t bk_gen_transactions(unsigned char *out, uint64_t blocks, unsigned customers,
			     unsigned merchants, uint64_t seed, uint64_t *index);
/* counts[m] = transactions at merchant m by customers of merchant x. */
void bk_mca_reference(const unsigned char *in, uint64_t bytes, unsigned x, unsigned *counts);

#endif
