/* Per-thread last error message: every failing runtime call records one line here. */
#include <stdio.h>

#include "internal.h"

static _Thread_local char g_last_error[1024];

ingot_status ingot_fail(ingot_status status, const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(g_last_error, sizeof(g_last_error), fmt, args);
  va_end(args);
  return status;
}

void ingot_clear_error(void) {
  g_last_error[0] = '\0';
}

INGOT_API const char* ingot_last_error(void) {
  return g_last_error;
}
