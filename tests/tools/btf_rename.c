// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * btf_rename IN OUT STRUCT FIELD NEWNAME: writes OUT, raw BTF equal to IN
 * (a kernel's BTF) except that STRUCT's member FIELD is called NEWNAME: the
 * BTF of a kernel where a field smolder reads was renamed (as task_struct's
 * state became __state in 5.14).  Given to `smolder --btf`, libbpf cannot
 * relocate the reads of that field and the kernel's verifier rejects the
 * program: a real rejection, for the tests of how smolder reports one.
 * Type ids stay as they were: every type is copied in order, the one struct
 * rebuilt member by member.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

static int copy_renamed(struct btf *dst, const struct btf *src, const struct btf_type *t,
			const char *field, const char *newname, int *found)
{
	const struct btf_member *m = btf_members(t);
	int id = btf__add_struct(dst, btf__name_by_offset(src, t->name_off), t->size);

	for (int i = 0; id > 0 && i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(src, m[i].name_off);

		if (!strcmp(name, field)) {
			name = newname;
			(*found)++;
		}
		if (btf__add_field(dst, name, m[i].type, btf_member_bit_offset(t, i),
				   btf_member_bitfield_size(t, i)))
			return -1;
	}
	return id;
}

int main(int argc, char **argv)
{
	struct btf *src, *dst;
	const void *raw;
	int found = 0;
	__u32 size;
	FILE *f;

	if (argc != 6) {
		fprintf(stderr, "usage: btf_rename IN OUT STRUCT FIELD NEWNAME\n");
		return 2;
	}
	src = btf__parse(argv[1], NULL);
	dst = btf__new_empty();
	if (libbpf_get_error(src) || !dst) {
		fprintf(stderr, "btf_rename: cannot read %s\n", argv[1]);
		return 1;
	}
	for (__u32 id = 1; id < btf__type_cnt(src); id++) {
		const struct btf_type *t = btf__type_by_id(src, id);
		int got;

		if (btf_is_struct(t) && !strcmp(btf__name_by_offset(src, t->name_off), argv[3]))
			got = copy_renamed(dst, src, t, argv[4], argv[5], &found);
		else
			got = btf__add_type(dst, src, t);
		if (got != (int)id) {
			fprintf(stderr, "btf_rename: cannot copy type %u (got %d)\n", id, got);
			return 1;
		}
	}
	if (!found) {
		fprintf(stderr, "btf_rename: no struct %s with a member %s\n", argv[3], argv[4]);
		return 1;
	}
	raw = btf__raw_data(dst, &size);
	f = fopen(argv[2], "wb");
	if (!raw || !f || fwrite(raw, 1, size, f) != size || fclose(f)) {
		fprintf(stderr, "btf_rename: cannot write %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	return 0;
}
