/* test_suggest.c -- the nearest valid word to a mistyped one
 * (base/hs_suggest.h): distances worked by hand, the closeness rule, ties
 * and the hint's text. */
#include <string.h>

#include "hs_suggest.h"
#include "hs_test.h"

/* Distances counted by hand: one edit each, a swap as one edit, case
   free, and the classic kitten/sitting (3). */
static void test_distance(void)
{
    HS_ASSERT_I64_EQ(hs_suggest_distance("", ""), 0);
    HS_ASSERT_I64_EQ(hs_suggest_distance("abc", ""), 3);
    HS_ASSERT_I64_EQ(hs_suggest_distance("", "abcd"), 4);
    HS_ASSERT_I64_EQ(hs_suggest_distance("predict", "predict"), 0);
    HS_ASSERT_I64_EQ(hs_suggest_distance("predcit", "predict"), 1);  /* swap */
    HS_ASSERT_I64_EQ(hs_suggest_distance("step", "steps"), 1);       /* ins */
    HS_ASSERT_I64_EQ(hs_suggest_distance("stepss", "steps"), 1);     /* del */
    HS_ASSERT_I64_EQ(hs_suggest_distance("stops", "steps"), 1);      /* sub */
    HS_ASSERT_I64_EQ(hs_suggest_distance("defualt_bandwidth",
                                         "default_bandwidth"), 1);
    HS_ASSERT_I64_EQ(hs_suggest_distance("kitten", "sitting"), 3);
    HS_ASSERT_I64_EQ(hs_suggest_distance("a100", "A100"), 0);
    /* optimal string alignment: "ca" -> "abc" is 3 (no edit of a swapped
       pair), where unrestricted Damerau-Levenshtein says 2 */
    HS_ASSERT_I64_EQ(hs_suggest_distance("ca", "abc"), 3);
    /* symmetric */
    HS_ASSERT_I64_EQ(hs_suggest_distance("sitting", "kitten"), 3);
    /* too long to compare */
    {
        char big[HS_SUGGEST_MAX_LEN + 2];
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = '\0';
        HS_ASSERT_I64_EQ(hs_suggest_distance(big, "x"),
                         HS_SUGGEST_MAX_LEN + 1);
    }
}

static void test_close(void)
{
    CU_ASSERT_TRUE(hs_suggest_close(1, 4));
    CU_ASSERT_FALSE(hs_suggest_close(2, 4));
    CU_ASSERT_TRUE(hs_suggest_close(2, 8));
    CU_ASSERT_FALSE(hs_suggest_close(3, 8));
    CU_ASSERT_TRUE(hs_suggest_close(3, 17));
    CU_ASSERT_FALSE(hs_suggest_close(4, 17));
    /* one letter is near no other word */
    CU_ASSERT_FALSE(hs_suggest_close(1, 1));
    CU_ASSERT_TRUE(hs_suggest_close(0, 1));
}

static void test_list(void)
{
    static const char *const cmds[] = {"predict", "simulate", "validate",
                                       "ingest", "profile", "measure-bw",
                                       "plot", "sweep", "advise", NULL};
    static const char *const keys[] = {"default_bandwidth", "latency",
                                       "links", "links_csv", "type_links",
                                       NULL};
    static const char *const tie[] = {"ab", "ba", "cab", NULL};
    hs_suggest_t sg;

    CU_ASSERT_STRING_EQUAL(hs_suggest_list("predcit", cmds), "predict");
    CU_ASSERT_STRING_EQUAL(hs_suggest_list("simluate", cmds), "simulate");
    CU_ASSERT_STRING_EQUAL(hs_suggest_list("swep", cmds), "sweep");
    CU_ASSERT_STRING_EQUAL(hs_suggest_list("measure_bw", cmds),
                           "measure-bw");
    CU_ASSERT_PTR_NULL(hs_suggest_list("frobnicate", cmds));
    CU_ASSERT_PTR_NULL(hs_suggest_list("", cmds));
    CU_ASSERT_STRING_EQUAL(hs_suggest_list("defualt_bandwidth", keys),
                           "default_bandwidth");
    CU_ASSERT_STRING_EQUAL(hs_suggest_list("link", keys), "links");
    CU_ASSERT_STRING_EQUAL(hs_suggest_list("latancy", keys), "latency");
    CU_ASSERT_PTR_NULL(hs_suggest_list("bandwidth", keys));
    CU_ASSERT_PTR_NULL(hs_suggest_list("x", NULL));
    /* the word itself is no suggestion; a tie goes to the first seen */
    CU_ASSERT_PTR_NULL(hs_suggest_list("links", (const char *const[]){
                                                    "links", NULL}));
    CU_ASSERT_STRING_EQUAL(hs_suggest_list("abb", tie), "ab");
    /* the running form: the nearest wins over an earlier farther one */
    hs_suggest_init(&sg, "stepz");
    hs_suggest_add(&sg, "seed");
    hs_suggest_add(&sg, NULL);
    hs_suggest_add(&sg, "steps");
    CU_ASSERT_STRING_EQUAL(sg.best, "steps");
    HS_ASSERT_I64_EQ(sg.best_dist, 1);
}

static void test_hint(void)
{
    static const char *const kinds[] = {"patent", "buckets", "none", NULL};
    char buf[HS_SUGGEST_HINT_LEN], small[12];
    hs_suggest_t sg;

    CU_ASSERT_STRING_EQUAL(hs_suggest_hint_list("bukets", kinds, buf,
                                                sizeof buf),
                           "; did you mean 'buckets'?");
    CU_ASSERT_STRING_EQUAL(hs_suggest_hint_list("zzzzzz", kinds, buf,
                                                sizeof buf),
                           "");
    hs_suggest_init(&sg, "bukets");
    hs_suggest_add(&sg, "buckets");
    /* truncated to the buffer, still terminated */
    CU_ASSERT_STRING_EQUAL(hs_suggest_hint(&sg, small, sizeof small),
                           "; did you m");
}

static int reg(void)
{
    CU_pSuite s = CU_add_suite("suggest", NULL, NULL);

    CU_add_test(s, "distance, by hand", test_distance);
    CU_add_test(s, "what counts as close", test_close);
    CU_add_test(s, "nearest in a list", test_list);
    CU_add_test(s, "the hint's text", test_hint);
    return 0;
}

HS_TEST_MAIN(reg)
