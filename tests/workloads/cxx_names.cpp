/*
 * cxx_names: C++ names for the demangling test (built by tests/cli/sym_cxx.sh
 * with g++, the Makefile builds only C).  A namespace, a class template
 * with two instantiations, a lambda, an operator and an anonymous
 * namespace, with a 75/25 split between the two instantiations:
 *
 *   main -> (anonymous namespace)::drive(double)
 *        -> ns::Worker<int>::run(unsigned long)   3 units a round
 *        -> ns::Worker<long>::run(unsigned long)  1 unit a round
 *   each -> ns::Worker<T>::run(unsigned long)::{lambda(unsigned long)#1}::
 *           operator()(unsigned long) const
 *        -> ns::Acc::operator+=(unsigned long)    (the leaf: burns)
 *
 * Usage: cxx_names [SECONDS]  (default 5); exits on its own.
 */
#include <cstdlib>
#include <ctime>

namespace ns {

struct Acc {
	volatile unsigned long v = 0;
	Acc &operator+=(unsigned long n);
};

__attribute__((noinline)) Acc &Acc::operator+=(unsigned long n)
{
	volatile unsigned long acc = v;

	for (unsigned long i = 0; i < n; i++)
		acc += i ^ (acc >> 3);
	v = acc;
	return *this;
}

template <typename T> struct Worker {
	T seed;
	unsigned long run(unsigned long units);
};

template <typename T>
__attribute__((noinline)) unsigned long Worker<T>::run(unsigned long units)
{
	Acc acc;
	auto step = [&acc, this](unsigned long n) __attribute__((noinline)) {
		acc += n + (unsigned long)(seed & 1);
		return acc.v;
	};
	unsigned long r = 0;

	for (unsigned long u = 0; u < units; u++)
		r += step(200000);
	return r;
}

template struct Worker<int>;
template struct Worker<long>;

} // namespace ns

namespace {

double now()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

volatile unsigned long sink;

__attribute__((noinline)) void drive(double seconds)
{
	ns::Worker<int> wi{1};
	ns::Worker<long> wl{2};
	double end = now() + seconds;

	while (now() < end)
		for (int i = 0; i < 10; i++) {
			sink += wi.run(3);
			sink += wl.run(1);
		}
}

} // namespace

int main(int argc, char **argv)
{
	drive(argc > 1 ? atof(argv[1]) : 5);
	return 0;
}
