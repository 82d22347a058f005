/* Runs the model of the MLF once on the board and prints, over semihosting, each output element
 * output's bytes in hex (exact, for the host to compare) and the cycles the run took. The
 * input comes from input_data.h (written by run.sh from the .npz the host run used). */
#include <stdint.h>
#include <stdio.h>

#include "input_data.h" /* INGOT_EXAMPLE_INPUT: the input's bytes; INGOT_EXAMPLE_MODEL_H */
#include INGOT_EXAMPLE_MODEL_H

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define P(x) CAT(INGOT_EXAMPLE_PREFIX, x)
#define M(x) CAT(INGOT_EXAMPLE_MACRO, x)

static uint8_t workspace[M(_WORKSPACE_SIZE) + 1] __attribute__((aligned(16)));
static uint8_t output[INGOT_EXAMPLE_OUTPUT_SIZE] __attribute__((aligned(16)));

/* DWT's cycle counter where the core has one that runs; else SysTick at the core clock (QEMU
 * models no DWT; its SysTick counts emulated time, which run.sh's -icount ties to the
 * instructions executed). */
#define DEMCR (*(volatile uint32_t*)0xE000EDFC)
#define DWT_CTRL (*(volatile uint32_t*)0xE0001000)
#define DWT_CYCCNT (*(volatile uint32_t*)0xE0001004)
#define SYST_CSR (*(volatile uint32_t*)0xE000E010)
#define SYST_RVR (*(volatile uint32_t*)0xE000E014)
#define SYST_CVR (*(volatile uint32_t*)0xE000E018)
extern volatile uint32_t systick_wraps;

static int dwt_runs(void) {
  DEMCR |= 1u << 24;
  DWT_CYCCNT = 0;
  DWT_CTRL |= 1u;
  for (volatile int i = 0; i < 100; ++i) {
  }
  return DWT_CYCCNT != 0;
}

#define ICSR (*(volatile uint32_t*)0xE000ED04)

static uint64_t systick_now(void) {
  uint32_t wraps, value;
  do {
    wraps = systick_wraps;
    value = SYST_CVR;
  } while (wraps != systick_wraps);
  /* A wrap whose interrupt is still pending: the counter has reloaded already. */
  if ((ICSR & (1u << 26)) && value > 0x800000u) ++wraps;
  return (uint64_t)wraps * 0x1000000u + (0xFFFFFFu - value);
}

int main(void) {
  const int dwt = dwt_runs();
  if (!dwt) {
    SYST_RVR = 0xFFFFFF;
    SYST_CVR = 0;
    SYST_CSR = 7; /* enable, interrupt on wrap, core clock */
    while (SYST_CVR == 0) {
    } /* until it has loaded the reload value */
  }
  void* inputs[1] = {(void*)INGOT_EXAMPLE_INPUT};
  void* outputs[1] = {output};
  uint64_t t0 = dwt ? DWT_CYCCNT : systick_now();
  int32_t status = P(_run_arrays)(inputs, outputs, workspace, 0, 0, 0);
  uint64_t t1 = dwt ? DWT_CYCCNT : systick_now();
  if (status != 0) {
    printf("ingot: run failed with status %ld\n", (long)status);
    return 1;
  }
  printf("output ");
  for (unsigned i = 0; i < INGOT_EXAMPLE_OUTPUT_SIZE; ++i) printf("%02x", output[i]);
  printf("\n");
  printf("cycles %llu (%s)\n", (unsigned long long)(dwt ? (uint32_t)(t1 - t0) : t1 - t0),
         dwt ? "DWT" : "SysTick");
  return 0;
}
