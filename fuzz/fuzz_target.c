/*
 * fuzz_target.c -- one libFuzzer target: HS_FUZZ_ENTRY (an hs_fuzz_*
 * function of hs_fuzz.h, set per executable by fuzz/CMakeLists.txt) on
 * every input.
 */
#include <stddef.h>
#include <stdint.h>

#include "hs_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hs_error_t err;

    (void)HS_FUZZ_ENTRY(data, size, &err);
    return 0;
}
