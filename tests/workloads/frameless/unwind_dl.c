/*
 * unwind_dl: the library unwind_paths loads with dlopen in its "dlopen"
 * mode, built like it (-O2, no frame pointers, gcc and clang):
 *   dl_entry -> dl_work (frameless leaf)
 */
#ifdef __clang__
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noipa))
#endif

NOINLINE unsigned long dl_work(unsigned long n)
{
	unsigned long acc = n;

	for (unsigned long i = 0; i < n; i++)
		acc ^= (acc << 7) + i * 0x9e3779b97f4a7c15UL;
	return acc;
}

unsigned long dl_entry(unsigned long n)
{
	unsigned long r = dl_work(n);

	__asm__ volatile("" ::: "memory");
	return r + 3;
}
