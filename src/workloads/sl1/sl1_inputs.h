/* Deterministic inputs and CPU references of the S-L1 applications
 * (src/workloads/sl1/sl1_kernels.h). Generators take a seed and fill a
 * caller's buffer; references compute what the kernels must produce. */
#ifndef GPUVM_SL1_INPUTS_H
#define GPUVM_SL1_INPUTS_H

#include <stdint.h>

/* Lower-case words of 1-10 letters, one space between, a newline after
 * every 6-15 words; the last byte is '\n'. */
void sl1_gen_text(char *buf, uint64_t n, uint64_t seed);

/* Web-log lines of at most n bytes in all ("IP - - [time] "GET /URL
 * HTTP/1.1" 200 SIZE"), URLs drawn from `urls` pages with a skewed
 * (power-law-like) popularity; returns the bytes used (whole lines). */
uint64_t sl1_gen_log(char *buf, uint64_t n, uint64_t seed, unsigned urls);

/* n points of dims floats in [0, 100) around `clusters` centres. */
void sl1_gen_points(float *p, uint64_t n, unsigned dims, unsigned clusters, uint64_t seed);

/* Floats in [-1, 1) (Matrix Multiply inputs). */
void sl1_gen_floats(float *p, uint64_t n, uint64_t seed);

/* FNV-1a hash of the URL of the log line at line[0..]: the text from the
 * first '/' to the next ' ' (what the kernel hashes). */
uint64_t sl1_url_hash(const char *line);

/* Builds the open-addressing URL table of the log (keys[slot] = hash + 1,
 * linear probing, slots a power of two) and counts each line's URL into
 * want[slot]; returns the number of distinct URLs, or -1 if the table
 * is too small. */
int64_t sl1_pvc_reference(const char *log, uint64_t n, uint64_t *keys, unsigned *want,
			  uint64_t slots);

/* Kernighan and Pike's matcher (literals, '.', 'x*') from text[i]
 * within one line, as the grep kernel runs it. */
int sl1_grep_match(const char *re, const char *text);


/* Card transactions, two words each (customer, merchant): customers
 * uniform over `customers`, merchants skewed towards low ids. */
void sl1_gen_txns(unsigned *txn, uint64_t n, unsigned customers, unsigned merchants,
		  uint64_t seed);

/* HTML-like lines (documents) of words and, one token in eight, a link
 * <a href="/page/N.html">w</a>; the last byte is '\n'. */
void sl1_gen_html(char *buf, uint64_t n, uint64_t seed);

/* Word `id` of a deterministic vocabulary (3-9 lower-case letters, no
 * two ids alike below 2^20); writes it and returns its length. */
unsigned sl1_vocab_word(unsigned id, char *out);

/* Tweets: lines of 5-20 vocabulary words (ids below vocab, skewed
 * towards low ids); the last byte is '\n'. */
void sl1_gen_tweets(char *buf, uint64_t n, unsigned vocab, uint64_t seed);

/* FNV-1a of len bytes (the hash the text kernels use). */
uint64_t sl1_fnv1a(const char *s, uint64_t len);
#endif
