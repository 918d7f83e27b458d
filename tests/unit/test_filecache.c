// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The file-identity cache (src/files/filecache.c) that the symbol tables and the
 * unwind tables share: identities taken from real files (one file by two
 * paths is one entry, a rewritten file another), eviction and trimming
 * least recently used first, held entries never freed, the owner's other
 * memory freed in age order with the entries, and a table grown past its
 * first buckets still finding every entry.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "files/filecache.h"
#include "unit.h"

struct item {
	struct filecache_ent ent; /* first */
	int name;
};

static int freed[64], nr_freed;

static void item_free(struct filecache_ent *e, void *arg)
{
	(void)arg;
	if (nr_freed < 64)
		freed[nr_freed++] = ((struct item *)e)->name;
	free(e);
}

static struct item *add(struct filecache *fc, uint64_t ino, int name, uint64_t used,
			size_t bytes)
{
	struct item *it = calloc(1, sizeof(*it));

	it->ent.id = (struct file_id){ .dev = 1, .ino = ino, .size = 10 };
	it->ent.last_used = used;
	it->ent.bytes = bytes;
	it->name = name;
	filecache__add(fc, &it->ent);
	return it;
}

/* fd's identity, from a fresh open of path. */
static struct file_id id_of(const char *path)
{
	struct stat st;
	struct file_id id = { 0 };
	int fd = open(path, O_RDONLY);

	if (fd >= 0 && !fstat(fd, &st))
		id = file_id__of(fd, &st);
	if (fd >= 0)
		close(fd);
	return id;
}

TEST(identity_of_real_files)
{
	char dir[] = "/tmp/smolder-filecache-XXXXXX", a[64], b[64];
	struct filecache *fc = filecache__new(item_free, NULL);
	struct file_id id;
	struct item *it;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(a, sizeof(a), "%s/a", dir);
	snprintf(b, sizeof(b), "%s/b", dir);
	fd = open(a, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "one", 3) == 3);
	close(fd);
	CHECK(!link(a, b));
	it = calloc(1, sizeof(*it));
	it->ent.id = id_of(a);
	filecache__add(fc, &it->ent);
	id = id_of(b);
	CHECK(filecache__find(fc, &id) == &it->ent); /* one file, two paths */
	fd = open(a, O_WRONLY | O_APPEND);
	CHECK(fd >= 0 && write(fd, "two", 3) == 3);
	close(fd);
	id = id_of(b);
	CHECK(filecache__find(fc, &id) == NULL); /* rewritten: another file */
	filecache__free(fc);
	unlink(a);
	unlink(b);
	rmdir(dir);
}

/*
 * The owner sets size and mtime back as they were: still another file
 * (the change time moved), as is a new file that got the freed inode.
 */
TEST(identity_not_settable_by_owner)
{
	char dir[] = "/tmp/smolder-filecache-XXXXXX", a[64];
	struct timespec old[2] = { { 1700000000, 0 }, { 1700000000, 0 } };
	struct filecache *fc = filecache__new(item_free, NULL);
	struct file_id id;
	struct item *it;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(a, sizeof(a), "%s/a", dir);
	fd = open(a, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, "one", 3) == 3 && !futimens(fd, old));
	close(fd);
	it = calloc(1, sizeof(*it));
	it->ent.id = id_of(a);
	filecache__add(fc, &it->ent);
	usleep(20000); /* past the file system's clock tick */
	fd = open(a, O_WRONLY);
	CHECK(fd >= 0 && pwrite(fd, "two", 3, 0) == 3 && !futimens(fd, old));
	close(fd);
	id = id_of(a);
	CHECK(id.size == it->ent.id.size && id.mtime_sec == it->ent.id.mtime_sec);
	CHECK(filecache__find(fc, &id) == NULL);
	filecache__free(fc);
	unlink(a);
	rmdir(dir);
}

