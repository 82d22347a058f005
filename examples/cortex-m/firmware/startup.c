/* Startup for Arm Cortex-M boards under QEMU (mps2-an386: Cortex-M4; mps3-an547: Cortex-M55):
 * the vector table, and a reset handler that copies .data from flash, zeroes .bss, turns on the
 * FPU when the build uses one, opens the semihosting console and calls main(). SysTick's
 * interrupt counts its wraps for the cycle counter in main.c. */
#include <stdint.h>
#include <stdlib.h>

extern uint32_t __data_load__, __data_start__, __data_end__, __bss_start__, __bss_end__;
extern uint32_t __stack_top__;
extern int main(void);
extern void initialise_monitor_handles(void);

volatile uint32_t systick_wraps;

/* newlib's exit() runs the fini array through these (crti.o supplies them, not linked here). */
void _init(void) {}
void _fini(void) {}

void SysTick_Handler(void) {
  ++systick_wraps;
}

static void Fault_Handler(void) {
  for (;;) {
  }
}

void Reset_Handler(void) {
  uint32_t* src = &__data_load__;
  for (uint32_t* dst = &__data_start__; dst < &__data_end__;) *dst++ = *src++;
  for (uint32_t* dst = &__bss_start__; dst < &__bss_end__;) *dst++ = 0;
#if defined(__ARM_FP)
  /* CPACR: full access to CP10 and CP11 (the FPU). */
  *(volatile uint32_t*)0xE000ED88 |= (0xFu << 20);
  __asm volatile("dsb\n isb");
#endif
  initialise_monitor_handles();
  exit(main());
}

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))(&__stack_top__),
    Reset_Handler,
    Fault_Handler, /* NMI */
    Fault_Handler, /* HardFault */
    Fault_Handler, /* MemManage */
    Fault_Handler, /* BusFault */
    Fault_Handler, /* UsageFault */
    0,
    0,
    0,
    0,
    Fault_Handler, /* SVCall */
    Fault_Handler, /* DebugMon */
    0,
    Fault_Handler, /* PendSV */
    SysTick_Handler,
};
