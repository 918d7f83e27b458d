// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel symbol names front-coded and Huffman-coded (see knames.h): owns
 * the coding of each name against the one before, the codes, the bit
 * stream and the decoding of a name at lookup.
 *
 * A name is a header symbol, then (but for a padding's tail) the bytes it
 * does not share with the previous name's body, each a char symbol, and a
 * 0.  The body is the name less a leading "__pfx_"; the header says which
 * of three a name is and how many bytes of the previous body it keeps:
 *   H_TAIL           the previous name was "__pfx_" + this one
 *   H_PLAIN + k      a name without "__pfx_", sharing k bytes
 *   H_PFX + k        "__pfx_" + a body sharing k bytes
 * The codes come from the symbols' counts in the first KNAMES_TRAIN names
 * (each count one more, so that every symbol has a code): codes from all
 * names would need them all held at once, and names further on count much
 * the same (0.5% longer on 6.18).
 */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/knames.h"
#include "symbols/kbuf.h"

#define KNAMES_TRAIN 16384 /* a multiple of KNAMES_BLOCK */
#define SHARE_MAX 255      /* bytes of the previous body a header can keep */
#define CODE_MAX 11        /* the longest code: decoded by one table look-up */
#define PFX "__pfx_"
#define PFX_LEN (sizeof(PFX) - 1)

enum { H_TAIL = 0, H_PLAIN = 1, H_PFX = H_PLAIN + SHARE_MAX + 1, H_SYMS = H_PFX + SHARE_MAX + 1 };
#define C_SYMS 256 /* a name's bytes; 0 ends it (names hold no NUL) */

struct code {
	uint8_t len[H_SYMS];
	uint16_t bits[H_SYMS];
};

/* What only adding needs: freed by knames__seal. */
struct kname_enc {
	char *prev; /* the previous name's body, in this block */
	size_t prev_len, prev_cap;
	bool prev_pfx;
	struct kbuf train; /* the first names: header (2 bytes), bytes, 0 */
	size_t trained;
	uint32_t hfreq[H_SYMS], cfreq[C_SYMS];
	bool coding; /* the codes are made: names go straight to bits */
	struct code hcode, ccode;
	uint64_t acc; /* bits not yet in a whole byte */
	unsigned int nbits;
	size_t written; /* names in bits */
};

struct bit_reader {
	const uint8_t *p, *end;
	uint64_t acc; /* the next bits, from the top */
	unsigned int nbits;
};

struct knames {
	struct kbuf bits;   /* the codes; each block starts on a byte */
	struct kbuf blocks; /* uint32_t: each block's first byte in bits */
	size_t nr, max_len;
	struct kname_enc *enc;
	uint16_t hdec[1 << CODE_MAX], cdec[1 << CODE_MAX]; /* symbol << 4 | length */
	char *buf;   /* "__pfx_" then the body of name next - 1 */
	size_t body_len;
	bool pfx;    /* name next - 1 is "__pfx_" + body */
	size_t next; /* the name the reader decodes next */
	struct bit_reader rd;
};

struct knames *knames__new(void)
{
	struct knames *kn = calloc(1, sizeof(*kn));

	if (kn && !(kn->enc = calloc(1, sizeof(*kn->enc)))) {
		free(kn);
		return NULL;
	}
	return kn;
}

/* Huffman code lengths of n symbols of counts f (all > 0), by two queues
 * over the symbols in count order. */
static void huffman_lengths(const uint32_t *f, size_t n, uint8_t *len)
{
	uint32_t order[H_SYMS], parent[2 * H_SYMS];
	uint64_t weight[2 * H_SYMS];
	uint8_t depth[2 * H_SYMS];
	size_t leaf = 0, inner = n, next = n;

	for (size_t i = 0; i < n; i++)
		order[i] = i, weight[i] = f[i];
	for (size_t i = 1; i < n; i++) /* insertion sort: n <= 513, once a table */
		for (size_t j = i; j > 0 && f[order[j - 1]] > f[order[j]]; j--) {
			uint32_t t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	while (next < 2 * n - 1) {
		size_t pick[2];

		for (int k = 0; k < 2; k++)
			pick[k] = leaf < n && (inner == next || f[order[leaf]] <= weight[inner])
					  ? order[leaf++] : inner++;
		weight[next] = weight[pick[0]] + weight[pick[1]];
		parent[pick[0]] = parent[pick[1]] = next++;
	}
	depth[2 * n - 2] = 0;
	for (size_t i = 2 * n - 2; i-- > 0;)
		depth[i] = depth[parent[i]] + 1 > 255 ? 255 : depth[parent[i]] + 1;
	for (size_t i = 0; i < n; i++)
		len[i] = depth[i];
}

/* Canonical codes no longer than CODE_MAX: while one is, the counts are
 * halved (never to 0), which flattens the tree. */
static void make_code(const uint32_t *freq, size_t n, struct code *c)
{
	uint32_t f[H_SYMS], next[CODE_MAX + 2] = { 0 }, count[256] = { 0 };
	uint8_t longest;

	for (size_t i = 0; i < n; i++)
		f[i] = freq[i] + 1;
	for (;;) {
		huffman_lengths(f, n, c->len);
		longest = 0;
		for (size_t i = 0; i < n; i++)
			longest = c->len[i] > longest ? c->len[i] : longest;
		if (longest <= CODE_MAX)
			break;
		for (size_t i = 0; i < n; i++)
			f[i] = (f[i] + 1) / 2;
	}
	for (size_t i = 0; i < n; i++)
		count[c->len[i]]++;
	for (unsigned int l = 1, code = 0; l <= CODE_MAX; l++) {
		code = (code + count[l - 1]) << 1;
		next[l] = code;
	}
	for (size_t i = 0; i < n; i++)
		c->bits[i] = next[c->len[i]]++;
}

static void fill_decode(const struct code *c, size_t n, uint16_t *dec)
{
	for (size_t s = 0; s < n; s++) {
		unsigned int shift = CODE_MAX - c->len[s];
		size_t first = (size_t)c->bits[s] << shift;

		for (size_t k = 0; k < (1u << shift); k++)
			dec[first + k] = s << 4 | c->len[s];
	}
}

static void put_bits(struct knames *kn, unsigned int code, unsigned int len)
{
	struct kname_enc *e = kn->enc;

	e->acc = e->acc << len | code;
	e->nbits += len;
	while (e->nbits >= 8) {
		e->nbits -= 8;
		kn->bits.p[kn->bits.len++] = e->acc >> e->nbits;
	}
}

/* The rest of a byte, so that the next block starts on one. */
static void pad_bits(struct knames *kn)
{
	if (kn->enc->nbits)
		put_bits(kn, 0, 8 - kn->enc->nbits);
}

static int write_name(struct knames *kn, unsigned int header, const uint8_t *rest, size_t len)
{
	struct kname_enc *e = kn->enc;
	uint32_t at;
	int err;

	/* every code fits in 2 bytes; 1 more for a block's padding */
	if ((err = kbuf__reserve(&kn->bits, kn->bits.len + 2 * (len + 2) + 1)))
		return err;
	if (e->written++ % KNAMES_BLOCK == 0) {
		pad_bits(kn);
		at = kn->bits.len;
		if ((err = kbuf__append(&kn->blocks, &at, sizeof(at))))
			return err;
	}
	put_bits(kn, e->hcode.bits[header], e->hcode.len[header]);
	if (header == H_TAIL)
		return 0;
	for (size_t i = 0; i < len; i++)
		put_bits(kn, e->ccode.bits[rest[i]], e->ccode.len[rest[i]]);
	put_bits(kn, e->ccode.bits[0], e->ccode.len[0]);
	return 0;
}

/* The codes from the counts so far, and the names held for them written. */
static int start_coding(struct knames *kn)
{
	struct kname_enc *e = kn->enc;
	const uint8_t *p = (const uint8_t *)e->train.p, *end = p + e->train.len;
	int err = 0;

	make_code(e->hfreq, H_SYMS, &e->hcode);
	make_code(e->cfreq, C_SYMS, &e->ccode);
	e->coding = true;
	while (p < end && !err) {
		uint16_t header;
		size_t len;

		memcpy(&header, p, sizeof(header));
		p += sizeof(header);
		len = header == H_TAIL ? 0 : strlen((const char *)p);
		err = write_name(kn, header, p, len);
		p += header == H_TAIL ? 0 : len + 1;
	}
	kbuf__release(&e->train);
	return err;
}

static int hold_name(struct knames *kn, unsigned int header, const char *rest, size_t len)
{
	struct kname_enc *e = kn->enc;
	uint16_t h = header;
	int err;

	e->hfreq[header]++;
	if (header != H_TAIL) {
		for (size_t i = 0; i < len; i++)
			e->cfreq[(uint8_t)rest[i]]++;
		e->cfreq[0]++;
	}
	if ((err = kbuf__append(&e->train, &h, sizeof(h))) ||
	    (header != H_TAIL && ((err = kbuf__append(&e->train, rest, len)) ||
				  (err = kbuf__append(&e->train, "", 1)))))
		return err;
	return ++e->trained == KNAMES_TRAIN ? start_coding(kn) : 0;
}

/* Remembers body as the previous name's. */
static int set_prev(struct kname_enc *e, const char *body, size_t len, bool pfx)
{
	if (len > e->prev_cap) {
		char *p = realloc(e->prev, len);

		if (!p)
			return -ENOMEM;
		e->prev = p;
		e->prev_cap = len;
	}
	memcpy(e->prev, body, len);
	e->prev_len = len;
	e->prev_pfx = pfx;
	return 0;
}

int knames__add(struct knames *kn, const char *name, size_t len)
{
	struct kname_enc *e = kn->enc;
	bool pfx;
	const char *body;
	size_t blen, k = 0;
	unsigned int header;
	int err;

	len = strnlen(name, len); /* a NUL ends the name, as it ends a C string */
	pfx = len >= PFX_LEN && !memcmp(name, PFX, PFX_LEN);
	body = pfx ? name + PFX_LEN : name;
	blen = pfx ? len - PFX_LEN : len;
	if (kn->nr++ % KNAMES_BLOCK == 0)
		e->prev_len = 0, e->prev_pfx = false;
	kn->max_len = len > kn->max_len ? len : kn->max_len;
	if (e->prev_pfx && e->prev_len == len && !memcmp(e->prev, name, len)) {
		e->prev_pfx = false; /* the body stays: it is this name */
		return e->coding ? write_name(kn, H_TAIL, NULL, 0) : hold_name(kn, H_TAIL, NULL, 0);
	}
	while (k < blen && k < e->prev_len && k < SHARE_MAX && body[k] == e->prev[k])
		k++;
	header = (pfx ? H_PFX : H_PLAIN) + k;
	err = e->coding ? write_name(kn, header, (const uint8_t *)body + k, blen - k)
			: hold_name(kn, header, body + k, blen - k);
	return err ? err : set_prev(e, body, blen, pfx);
}

int knames__seal(struct knames *kn)
{
	struct kname_enc *e = kn->enc;
	int err = 0;

	if (!e)
		return 0;
	if (!e->coding)
		err = start_coding(kn);
	if (!err && !(err = kbuf__reserve(&kn->bits, kn->bits.len + 1)))
		pad_bits(kn);
	if (!err && !(kn->buf = malloc(PFX_LEN + kn->max_len + 1)))
		err = -ENOMEM;
	if (!err) {
		memcpy(kn->buf, PFX, PFX_LEN);
		fill_decode(&e->hcode, H_SYMS, kn->hdec);
		fill_decode(&e->ccode, C_SYMS, kn->cdec);
	}
	kbuf__release(&e->train);
	free(e->prev);
	free(e);
	kn->enc = NULL;
	return err;
}

/* At least 57 bits in rd->acc; past the end come zero bits (only a
 * block's padding is read there). */
static void refill(struct bit_reader *rd)
{
	uint64_t w;

	if (rd->end - rd->p >= 8) {
		memcpy(&w, rd->p, sizeof(w));
		rd->acc |= be64toh(w) >> rd->nbits;
		rd->p += (63 - rd->nbits) >> 3;
		rd->nbits |= 56;
		return;
	}
	for (; rd->nbits <= 56; rd->nbits += 8)
		rd->acc |= (uint64_t)(rd->p < rd->end ? *rd->p++ : 0) << (56 - rd->nbits);
}

static unsigned int read_sym(struct bit_reader *rd, const uint16_t *dec)
{
	unsigned int e;

	if (rd->nbits < CODE_MAX)
		refill(rd);
	e = dec[rd->acc >> (64 - CODE_MAX)];
	rd->acc <<= e & 15;
	rd->nbits -= e & 15;
	return e >> 4;
}

/* Name kn->next into kn->buf. */
static void decode_next(struct knames *kn)
{
	char *body = kn->buf + PFX_LEN;
	unsigned int h, c;
	size_t len;

	if (kn->next % KNAMES_BLOCK == 0) {
		const uint32_t *at = (const uint32_t *)kn->blocks.p;

		kn->rd = (struct bit_reader){ .p = (const uint8_t *)kn->bits.p + at[kn->next / KNAMES_BLOCK],
					      .end = (const uint8_t *)kn->bits.p + kn->bits.len };
		kn->body_len = 0;
		kn->pfx = false;
	}
	kn->next++;
	if ((h = read_sym(&kn->rd, kn->hdec)) == H_TAIL) {
		kn->pfx = false;
		return;
	}
	kn->pfx = h >= H_PFX;
	len = h - (kn->pfx ? H_PFX : H_PLAIN);
	len = len < kn->body_len ? len : kn->body_len;
	/* bounded even were the bits wrong: at most max_len bytes and the 0 */
	for (size_t n = 0; n <= kn->max_len && (c = read_sym(&kn->rd, kn->cdec)); n++)
		if (len < kn->max_len)
			body[len++] = c;
	body[len] = '\0';
	kn->body_len = len;
}

const char *knames__name(struct knames *kn, size_t idx)
{
	size_t block_start = idx - idx % KNAMES_BLOCK;

	if (idx >= kn->nr || kn->enc)
		return NULL;
	if (kn->next > idx + 1 || kn->next < block_start)
		kn->next = block_start;
	while (kn->next <= idx)
		decode_next(kn);
	return kn->pfx ? kn->buf : kn->buf + PFX_LEN;
}

size_t knames__bytes(const struct knames *kn)
{
	return kn->bits.len + kn->blocks.len + sizeof(*kn);
}

void knames__free(struct knames *kn)
{
	if (!kn)
		return;
	if (kn->enc) {
		kbuf__release(&kn->enc->train);
		free(kn->enc->prev);
		free(kn->enc);
	}
	kbuf__release(&kn->bits);
	kbuf__release(&kn->blocks);
	free(kn->buf);
	free(kn);
}