TEST(trim_oldest_first_held_kept)
{
	struct filecache *fc = filecache__new(item_free, NULL);
	struct filecache_trim t = { .limit = 150 };
	struct filecache_stats st;
	struct item *old = add(fc, 1, 1, 1, 100);

	add(fc, 2, 2, 3, 100);
	add(fc, 3, 3, 2, 100);
	filecache__hold(&old->ent);
	nr_freed = 0;
	filecache__trim(fc, &t);
	CHECK(nr_freed == 2 && freed[0] == 3 && freed[1] == 2);
	filecache__stats(fc, &st);
	CHECK(st.entries == 1 && st.held == 1 && st.bytes == 100 && st.evicted == 2);
	filecache__release(&old->ent);
	t.limit = 0;
	filecache__trim(fc, &t);
	CHECK(nr_freed == 3 && filecache__bytes(fc) == 0);
	filecache__free(fc);
}

struct other {
	size_t *bytes;
	int name;
};

static void drop_other(void *item, void *arg)
{
	struct other *o = item;

	(void)arg;
	*o->bytes -= 50;
	freed[nr_freed++] = o->name;
}

TEST(trim_orders_others_with_entries)
{
	struct filecache *fc = filecache__new(item_free, NULL);
	size_t other_bytes = 50;
	struct other o = { &other_bytes, 9 };
	struct filecache_other others[] = { { .last_used = 3, .item = &o } };
	struct filecache_trim t = { .limit = 110, .other_bytes = &other_bytes,
				    .others = others, .nr_others = 1,
				    .drop_other = drop_other };

	add(fc, 1, 1, 1, 100);
	add(fc, 2, 2, 5, 100);
	nr_freed = 0;
	filecache__trim(fc, &t);
	CHECK(nr_freed == 2 && freed[0] == 1 && freed[1] == 9);
	CHECK(filecache__bytes(fc) == 100 && other_bytes == 0);
	filecache__free(fc);
}

static bool even(const struct filecache_ent *e, void *arg)
{
	(void)arg;
	return ((const struct item *)e)->name % 2 == 0;
}

TEST(lru_prefers_unheld_then_oldest)
{
	struct filecache *fc = filecache__new(item_free, NULL);
	struct item *a = add(fc, 1, 2, 1, 0), *b = add(fc, 2, 4, 5, 0);

	add(fc, 3, 6, 9, 0);
	add(fc, 4, 1, 0, 0);
	filecache__hold(&a->ent);
	CHECK(filecache__lru(fc, even, NULL) == &b->ent); /* a is older, but held */
	CHECK(((struct item *)filecache__lru(fc, NULL, NULL))->name == 1);
	filecache__hold(&b->ent);
	CHECK(((struct item *)filecache__lru(fc, even, NULL))->name == 6);
	filecache__free(fc);
}

TEST(grown_table_finds_all)
{
	struct filecache *fc = filecache__new(item_free, NULL);
	struct filecache_stats st;
	size_t found = 0;

	for (int i = 0; i < 5000; i++)
		add(fc, 1000 + i * 4096ull, i, i, 1);
	for (int i = 0; i < 5000; i++) {
		struct file_id id = { .dev = 1, .ino = 1000 + i * 4096ull, .size = 10 };
		struct filecache_ent *e = filecache__find(fc, &id);

		found += e && ((struct item *)e)->name == i;
	}
	CHECK(found == 5000);
	filecache__stats(fc, &st);
	CHECK(st.entries == 5000 && st.bytes == 5000 && st.table_bytes > 5000 * sizeof(void *));
	filecache__free(fc);
}

int main(void)
{
	RUN(identity_of_real_files);
	RUN(identity_not_settable_by_owner);
	RUN(trim_oldest_first_held_kept);
	RUN(trim_orders_others_with_entries);
	RUN(lru_prefers_unheld_then_oldest);
	RUN(grown_table_finds_all);
	UNIT_EXIT();
}
