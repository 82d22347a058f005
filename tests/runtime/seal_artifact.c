/* Test helper: appends the checksum trailer to a hand-written artifact, as the compiler's linker
 * does to every artifact it writes (usage: seal_artifact FILE.so). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "artifact_checksum.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: seal_artifact FILE.so\n");
    return 2;
  }
  if (ingot_seal_artifact_file(argv[1]) != 0) {
    fprintf(stderr, "seal_artifact: cannot seal '%s': %s\n", argv[1], strerror(errno));
    return 1;
  }
  return 0;
}
