"""The rootdir and ini file decided again once the plugin's options are known.

pytest decides its rootdir and ini file from a first parse of the command line, made before it loads
plugins from entry points; in that parse the value of an option it does not know yet is a test path. So in
``pytest -m quick --lengthgen-cache-dir /an/existing/dir`` the rootdir becomes ``/an/existing/dir``, no ini file is
found, and the session is not the suite's (no testpaths, markers or ``lengthgen_suite``). xdist workers
parse the controller's command line the same way, after the controller has created the directory.

:func:`redecide` runs in ``pytest_load_initial_conftests``, after pytest's second parse (which knows the
plugin's options) and before the initial conftests are loaded. When the command line holds one of the
plugin's options in the space form and the paths of that second parse lead to another rootdir or ini file,
it sets them as pytest's own start-up would have: the rootdir, the ini values, the ini file's ``addopts`` in
the arguments (those of the first guess taken out), ``-p`` plugins named there, and the conftest cut-off.
It uses pytest's internal start-up functions; where they differ from the ones it knows, the space form is a
usage error (exit 4) that says to write ``--opt=value``.
"""

from __future__ import annotations

import copy
import inspect
import os
import shlex

import pytest

GROUP = "lengthgen"  # the options group of lengthgen.testing.options


def space_form_options(parser: pytest.Parser, args: list[str]) -> list[str]:
    """The plugin's options that ``args`` writes in the space form (``--lengthgen-cache-dir DIR``)."""
    names = {name for option in parser.getgroup(GROUP).options for name in option.names()}
    return [arg for arg in args if arg in names]


def redecide(config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    """Decide the rootdir and ini file again from the paths pytest's second parse found (``args`` is
    changed in place: pytest parses it once more after this hook)."""
    written = space_form_options(parser, args)
    if not written:
        return
    try:
        _redecide(config, parser, args)
    except (AttributeError, TypeError, ImportError, ValueError) as error:  # pytest's internals changed
        raise pytest.UsageError(
            f"{written[0]} VALUE: this pytest cannot take it in the space form ({type(error).__name__}: {error}); "
            f"write {written[0]}=VALUE"
        ) from None


def _redecide(config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    from _pytest.config.findpaths import determine_setup

    known = config.known_args_namespace
    setup = dict(inifile=known.inifilename, args=known.file_or_dir, rootdir_cmd_arg=known.rootdir or None,
                 invocation_dir=config.invocation_params.dir)
    if "override_ini" in inspect.signature(determine_setup).parameters:  # pytest >= 9
        setup["override_ini"] = known.override_ini
    rootpath, inipath, inicfg, *ignored = determine_setup(**setup)
    if (rootpath, inipath) == (config.rootpath, config.inipath):
        return
    old_addopts = list(config.getini("addopts"))
    old_confcutdir = str(config.inipath.parent if config.inipath is not None else config.rootpath)
    config._rootpath, config._inipath, config._inicfg = rootpath, inipath, inicfg
    if ignored:
        config._ignored_config_files = ignored[0]
    config._inicache.clear()
    parser.extra_info["rootdir"] = str(rootpath)
    parser.extra_info["inifile"] = str(inipath)
    new_addopts = list(config.getini("addopts"))
    args[:] = _with_addopts(args, list(config.invocation_params.args), old_addopts, new_addopts)
    config.known_args_namespace = parser.parse_known_args(args, namespace=copy.copy(config.option))
    overrides = _override_ini(config.known_args_namespace.override_ini)  # -o in the ini's addopts
    if overrides:
        config._inicfg.update(overrides)
        config._inicache.clear()
    if known.confcutdir in (None, old_confcutdir):  # pytest's default, from the first guess
        config.known_args_namespace.confcutdir = str(inipath.parent if inipath is not None else rootpath)
    config.pluginmanager.consider_preparse(new_addopts, exclude_only=False)  # -p NAME in the ini's addopts


def _override_ini(override_ini: list[str] | None) -> dict:
    """The ``-o NAME=VALUE`` values as pytest >= 9 keeps them (earlier pytest reads ``-o`` itself)."""
    try:
        from _pytest.config.findpaths import parse_override_ini
    except ImportError:
        return {}
    return parse_override_ini(override_ini)


def _with_addopts(args: list[str], invocation: list[str], old: list[str], new: list[str]) -> list[str]:
    """``args`` (``$PYTEST_ADDOPTS``, the first ini file's addopts, the command line) with the new ini
    file's addopts in place of the first one's. A start-up whose arguments show it ran without addopts
    (``Config.fromdictargs`` with ``$PYTEST_ADDOPTS`` set) stays without."""
    if len(args) < len(invocation) or args[len(args) - len(invocation):] != invocation:
        raise ValueError("pytest's arguments do not end with the command line")
    prefix = args[:len(args) - len(invocation)]
    env = shlex.split(os.environ.get("PYTEST_ADDOPTS", ""))
    if prefix != env + old:  # pytest parsed without addopts
        return args
    return env + new + invocation
