// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Demangling: C++ names as g++ 12 emits them (checked against c++filt),
 * Rust legacy and v0 names as rustfilt shows them (hash and crate
 * disambiguators dropped), and the inputs that must come back untouched.
 */
#include <stdlib.h>
#include <unistd.h>
#include "unit.h"
#include "symbols/demangle.h"

struct pair {
	const char *mangled, *want;
};

static void check_pairs(const struct pair *p, size_t n)
{
	char buf[1024];
	size_t i;

	for (i = 0; i < n; i++)
		CHECK_STR(demangle__name(p[i].mangled, buf, sizeof(buf)), p[i].want);
}

TEST(cxx_names)
{
	static const struct pair p[] = {
		{ "_ZN3foo3barEv", "foo::bar()" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		{ "_ZN2ns5inner5scaleIlLi3EEET_S2_", "long ns::inner::scale<long, 3>(long)" },
		{ "_ZN2ns5inner6WidgetC1Ei", "ns::inner::Widget::Widget(int)" },
		{ "_ZN2ns5inner6WidgetD2Ev", "ns::inner::Widget::~Widget()" },
		{ "_ZNK2ns5inner6WidgetplERKS1_",
		  "ns::inner::Widget::operator+(ns::inner::Widget const&) const" },
		{ "_ZNK2ns5inner6WidgetltERKS1_",
		  "ns::inner::Widget::operator<(ns::inner::Widget const&) const" },
		{ "_ZN3FooixEm", "Foo::operator[](unsigned long)" },
		{ "_ZN3FoocvbEv", "Foo::operator bool()" },
		{ "_Znwm", "operator new(unsigned long)" },
		{ "_ZdlPv", "operator delete(void*)" },
		{ "_ZZN2ns5inner10use_lambdaEiENKUliE_clEi",
		  "ns::inner::use_lambda(int)::{lambda(int)#1}::operator()(int) const" },
		{ "_ZN2ns5inner4makeERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
		  "ns::inner::make(std::__cxx11::basic_string<char, std::char_traits<char>, "
		  "std::allocator<char> > const&)" },
		{ "_ZN3foo3barEv.cold", "foo::bar() [clone .cold]" },
		{ "_Z5caf\xc3\xa9v", "caf\xc3\xa9()" },
	};

	check_pairs(p, sizeof(p) / sizeof(p[0]));
}

TEST(rust_legacy_names)
{
	static const struct pair p[] = {
		{ "_ZN4core3ptr13drop_in_place17h0123456789abcdefE", "core::ptr::drop_in_place" },
		{ "_ZN60_$LT$alloc..string..String$u20$as$u20$core..fmt..Display$GT$3fmt17h0a1b2c3d4e5f6789E",
		  "<alloc::string::String as core::fmt::Display>::fmt" },
		{ "_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h0a1b2c3d4e5f6789E",
		  "std::rt::lang_start::{{closure}}" },
		{ "_ZN3std2rt10lang_start17h0a1b2c3d4e5f6789E.llvm.12345", "std::rt::lang_start" },
		/* A hash libiberty's Rust side declines: the C++ side's output, hash cut. */
		{ "_ZN4core3ptr13drop_in_place17h0000000000000000E", "core::ptr::drop_in_place" },
	};

	check_pairs(p, sizeof(p) / sizeof(p[0]));
}

TEST(rust_v0_names)
{
	static const struct pair p[] = {
		{ "_RNvCs15kBYyAo9fc_7mycrate4main", "mycrate::main" },
		{ "_RNvMNtCs1234_7mycrate3fooNtB2_3Bar3new", "<mycrate::foo::Bar>::new" },
		{ "_RINvNtCs1234_7mycrate3foo3barmE", "mycrate::foo::bar::<u32>" },
		{ "_RNCNCNgCs6DXkGYLi8lr_2cc5spawn00B5_", "cc::spawn::{closure#0}::{closure#0}" },
		{ "_RINvC3foo3barFG_RL0_lEuE", "foo::bar::<for<'a> fn(&'a i32)>" },
		{ "_RINvC3foo3barTllETBb_Bb_EE", "foo::bar::<(i32, i32), ((i32, i32), (i32, i32))>" },
	};

	check_pairs(p, sizeof(p) / sizeof(p[0]));
}

/* Not mangled, or not validly: the very same pointer comes back. */
TEST(unchanged)
{
	static const char *const names[] = {
		"main", "do_syscall_64", "_start", "__libc_start_main", "_", "", "_Z",
		"_ZN", "_ZN3foo", "_Zfoo", "_Z1", "_R", "_RNv", "_R!!", "_ZN3foo3barE\x01",
		"x_ZN3foo3barEv", "[anon]",
	};
	char buf[256];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK(demangle__name(names[i], buf, sizeof(buf)) == names[i]);
	CHECK(demangle__name(NULL, buf, sizeof(buf)) == NULL);
	CHECK(demangle__name("_ZN3foo3barEv", NULL, 10) != NULL);
	CHECK_STR(demangle__name("_ZN3foo3barEv", buf, 1), "_ZN3foo3barEv");
}

/*
 * Names on which libiberty alone never returns: C++ substitutions and v0
 * back-references that multiply the output at every level (4^30 and 2^60
 * characters), and a lifetime binder counting to 62^10 where printing is
 * suppressed (an impl path).
 */
TEST(hostile_names)
{
	static const char *const names[] = {
		"_RINvC3foo3barTllETBb_Bb_ETBf_Bf_ETBn_Bn_ETBv_Bv_ETBD_BD_ETBL_BL_"
		"ETBT_BT_ETB11_B11_ETB19_B19_ETB1j_B1j_ETB1t_B1t_ETB1D_B1D_ETB1N_B1N_"
		"ETB1X_B1X_ETB27_B27_ETB2h_B2h_ETB2r_B2r_ETB2B_B2B_ETB2L_B2L_ETB2V_"
		"B2V_ETB35_B35_ETB3f_B3f_ETB3p_B3p_ETB3z_B3z_ETB3J_B3J_ETB3T_B3T_ETB43_"
		"B43_ETB4d_B4d_ETB4n_B4n_ETB4x_B4x_ETB4H_B4H_ETB4R_B4R_ETB51_B51_ETB5b_"
		"B5b_ETB5l_B5l_ETB5v_B5v_ETB5F_B5F_ETB5P_B5P_ETB5Z_B5Z_ETB69_B69_EE",
		"_RNvMINvC3foo3barFGZZZZZZZZZZ_EuEl3new",
		"_Z1fPFviEPFvS0_S0_EPFvS2_S2_EPFvS4_S4_EPFvS6_S6_EPFvS8_S8_EPFvSA_SA_"
		"EPFvSC_SC_EPFvSE_SE_EPFvSG_SG_EPFvSI_SI_EPFvSK_SK_EPFvSM_SM_EPFvSO_SO_"
		"EPFvSQ_SQ_EPFvSS_SS_EPFvSU_SU_EPFvSW_SW_EPFvSY_SY_EPFvS10_S10_EPFvS12_"
		"S12_EPFvS14_S14_EPFvS16_S16_EPFvS18_S18_EPFvS1A_S1A_EPFvS1C_S1C_EPFvS1E_"
		"S1E_EPFvS1G_S1G_EPFvS1I_S1I_EPFvS1K_S1K_EPFvS1M_S1M_E",
		"_RINvC3foo3barFGZZZZZZZZZZ_RL0_lEuE",
	};
	char buf[256];
	size_t i;

	alarm(20); /* a regression hangs: die rather than stall the suite */
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK(demangle__name(names[i], buf, sizeof(buf)) == names[i]);
	alarm(0);
	/* The same impl path with a sane binder is fine. */
	CHECK_STR(demangle__name("_RNvMINvC3foo3barFG0_EuEl3new", buf, sizeof(buf)), "<i32>::new");
	/* Four levels of the C++ one: 726 characters, cut to the buffer. */
	CHECK(demangle__name("_Z1fPFviEPFvS0_S0_EPFvS2_S2_EPFvS4_S4_EPFvS6_S6_E", buf,
		       sizeof(buf)) == buf);
	CHECK(strlen(buf) == sizeof(buf) - 1);
}

/* Past DEMANGLE_MAX_INPUT the name is not even looked at. */
TEST(overlong)
{
	size_t n = DEMANGLE_MAX_INPUT + 100, i;
	char *name = malloc(n + 1), *big = malloc(n * 4);
	char buf[64];

	if (!name || !big) {
		CHECK(0);
		free(name);
		free(big);
		return;
	}
	/* _ZN 3foo 3foo ... 3barEv: valid, but too long. */
	memcpy(name, "_ZN", 3);
	for (i = 3; i + 4 + 6 <= n; i += 4)
		memcpy(name + i, "3foo", 4);
	memcpy(name + i, "3barEv", 7);
	CHECK(demangle__name(name, big, n * 4) == name);
	/* The same shape under the cap demangles. */
	strcpy(name + 3 + 4 * 10, "3barEv");
	CHECK_STR(demangle__name(name, big, n * 4),
		  "foo::foo::foo::foo::foo::foo::foo::foo::foo::foo::bar()");
	memset(name, 'Z', n);
	name[0] = '_';
	name[n] = '\0';
	CHECK(demangle__name(name, buf, sizeof(buf)) == name);
	free(name);
	free(big);
}

TEST(truncation)
{
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	CHECK_STR(demangle__name("_ZN3foo3barEv", buf, 8), "foo::ba");
	CHECK(buf[8] == 'x');
	CHECK_STR(demangle__name("_ZN3foo3barEv", buf, 2), "f");
	CHECK_STR(demangle__name("_ZN3foo3barEv", buf, 11), "foo::bar()");
	CHECK_STR(demangle__name("_ZN4core3ptr13drop_in_place17h0123456789abcdefE", buf, 10),
		  "core::ptr");
	/* A cut never leaves half a UTF-8 character. */
	CHECK_STR(demangle__name("_Z5caf\xc3\xa9v", buf, 5), "caf");
	CHECK_STR(demangle__name("_Z5caf\xc3\xa9v", buf, 6), "caf\xc3\xa9");
	CHECK_STR(demangle__name("_Z8\xe2\x82\xac\xe2\x82\xac" "abv", buf, 6), "\xe2\x82\xac");
}

int main(void)
{
	RUN(cxx_names);
	RUN(rust_legacy_names);
	RUN(rust_v0_names);
	RUN(unchanged);
	RUN(hostile_names);
	RUN(overlong);
	RUN(truncation);
	UNIT_EXIT();
}
