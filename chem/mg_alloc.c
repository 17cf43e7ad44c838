// mg_alloc.c: mg_allocator, the run-time check that malloc is jemalloc's.
#include "mg.h"

#include <jemalloc/jemalloc.h>
#include <stdint.h>
#include <stdlib.h>

int mg_allocator(const char **version) {
  size_t len = sizeof(*version);
  if (mallctl("version", (void *)version, &len, NULL, 0) != 0) return -1;
  uint64_t before = 0, after = 0;
  len = sizeof(before);
  if (mallctl("thread.allocated", &before, &len, NULL, 0) != 0) return -1;
  void *volatile p = malloc(1 << 20);
  len = sizeof(after);
  int rc = mallctl("thread.allocated", &after, &len, NULL, 0);
  free(p);
  if (rc != 0 || p == NULL || after - before < (1 << 20)) return -1;
  return 0;
}
