"""Where the Python tests write (issue 45, item 8): a folder under the CMake build folder that
holds the ingot binary, never the current directory (a run from the source tree must not write
there); a fresh temporary folder when the binary is not in a build folder."""
import os
import tempfile


def build_dir_of(ingot):
    """The CMake build folder (the one with CMakeCache.txt) above the ingot binary, or None."""
    d = os.path.dirname(os.path.abspath(ingot))
    while d != os.path.dirname(d):
        if os.path.exists(os.path.join(d, "CMakeCache.txt")):
            return d
        d = os.path.dirname(d)
    return None


def work_dir(ingot, name):
    """BUILD/name (created) for the build folder of `ingot`, else a new temporary folder."""
    build = build_dir_of(ingot)
    if build is None:
        return tempfile.mkdtemp(prefix=f"ingot-{name}-")
    path = os.path.join(build, name)
    os.makedirs(path, exist_ok=True)
    return path
