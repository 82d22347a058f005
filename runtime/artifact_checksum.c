/* The artifact file's checksum trailer: XXH3-64 (xxHash, inlined from its header: the runtime
 * stays free of libraries beyond libc) over every byte before the trailer. A flipped bit anywhere
 * in the code, the constants, the record or the ELF headers is refused before the file is
 * mapped, and so is a file that was cut short or grew. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "artifact_checksum.h"
#include "internal.h"

#define READ_CHUNK (1u << 20)

/* XXH3-64 of the first `bytes` bytes of `f` (from its start). Returns 0 and sets *out, or -1. */
static int hash_prefix(FILE* f, uint64_t bytes, uint64_t* out) {
  XXH3_state_t* state = XXH3_createState();
  unsigned char* buf = malloc(READ_CHUNK);
  int ok = state != NULL && buf != NULL && XXH3_64bits_reset(state) == XXH_OK &&
           fseek(f, 0, SEEK_SET) == 0;
  while (ok && bytes > 0) {
    size_t want = bytes < READ_CHUNK ? (size_t)bytes : READ_CHUNK;
    size_t got = fread(buf, 1, want, f);
    ok = got == want && XXH3_64bits_update(state, buf, got) == XXH_OK;
    bytes -= got;
  }
  if (ok) *out = XXH3_64bits_digest(state);
  free(buf);
  XXH3_freeState(state);
  return ok ? 0 : -1;
}

int ingot_seal_artifact_file(const char* path) {
  FILE* f = fopen(path, "r+b");
  if (f == NULL) return -1;
  IngotArtifactTrailer t;
  memset(&t, 0, sizeof(t));
  int ok = fseek(f, 0, SEEK_END) == 0;
  long size = ok ? ftell(f) : -1;
  ok = size >= 0 && hash_prefix(f, (uint64_t)size, &t.checksum) == 0;
  t.payload_bytes = (uint64_t)size;
  t.checksum_kind = INGOT_CHECKSUM_XXH3_64;
  t.abi_version = INGOT_ABI_VERSION;
  t.magic = INGOT_TRAILER_MAGIC;
  ok = ok && fseek(f, 0, SEEK_END) == 0 && fwrite(&t, 1, sizeof(t), f) == sizeof(t);
  int saved = errno;
  if (fclose(f) != 0) ok = 0;
  if (!ok && errno == 0) errno = saved ? saved : EIO;
  return ok ? 0 : -1;
}

ingot_status ingot_check_artifact_trailer(const char* path, int verify_checksum) {
  struct stat st;
  if (stat(path, &st) != 0) {
    return ingot_fail(INGOT_ERR_LOAD, "cannot open artifact '%s': %s", path, strerror(errno));
  }
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    return ingot_fail(INGOT_ERR_LOAD, "cannot open artifact '%s': %s", path, strerror(errno));
  }
  IngotArtifactTrailer t;
  uint64_t size = (uint64_t)st.st_size;
  int have = size >= sizeof(t) && fseek(f, (long)(size - sizeof(t)), SEEK_SET) == 0 &&
             fread(&t, 1, sizeof(t), f) == sizeof(t) && t.magic == INGOT_TRAILER_MAGIC;
  ingot_status status = INGOT_OK;
  if (!have) {
    status = ingot_fail(INGOT_ERR_LOAD,
                        "artifact '%s' has no ingot checksum trailer: it was cut short, changed "
                        "after it was built (strip, objcopy), or built by an ingot older than "
                        "ABI version 5",
                        path);
  } else if (t.abi_version != INGOT_ABI_VERSION) {
    status = ingot_fail(INGOT_ERR_LOAD,
                        "artifact '%s' was built for ingot ABI version %u, this runtime supports "
                        "version %u",
                        path, t.abi_version, INGOT_ABI_VERSION);
  } else if (t.payload_bytes != size - sizeof(t)) {
    status = ingot_fail(INGOT_ERR_LOAD,
                        "artifact '%s' is corrupt: its trailer records %llu bytes before it, the "
                        "file has %llu",
                        path, (unsigned long long)t.payload_bytes,
                        (unsigned long long)(size - sizeof(t)));
  } else if (t.checksum_kind != INGOT_CHECKSUM_XXH3_64) {
    status =
        ingot_fail(INGOT_ERR_LOAD, "artifact '%s' uses checksum kind %u, unknown to this runtime",
                   path, t.checksum_kind);
  } else if (verify_checksum) {
    uint64_t sum = 0;
    if (hash_prefix(f, t.payload_bytes, &sum) != 0) {
      status = ingot_fail(INGOT_ERR_LOAD, "cannot read artifact '%s': %s", path,
                          errno ? strerror(errno) : "short read");
    } else if (sum != t.checksum) {
      status = ingot_fail(INGOT_ERR_LOAD,
                          "artifact '%s' is corrupt: checksum 0x%016llx of its %llu bytes differs "
                          "from the 0x%016llx recorded when it was built",
                          path, (unsigned long long)sum, (unsigned long long)t.payload_bytes,
                          (unsigned long long)t.checksum);
    }
  }
  fclose(f);
  return status;
}
