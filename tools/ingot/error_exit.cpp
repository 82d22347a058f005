// The exit statuses and messages of the CLI's errors (error_exit.h).
#include "tools/ingot/error_exit.h"

#include <new>
#include <stdexcept>

#include "support/error.h"

namespace ingot::cli {

int report_error(std::exception_ptr e, std::FILE* out) {
  try {
    std::rethrow_exception(e);
  } catch (const ingot::UserError& u) {
    std::fprintf(out, "error: %s\n", u.what());
    return 1;
  } catch (const ingot::InternalError& i) {
    std::fprintf(out, "error: internal error (this is a bug in ingot): %s\n", i.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(out, "error: out of memory\n");
    return 1;
  } catch (const std::exception& x) {
    std::fprintf(out, "error: %s\n", x.what());
    return 1;
  }
}

}  // namespace ingot::cli
