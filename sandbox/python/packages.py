# evalrun's package loading for Python candidates (--python-packages). It
# runs once per interpreter, in a private namespace, before the harness's
# lockdown; the host has already written the files it may use, read-only,
# into the interpreter's in-memory file system. Nothing here reaches back
# to the host: the files are all there is.
#
#   install(paths, platform_wheels)      platform_wheels: paths of .whl files
#
# `paths` go on sys.path: folders of unpacked packages and modules, and pure
# wheels (py3-none-any), which zipimport reads in place. A Pyodide-built
# wheel (pyemscripten) holds compiled extension modules that cannot be
# imported from a zip: a finder unpacks it the first time a candidate
# imports one of its top-level names, so that a package costs nothing until
# it is imported. Either way a module is loaded only when imported.

import importlib.machinery as _machinery
import sys as _sys
import zipfile as _zipfile


class _PlatformWheelFinder:
    def __init__(self, wheels):
        # top-level name -> (wheel path, folder to unpack it into)
        self._names = {}
        for index, wheel in enumerate(wheels):
            target = '/evalrun-unpacked/' + str(index)
            for name in _top_level_names(wheel):
                self._names.setdefault(name, (wheel, target))
        self._unpacked = set()

    def find_spec(self, fullname, path=None, target=None):
        if path is not None or fullname not in self._names:
            return None
        wheel, folder = self._names[fullname]
        if folder not in self._unpacked:
            with _zipfile.ZipFile(wheel) as archive:
                archive.extractall(folder)
            self._unpacked.add(folder)
            _sys.path.append(folder)
        return _machinery.PathFinder.find_spec(fullname, [folder])

    def invalidate_caches(self):
        pass


def _top_level_names(wheel):
    names = set()
    with _zipfile.ZipFile(wheel) as archive:
        for entry in archive.namelist():
            head = entry.split('/', 1)[0]
            if head.endswith(('.dist-info', '.data')):
                continue
            if '/' in entry:
                names.add(head)
            elif head.endswith('.py'):
                names.add(head[:-3])
            elif head.endswith('.so'):
                names.add(head.split('.', 1)[0])
    return names


def install(paths, platform_wheels):
    for path in paths:
        if path not in _sys.path:
            _sys.path.append(path)
    if platform_wheels:
        _sys.meta_path.append(_PlatformWheelFinder(platform_wheels))
